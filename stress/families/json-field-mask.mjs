// ProtoJSON: a FieldMask of n paths, read and written.
import { JSON_SCHEMA, jsonTypeOf } from "../lib.mjs";

const ser = jsonTypeOf(JSON_SCHEMA, "J").type.createSerializer();

export const family = {
  name: "json: FieldMask of n paths",
  prepare: (n) => `{"fm":"${Array.from({ length: n }, (_, i) => `fooBarBaz${i}.quxQuux`).join(",")}"}`,
  run: (text) => {
    ser.toJsonString(ser.fromJsonString(text));
  },
};
