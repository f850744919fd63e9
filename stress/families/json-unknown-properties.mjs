// ProtoJSON: an object of n properties that name no field, skipped with ignoreUnknownFields.
import { JSON_SCHEMA, jsonTypeOf } from "../lib.mjs";

const ser = jsonTypeOf(JSON_SCHEMA, "J").type.createSerializer();

export const family = {
  name: "json: n unknown properties skipped",
  prepare: (n) => `{${Array.from({ length: n }, (_, i) => `"u${i}":${i}`).join(",")},"a":1}`,
  run: (text) => {
    if (ser.fromJsonString(text, { ignoreUnknownFields: true }).get("a") !== 1) throw new Error("a lost");
  },
};
