// Hardening item 14: decode() of n empty frames is refused with NOT_ONE_FRAME after a validate
// pass, without building the n values: memory stays constant, whatever n.
import { typeOf } from "../lib.mjs";
import { memoryFamily } from "../core-memory.mjs";

export const family = memoryFamily({
  name: "core memory: decode() of many empty frames refused",
  bytes: (n) => new Uint8Array(n),
  decode: "decode",
  limit: () => 4 * 1024 * 1024,
  type: typeOf('syntax = "proto3"; message Empty {}', "Empty"),
});
