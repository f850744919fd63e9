// ProtoJSON: n distinct properties, then a known one again at the end (JSON_SYNTAX, the key
// appears twice); and n int64 map keys ending with "01" after "1" (JSON_DUPLICATE_KEY).
import { JSON_SCHEMA, jsonTypeOf } from "../lib.mjs";

const ser = jsonTypeOf(JSON_SCHEMA, "J").type.createSerializer();

function refused(text, code) {
  try {
    ser.fromJsonString(text, { ignoreUnknownFields: true });
  } catch (e) {
    if (e.code === code) return;
    throw e;
  }
  throw new Error(`not refused: ${code}`);
}

export const family = {
  name: "json: duplicate key after n properties / n map keys",
  prepare: (n) => [
    `{"a":1,${Array.from({ length: n }, (_, i) => `"x${i}":1`).join(",")},"a":2}`,
    `{"mi":{"1":0,${Array.from({ length: n }, (_, i) => `"${i + 2}":1`).join(",")},"01":2}}`,
  ],
  run: ([props, keys]) => {
    refused(props, "JSON_SYNTAX");
    refused(keys, "JSON_DUPLICATE_KEY");
  },
};
