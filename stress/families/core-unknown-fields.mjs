// Hardening item 12: n two-byte unknown varint fields (`38 00`): an entry each, kept and relayed.
import { memoryFamily, repeat } from "../core-memory.mjs";

export const family = memoryFamily({ name: "core memory: unknown varint fields", bytes: (n) => repeat([0x38, 0], n), field: "i" });
