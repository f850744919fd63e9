// Hardening item 12: ASCII strings go to a text area beside the tape; n strings of 64 bytes, the
// text of a window at most 1 MiB.
import { field, memoryFamily, repeat } from "../core-memory.mjs";

export const family = memoryFamily({
  name: "core memory: ASCII strings",
  bytes: (n) => repeat(field(6, new Uint8Array(64).fill(0x61)), n),
  field: "s",
});
