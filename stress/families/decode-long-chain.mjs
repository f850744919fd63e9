// Hardening item 8: a chain of N message types T0 -> T1 -> ... -> T(N-1): the first decode builds
// the layouts of the whole closure (fresh descriptors each run), without recursion.
import { L, messageIn, pk, setOf, T } from "../lib.mjs";

function schema(n) {
  const messageType = [];
  for (let i = 0; i < n; i++) {
    const field = [{ name: "v", number: 2, label: L.OPTIONAL, type: T.INT32 }];
    if (i + 1 < n) field.push({ name: "next", number: 1, label: L.OPTIONAL, type: T.MESSAGE, typeName: `.s.T${i + 1}` });
    messageType.push({ name: `T${i}`, field });
  }
  return setOf([{ name: "c.proto", messageType }]);
}

export const family = {
  name: "decode: first decode of an N-type chain",
  prepare: (n) => schema(n),
  run: (set) => {
    const ser = pk.ProtobufType.newBuilder(messageIn(set, "s.T0")).maxDepth(10_000).build().createSerializer();
    ser.fromBinary(Uint8Array.of(0x0a, 0x02, 0x10, 0x01));
  },
};
