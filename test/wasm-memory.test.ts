// Linear memory grows for large inputs, views are rebuilt after growth, and the instance keeps
// working afterwards.
import { describe, expect, test } from "vitest";
import { layoutOf } from "../src/codec/layout.js";
import { core } from "../src/wasm/instance.js";
import { memoryGrowCount, views } from "../src/wasm/memory.js";
import { walkMessage } from "../src/wasm/ops.js";
import { messageFromDir } from "./support/buf.js";

const MiB = 1024 * 1024;

describe("memory growth", () => {
  test("a 300 MiB message grows memory, reads correctly, and later calls still work", () => {
    const Scalars = messageFromDir("fixtures/core", "core.test.Scalars");
    const layout = layoutOf(Scalars);
    const size = 300 * MiB;
    // Scalars.by (field 12, bytes) holding 300 MiB, then i32 = 7.
    const header = [0x62, 0x80, 0x80, 0x80, 0x96, 0x01];
    const input = new Uint8Array(header.length + size + 2);
    input.set(header);
    input[header.length + size - 1] = 0xab;
    input.set([0x28, 7], header.length + size);
    const grewBefore = memoryGrowCount();
    const tape = walkMessage(layout.typeOffset, input, { maxMessageBytes: 512 * MiB, maxDepth: 100 });
    expect(memoryGrowCount()).toBeGreaterThan(grewBefore);
    expect(views.buffer).toBe(core().memory.buffer);
    expect(views.buffer.byteLength).toBeGreaterThan(size);
    const u32 = views.u32;
    const bytesEntry = Array.from(u32.subarray(tape.start + 4, tape.start + 8));
    expect(bytesEntry).toEqual([6 | (10 << 8), 0, header.length, size]);
    // The copy in linear memory is the input (its last byte checked through the fresh view).
    expect(views.u8[tape.base + header.length + size - 1]).toBe(0xab);
    expect(u32[tape.start + 8]! & 0xf).toBe(3);
    expect(u32[tape.start + 10]).toBe(7);
    // A small call after the growth reuses the grown memory without growing again.
    const after = memoryGrowCount();
    const small = walkMessage(layout.typeOffset, Uint8Array.from([0x28, 9]), { maxMessageBytes: 100, maxDepth: 10 });
    expect(views.u32[small.start + 6]).toBe(9);
    expect(memoryGrowCount()).toBe(after);
  });
});
