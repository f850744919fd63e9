// Hardening item 12: decodeAll of n empty frames (1 byte each, 32 bytes of tape each) reads one
// 1 MiB segment at a time: memory stays constant, whatever n.
import { typeOf } from "../lib.mjs";
import { memoryFamily } from "../core-memory.mjs";

export const family = memoryFamily({
  name: "core memory: decodeAll of empty frames",
  bytes: (n) => new Uint8Array(n),
  decode: "decodeAll",
  limit: () => 4 * 1024 * 1024,
  type: typeOf('syntax = "proto3"; message Empty {}', "Empty"),
});
