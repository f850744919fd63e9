// The dynamic kind on wide types: N values of a type of N fields — a third in one oneof, a third
// proto3 `optional` fields, a third one-member oneofs — each value setting the last of each, put
// through every path that visits a value's fields: create, write (built and from plain data),
// decode and read, equals, JSON both ways, a builder. Values were arrays of one slot per field,
// so this was N x N (10,000 values of a 10,000-member oneof: create 1.0-1.8 s, toJson 7.4 s);
// a wide type's values now hold what they set (src/message/values.ts).
import { L, messageIn, pk, setOf, T, wideNumber } from "../lib.mjs";

function schema(n) {
  const third = Math.floor(n / 3);
  const field = [];
  const oneofDecl = [{ name: "pick" }];
  for (let i = 1; i <= third; i++) field.push({ name: `m${i}`, number: wideNumber(i), label: L.OPTIONAL, type: T.INT32, oneofIndex: 0 });
  for (let i = 1; i <= third; i++) {
    field.push({ name: `o${i}`, number: wideNumber(third + i), label: L.OPTIONAL, type: T.INT64, oneofIndex: oneofDecl.length, proto3Optional: true });
    oneofDecl.push({ name: `_o${i}` });
  }
  for (let i = 1; i <= third; i++) {
    field.push({ name: `p${i}`, number: wideNumber(2 * third + i), label: L.OPTIONAL, type: T.STRING, oneofIndex: oneofDecl.length });
    oneofDecl.push({ name: `q${i}` });
  }
  for (const f of field) f.jsonName = f.name;
  return setOf([
    {
      name: "w.proto",
      messageType: [
        { name: "Wide", field, oneofDecl },
        { name: "Batch", field: [{ name: "items", number: 1, label: L.REPEATED, type: T.MESSAGE, typeName: ".s.Wide", jsonName: "items" }] },
      ],
    },
  ]);
}

export const family = {
  name: "values: N values of an N-field type (wide oneof, optionals, oneofs) through every path",
  // From 1e4: at 1e3 a type is below the width where values start sparse, and each path takes
  // a few ms, where one collection or compilation moves a step by x5 or more.
  sizes: [1e4, 1e5],
  prepare: (n) => {
    const third = Math.floor(n / 3);
    const type = pk.ProtobufType.newBuilder(messageIn(schema(n), "s.Batch")).maxMessageBytes(1 << 30).build();
    const init = { items: Array.from({ length: n }, () => ({ [`m${third}`]: 1, [`o${third}`]: 2n, [`p${third}`]: "p" })) };
    return { type, ser: type.createSerializer(), init, last: `m${third}` };
  },
  run: ({ type, ser, init, last }) => {
    const m = pk.DynamicMessage.create(type.descriptor, init);
    const bytes = ser.toBinary(m);
    ser.toBinary(init);
    const back = ser.fromBinary(bytes);
    for (const item of back.get("items")) if (item.get(last) !== 1) throw new Error("wrong value read back");
    if (!back.equals(m)) throw new Error("read back unequal");
    if (!ser.fromJson(ser.toJson(m)).equals(m)) throw new Error("JSON round trip unequal");
    for (const item of back.get("items")) item.toBuilder().set(last, 2).build();
  },
};
