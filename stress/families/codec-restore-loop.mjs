// Hardening item 13: restoring a 300-field serializer from one snapshot N times, decoding with each:
// the JS heap and the layout table must not grow with N.
import { pk } from "../lib.mjs";
import { L, messageIn, setOf, T } from "../lib.mjs";

const field = Array.from({ length: 300 }, (_, i) => ({ name: `f${i}`, number: i + 1, label: L.OPTIONAL, type: i % 3 === 0 ? T.STRING : T.INT64 }));
const desc = messageIn(setOf([{ name: "r.proto", messageType: [{ name: "Wide", field }] }]), "s.Wide");
const snapshot = pk.writeSnapshot(pk.ProtobufType.of(desc).createSerializer().snapshotConfiguration());
const sample = pk.ProtobufType.of(desc).createSerializer().toBinary(pk.DynamicMessage.create(desc, { f0: "x", f1: 7n }));

const settle = async () => {
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.();
    await new Promise((r) => setTimeout(r, 5));
  }
};

export const family = {
  name: "codec: N restores of one snapshot (heap kept flat)",
  // 4e3: the case (4,000 restores grew the heap 8 -> 102 MB); 1e4 took a minute of CPU.
  sizes: [1e2, 1e3, 4e3],
  prepare: async () => {
    await settle();
    return { heap0: process.memoryUsage().heapUsed };
  },
  run: (_state, n) => {
    for (let i = 0; i < n; i++) readAndDecode();
  },
  after: async (state) => {
    await settle();
    return { heapMB: (process.memoryUsage().heapUsed - state.heap0) / 1e6 };
  },
  check: (rows) => {
    const last = rows[rows.length - 1];
    // Each run repeats the restores several times: a leak would show as tens of MB per 4e3 (the issue measured 94 MB).
    return last.heapMB > 20 ? [`heap grew ${last.heapMB.toFixed(1)} MB after ${last.n} restores`] : [];
  },
};

function readAndDecode() {
  const ser = pk.readSnapshot(snapshot).restoreSerializer();
  if (ser.fromBinary(sample).get("f0") !== "x") throw new Error("wrong value");
}
