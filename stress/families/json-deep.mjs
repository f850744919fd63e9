// ProtoJSON nested n deep (maxDepth 10,000): ListValue in Value in ListValue ([[[…]]]), Struct in
// Value ({"a":{"a":…}}), and a message chain ({"next":{"next":…}}); read and written on one line.
import { JSON_SCHEMA, jsonTypeOf } from "../lib.mjs";

const ser = jsonTypeOf(JSON_SCHEMA, "J").type.createSerializer();

export const family = {
  name: "json: Value lists, Structs and messages n deep",
  sizes: [4e2, 1.2e3, 3.6e3],
  // Steps of 3x over runs of milliseconds (maxDepth 10,000 caps n): a step's noise counts ~2.1
  // times over in the per-10x figure. CI read 400 -> 1200 at x58 once while 1200 -> 3600 read
  // x1.8 in the same run (local runs: x2-x16); a quadratic path reads x100 per 10x whatever the
  // step, so x60 still tells it from a linear one.
  maxRatio: 60,
  prepare: (n) => [
    `{"v":${"[".repeat(n)}${"]".repeat(n)}}`,
    `{"st":${'{"a":'.repeat(n / 2)}1${"}".repeat(n / 2)}}`,
    `${'{"next":'.repeat(2 * n)}{}${"}".repeat(2 * n)}`,
  ],
  run: (texts) => {
    for (const t of texts) if (ser.toJsonString(ser.fromJsonString(t)).length !== t.length) throw new Error("round trip differs");
  },
};
