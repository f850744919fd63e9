// Hardening item 9: values nested N deep (maxDepth allows 10,000): encode, deterministic encode,
// decode, equals and toObject, none of them recursive.
import { pk, typeOf } from "../lib.mjs";

const type = typeOf(`syntax = "proto3"; message Node { Node next = 1; int32 v = 2; }`, "Node", { maxDepth: 10_000 });
const ser = type.createSerializer();
const det = pk.ProtobufType.newBuilder(type.descriptor).maxDepth(10_000).deterministic(true).build().createSerializer();

export const family = {
  name: "values: N-deep encode/decode/equals/toObject",
  sizes: [1e2, 1e3, 1e4],
  prepare: (n) => {
    let v = pk.DynamicMessage.create(type.descriptor, { v: 1 });
    for (let i = 1; i < n; i++) v = pk.DynamicMessage.create(type.descriptor, { v: i, next: v });
    return v;
  },
  run: (v) => {
    // A fresh copy each run: a value written once is memoized as accepted.
    const fresh = pk.DynamicMessage.create(type.descriptor, { v: 0, next: v.get("next") ?? undefined });
    const bytes = ser.toBinary(fresh);
    det.toBinary(fresh);
    const back = ser.fromBinary(bytes);
    if (!back.equals(fresh)) throw new Error("round trip differs");
    back.toObject();
  },
};
