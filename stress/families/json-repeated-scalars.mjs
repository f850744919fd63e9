// ProtoJSON: repeated fields of n elements: enums by name, bytes base64 with and without padding,
// int64 as strings and as numbers; read and written (indented).
import { JSON_SCHEMA, jsonTypeOf } from "../lib.mjs";

const ser = jsonTypeOf(JSON_SCHEMA, "J").type.createSerializer();

export const family = {
  name: "json: n-element repeated enums, bytes, int64",
  prepare: (n) => {
    const half = Math.ceil(n / 2);
    return `{"es":[${Array(n).fill('"E_ONE"').join(",")}],"bs":[${Array(half).fill('"AAEC"').concat(Array(half).fill("\"AAE\"")).join(",")}],"i64":[${Array(half).fill('"-9223372036854775808"').concat(Array(half).fill("9007199254740993")).join(",")}]}`;
  },
  run: (text) => {
    ser.toJsonString(ser.fromJsonString(text), { prettySpaces: 2 });
  },
};
