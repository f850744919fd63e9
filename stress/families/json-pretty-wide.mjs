// ProtoJSON: toJsonString with prettySpaces 10 of n submessages and a map of n entries (the
// indented writer). Depth is not swept: indented text is depth x indent per line by design.
import { JSON_SCHEMA, jsonTypeOf } from "../lib.mjs";

const ser = jsonTypeOf(JSON_SCHEMA, "J").type.createSerializer();

export const family = {
  name: "json: toJsonString prettySpaces 10, n kids and n map entries",
  prepare: (n) =>
    ser.fromJsonString(
      `{"kids":[${Array(n).fill('{"a":1,"myField":"x","kids":[{"s":"y"}]}').join(",")}],"mj":{${Array.from({ length: n }, (_, i) => `"k${i}":{"dbl":-0}`).join(",")}}}`,
    ),
  run: (v) => {
    ser.toJsonString(v, { prettySpaces: 10 });
  },
};
