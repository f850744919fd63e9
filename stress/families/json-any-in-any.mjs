// ProtoJSON: google.protobuf.Any holding an Any, n levels (maxDepth 10,000 allows ~5,000), read
// with fromJsonString and written back with toJsonString. Each level's content is packed or
// unpacked by a serializer of its type, so level k's value bytes are a copy of every level inside
// it: reading n levels copies ~n^2 x 22 bytes (3,600 levels: ~290 MB of short-lived buffers).
// Until the read dropped each level as it was built, every level's copy stayed alive to the end
// (8,000 levels, 360 KB of binary: 1.4 GB, 2.2 GB RSS, 5.6 s; 176 MB RSS, 1.2 s since), and this
// measured x27-x164 per 10x; now x33-x35, the copies (memcpy speed) under the per-level work. A
// quadratic path reads x100 per 10x: the bound is x150, which fails that retention again.
import { JSON_SCHEMA, jsonTypeOf, pk } from "../lib.mjs";

const { type, root } = jsonTypeOf(JSON_SCHEMA, "J");
const ser = type.createSerializer();
const registry = [type, pk.ProtobufType.of(root.lookupType("google.protobuf.Any"))];
const ANY = '{"@type":"type.googleapis.com/google.protobuf.Any","value":';

export const family = {
  name: "json: Any in Any, n levels, fromJsonString + toJsonString",
  sizes: [4e2, 1.2e3, 3.6e3],
  maxRatio: 150,
  prepare: (n) => `{"any":${ANY.repeat(n)}{"@type":"type.googleapis.com/J","a":1}${"}".repeat(n)}}`,
  run: (text) => {
    const back = ser.toJsonString(ser.fromJsonString(text, { registry }), { registry });
    if (back.length !== text.length) throw new Error("round trip differs");
  },
};
