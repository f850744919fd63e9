// ProtoJSON: one string of n escape groups (\u00e9, a surrogate pair, \\, \n), read and written.
import { JSON_SCHEMA, jsonTypeOf } from "../lib.mjs";

const ser = jsonTypeOf(JSON_SCHEMA, "J").type.createSerializer();

export const family = {
  name: "json: a string of n escape groups",
  prepare: (n) => `{"s":"${"\\u00e9\\ud83d\\ude00\\\\\\n".repeat(n)}","ss":[${Array(Math.ceil(n / 10)).fill('"\\u00e9\\t"').join(",")}]}`,
  run: (text) => {
    const v = ser.fromJsonString(text);
    ser.toJsonString(v);
  },
};
