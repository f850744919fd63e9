// ProtoJSON: a message chain n deep with a small google.protobuf.Any at every level
// ({"next":{"any":{…},"next":…}}): n Anys whose paths are up to n segments long. An Any's path
// was joined into text for every Any (on success too): 9,000 levels took 5 s to read and write back, x40-x60 per
// 10x. Bytes are linear here (each Any holds one small message), unlike json-any-in-any.
import { JSON_SCHEMA, jsonTypeOf } from "../lib.mjs";

const { type } = jsonTypeOf(JSON_SCHEMA, "J");
const ser = type.createSerializer();
const registry = [type];
const LEVEL = '{"any":{"@type":"type.googleapis.com/J","a":1,"s":"x"},"next":';

export const family = {
  name: "json: an Any at each of n levels, fromJsonString + toJsonString",
  sizes: [1e3, 3e3, 9e3],
  prepare: (n) => `${LEVEL.repeat(n)}{}${"}".repeat(n)}`,
  run: (text) => {
    const back = ser.toJsonString(ser.fromJsonString(text, { registry }), { registry });
    if (back.length !== text.length) throw new Error("round trip differs");
  },
};
