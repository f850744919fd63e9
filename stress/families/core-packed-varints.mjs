// Hardening item 12: packed varints, decoded by the core into arrays below the tape: n 1-byte
// int64 elements decode to 8n bytes, n 10-byte uint64 elements to 8n; both split over windows.
import { field, memoryFamily, repeat } from "../core-memory.mjs";

const tenBytes = [0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01];

export const family = memoryFamily({
  name: "core memory: packed 1-byte and 10-byte varints",
  bytes: (n) => {
    const a = field(4, new Uint8Array(n).fill(1));
    const b = field(5, repeat(tenBytes, n));
    const out = new Uint8Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  },
  field: "big",
});
