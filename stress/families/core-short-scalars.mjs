// Hardening item 12: n two-byte scalars (`18 01`): one 16-byte tape entry per 2 input bytes.
import { memoryFamily, repeat } from "../core-memory.mjs";

export const family = memoryFamily({ name: "core memory: short scalars", bytes: (n) => repeat([0x18, 1], n), field: "i" });
