// Hardening item 12: n empty sub-messages (`0a 00`, 2 bytes) give 2n tape entries (32 bytes per
// 2 input bytes); peak WASM memory must stay the input plus a constant.
import { memoryFamily, repeat } from "../core-memory.mjs";

export const family = memoryFamily({ name: "core memory: empty sub-messages", bytes: (n) => repeat([0x0a, 0], n), field: "e" });
