// What the Schema Registry wire format costs per record (protokeel/registry), in one process:
// interleaved rounds of RegistrySerializer.serialize against serializer.toBinary, and of
// RegistryDeserializer.deserialize against serializer.fromBinary, on a small order (33 B bare,
// 39 B as a record) and on the span batch. Prints the median of the per-round time ratios (above
// 1 = the registry path is slower). Ratios only: the machines this runs on are noisy. Run after
// `npm run build`:
//
//   node bench/registry-overhead.mjs
import protobuf from "protobufjs";
import { ProtobufType } from "../dist/index.js";
import { MemoryRegistryClient, RegistryDeserializer, RegistrySerializer } from "../dist/registry/index.js";

const text = 'syntax = "proto3"; package acme; message Item { string sku = 1; int32 qty = 2; } message Order { int64 id = 1; repeated Item items = 2; string note = 3; }';
const type = ProtobufType.of(protobuf.parse(text, { keepCase: true }).root.lookupType("acme.Order"));
const big = { id: 7n, items: Array.from({ length: 400 }, (_, i) => ({ sku: `sku-${i}-${"x".repeat(i % 30)}`, qty: i })), note: "n".repeat(500) };
const small = { id: 7n, items: [{ sku: "abc", qty: 2 }, { sku: "def", qty: 3 }], note: "hello world" };

const client = new MemoryRegistryClient();
const rs = new RegistrySerializer(type, { client });
const rd = new RegistryDeserializer(type, { client });
const ser = type.createSerializer();

async function perCall(n, f) {
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await f();
  return Number(process.hrtime.bigint() - t) / n;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const [name, init, n] of [["small", small, 20_000], ["large", big, 500]]) {
  const value = ser.fromBinary(ser.toBinary(init));
  const bare = ser.toBinary(value);
  const record = await rs.serialize("t", value);
  await rd.deserialize("t", record);
  const write = [];
  const read = [];
  for (let round = 0; round < 15; round++) {
    const a = await perCall(n, () => ser.toBinary(value));
    const b = await perCall(n, () => rs.serialize("t", value));
    const c = await perCall(n, () => ser.fromBinary(bare));
    const d = await perCall(n, () => rd.deserialize("t", record));
    write.push(b / a);
    read.push(d / c);
  }
  console.log(`${name} (${bare.length} B bare, ${record.length} B record): serialize/toBinary ${median(write).toFixed(2)}x, deserialize/fromBinary ${median(read).toFixed(2)}x`);
}
