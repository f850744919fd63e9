// Hardening item 12: n empty map entries (`12 00`, 2 bytes: a START and an END each), the shape
// of the 60 MB input that left 1.1 GB behind.
import { memoryFamily, repeat } from "../core-memory.mjs";

export const family = memoryFamily({ name: "core memory: 1-byte map entries", bytes: (n) => repeat([0x12, 0], n), field: "m" });
