// Encode from plain data on wide types: N init objects of an N-field type, each setting its first
// and last fields (no oneof), written by toBinary, encodeAll and into a FrameWriter. The direct
// walk visited every field index between an object's lowest and highest set ones, so this was
// N x N (10,000 objects of a 5,000-field type: 121 µs each); it now visits the set ones alone
// when they are few for that span (sparseInit in src/codec/generated-writer.ts).
import { L, messageIn, pk, setOf, T, wideNumber } from "../lib.mjs";

function schema(n) {
  const field = [];
  for (let i = 1; i <= n; i++) field.push({ name: `f${i}`, number: wideNumber(i), label: L.OPTIONAL, type: i % 2 === 0 ? T.INT32 : T.STRING, jsonName: `f${i}` });
  return setOf([
    {
      name: "w.proto",
      messageType: [
        { name: "Wide", field },
        { name: "Batch", field: [{ name: "items", number: 1, label: L.REPEATED, type: T.MESSAGE, typeName: ".s.Wide", jsonName: "items" }] },
      ],
    },
  ]);
}

export const family = {
  name: "write from plain: N init objects of an N-field type, first and last fields set",
  // From 1e4, as values-wide-types: smaller steps take a few ms, where one collection moves them.
  sizes: [1e4, 1e5],
  prepare: (n) => {
    const set = schema(n);
    const type = pk.ProtobufType.newBuilder(messageIn(set, "s.Batch")).maxMessageBytes(1 << 30).build();
    const wide = pk.ProtobufType.newBuilder(messageIn(set, "s.Wide")).maxMessageBytes(1 << 30).build();
    const last = n % 2 === 0 ? 7 : "last";
    const items = Array.from({ length: n }, (_, i) => ({ [`f${n}`]: last, f1: `first ${i}` }));
    return { type, ser: type.createSerializer(), each: wide.createSerializer(), init: { items }, items, n, last };
  },
  run: (input) => {
    input.bytes = input.ser.toBinary(input.init);
    input.frames = input.each.encodeAll(input.items);
    const w = new pk.FrameWriter();
    for (let i = 0; i < input.items.length; i += 100) input.each.serialize(input.items[i], w);
  },
  // Untimed: what was written reads back, and is a built value's bytes.
  after: ({ type, ser, each, items, n, last, bytes, frames }) => {
    const back = ser.fromBinary(bytes).get("items");
    if (back.length !== n || back[n - 1].get(`f${n}`) !== last || back[n - 1].get("f1") !== `first ${n - 1}`) throw new Error("wrong values read back");
    if (each.decodeAll(frames).length !== n) throw new Error("wrong frame count");
    const built = ser.toBinary(pk.DynamicMessage.create(type.descriptor, { items: items.slice(0, 10) }));
    const plain = ser.toBinary({ items: items.slice(0, 10) });
    if (built.length !== plain.length || built.some((b, i) => b !== plain[i])) throw new Error("init bytes differ from the built value's");
    return {};
  },
};
