// ProtoJSON: google.protobuf.Struct with n keys, each a small list of every Value kind.
import { JSON_SCHEMA, jsonTypeOf } from "../lib.mjs";

const ser = jsonTypeOf(JSON_SCHEMA, "J").type.createSerializer();

export const family = {
  name: "json: Struct of n keys",
  sizes: [1e3, 1e4, 1e5],
  prepare: (n) => `{"st":{${Array.from({ length: n }, (_, i) => `"k${i}":[1,"a",null,{"x":true}]`).join(",")}}}`,
  run: (text) => {
    ser.toJsonString(ser.fromJsonString(text));
  },
};
