// ProtoJSON: maps of n entries: string keys with escapes, int64 keys (read and written, the
// deterministic writer sorting them), int32 keys.
import { JSON_SCHEMA, jsonTypeOf, pk } from "../lib.mjs";

const { type } = jsonTypeOf(JSON_SCHEMA, "J");
const ser = type.createSerializer();
const det = pk.ProtobufType.newBuilder(type.descriptor).maxDepth(10_000).deterministic(true).build().createSerializer();

export const family = {
  name: "json: n map entries (escaped string, int64, int32 keys)",
  prepare: (n) => {
    const keys = Array.from({ length: n }, (_, i) => i);
    return `{"ms":{${keys.map((i) => `"k\\u00e9\\"${i}":${i}`).join(",")}},"mi":{${keys.map((i) => `"${(n - i) * 1_000_000_007}":${i}`).join(",")}},"m32":{${keys.map((i) => `"-${i}":${i}`).join(",")}}}`;
  },
  run: (text, n) => {
    const v = ser.fromJsonString(text);
    if (v.get("mi").size !== n) throw new Error("entries lost");
    det.toJsonString(v);
    ser.toJsonString(v);
  },
};
