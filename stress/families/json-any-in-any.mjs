// ProtoJSON: google.protobuf.Any holding an Any, n levels (maxDepth 10,000 allows ~5,000), read
// with fromJsonString and written back with toJsonString. Each level's content is packed or
// unpacked by a serializer of its type. Known quadratic, bounded by maxDepth: level k's value
// bytes hold a copy of every level inside it, so reading n levels allocates and copies ~n^2 x 22
// bytes (3,600 levels: ~290 MB of short-lived buffers, 0.5-1.1 s), and writing decodes each level
// from its copy. Binary decoding keeps only the outer bytes. A quadratic path reads x100 per 10x,
// and this one measured x27-x164 on a loaded machine (its ~290 MB of garbage): the bound is x500,
// which still fails a cubic path (x1000).
import { JSON_SCHEMA, jsonTypeOf, pk } from "../lib.mjs";

const { type, root } = jsonTypeOf(JSON_SCHEMA, "J");
const ser = type.createSerializer();
const registry = [type, pk.ProtobufType.of(root.lookupType("google.protobuf.Any"))];
const ANY = '{"@type":"type.googleapis.com/google.protobuf.Any","value":';

export const family = {
  name: "json: Any in Any, n levels, fromJsonString + toJsonString",
  sizes: [4e2, 1.2e3, 3.6e3],
  maxRatio: 500,
  prepare: (n) => `{"any":${ANY.repeat(n)}{"@type":"type.googleapis.com/J","a":1}${"}".repeat(n)}}`,
  run: (text) => {
    const back = ser.toJsonString(ser.fromJsonString(text, { registry }), { registry });
    if (back.length !== text.length) throw new Error("round trip differs");
  },
};
