// Issue 15, failure safety: a truncated or corrupted checkpoint (memory) or stored snapshot (LMDB)
// gives a SnapshotFormatError (or CodecError) naming the state and the byte offset, and the store
// refuses to open rather than return partial data.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { open } from "lmdb";
import { describe, expect, test } from "vitest";
import { checkpointHeader, encodeState, readCheckpoint, type SavedState, type StateEntries } from "../src/store/checkpoint.js";
import { LmdbStore, MemoryStore } from "../src/store/index.js";
import { V1, fill, scratch, specsOf } from "./support/store.js";

const dir = scratch("store-corruption");
const file = join(dir, "good.ckpt");
const good = MemoryStore.create(specsOf(V1));
await fill(good, V1);
good.checkpoint(file);
const BYTES = new Uint8Array(readFileSync(file));
// Layout: 9-byte header, then state "current" (2 + 7 name bytes, 1 kind, 4 length, section, 4 CRC), …
const VIEW = new DataView(BYTES.buffer);
const FIRST_SECTION = 9 + 2 + 7 + 5;
const SECOND_STATE = FIRST_SECTION + VIEW.getUint32(9 + 2 + 7 + 1) + 4;

function restoreBytes(bytes: Uint8Array): unknown {
  const f = join(dir, "bad.ckpt");
  writeFileSync(f, bytes);
  try {
    MemoryStore.restore(f, specsOf(V1));
    return undefined;
  } catch (e) {
    return e;
  }
}

describe("memory checkpoint", () => {
  test.each([
    ["empty file", 0, "CHECKPOINT_TRUNCATED", 0, "at byte 0: the file has 0 bytes, shorter than the header"],
    ["cut inside the first state's data", FIRST_SECTION + 10, "CHECKPOINT_TRUNCATED", FIRST_SECTION + 10, `, state "current" at byte ${FIRST_SECTION + 10}: the file ends inside the state`],
    ["cut between two states", SECOND_STATE, "CHECKPOINT_TRUNCATED", SECOND_STATE, "the file ends before state #2 of 3"],
    ["last byte missing", BYTES.length - 1, "CHECKPOINT_TRUNCATED", BYTES.length - 1, `, state "byDevice" at byte ${BYTES.length - 1}: the file ends inside the state`],
  ])("%s", (_what, length, code, offset, text) => {
    const e = restoreBytes(BYTES.slice(0, length)) as { name: string; code: string; offset: number; message: string };
    expect(e).toMatchObject({ name: "SnapshotFormatError", code, offset });
    expect(e.message).toContain(text);
    expect(e.message).toContain("the store did not open: restore from an intact checkpoint");
  });

  test("truncations at every header and state boundary and through the data are refused", () => {
    // Every cut in the headers and around state boundaries, and a spread through the data.
    const step = Math.max(1, Math.floor(BYTES.length / 150));
    const cuts = new Set<number>();
    for (let n = 0; n < BYTES.length; n += step) cuts.add(n);
    for (const edge of [9, FIRST_SECTION, SECOND_STATE, BYTES.length]) for (let d = -6; d <= 6; d++) if (edge + d >= 0 && edge + d < BYTES.length) cuts.add(edge + d);
    for (const n of cuts) {
      const e = restoreBytes(BYTES.slice(0, n)) as { name?: string };
      expect(e?.name, `cut at ${n}`).toBe("SnapshotFormatError");
    }
  });

  test("flipped bytes (all header bytes, a spread through the data) are refused; a flip inside a state names the state", () => {
    const step = Math.max(1, Math.floor(BYTES.length / 300));
    for (let i = 0; i < BYTES.length; i += i < 40 ? 1 : step) {
      const bad = BYTES.slice();
      bad[i] ^= 0x40;
      const e = restoreBytes(bad) as { name?: string; message?: string; offset?: number };
      expect(["SnapshotFormatError", "CodecError"], `flip at ${i}`).toContain(e?.name);
      if (i >= FIRST_SECTION && i < SECOND_STATE - 4) {
        expect(e.message).toContain(`state "current" at byte 9: the state's bytes 9..${SECOND_STATE - 4} fail their CRC-32C check`);
        expect(e.offset).toBe(9);
      }
    }
  });

  test("a state name that repeats is refused, though each copy passes its CRC", () => {
    // The first state's bytes twice (its CRC covers only itself), the header's count one more.
    const first = BYTES.subarray(9, SECOND_STATE);
    const bad = Uint8Array.from([...BYTES.subarray(0, SECOND_STATE), ...first, ...BYTES.subarray(SECOND_STATE)]);
    new DataView(bad.buffer).setUint32(5, VIEW.getUint32(5) + 1);
    const e = restoreBytes(bad) as { name: string; code: string; offset: number; message: string };
    expect(e).toMatchObject({ name: "SnapshotFormatError", code: "CHECKPOINT_CORRUPTED", offset: SECOND_STATE + 2 });
    expect(e.message).toBe(
      `invalid checkpoint ${join(dir, "bad.ckpt")}, state "current" at byte ${SECOND_STATE + 2}: state #2 of 4 repeats the name of state #1 of 4; the store did not open: restore from an intact checkpoint`,
    );
  });

  // Each state re-encoded whole (a valid CRC) with one key repeated: the later entry won silently.
  test.each([
    ["a value state's key", "current", (d: StateEntries) => d.kind === "value" && d.entries.push([d.entries[0]![0], d.entries[1]![1]]), 'the key "r1" appears twice'],
    ["a list state's key", "history", (d: StateEntries) => d.kind === "list" && d.entries.push([d.entries[0]![0], d.entries[0]![1]]), 'the key "dev" appears twice'],
    ["a map state's key", "byDevice", (d: StateEntries) => d.kind === "map" && d.entries.push([d.entries[0]![0], []]), 'the key "dev" appears twice'],
    ["a map's user key", "byDevice", (d: StateEntries) => d.kind === "map" && d.entries[0]![1].push([d.entries[0]![1][0]![0], d.entries[0]![1][1]![1]]), "the user key bytes(1) appears twice"],
  ])("%s that repeats is refused, though the state passes its CRC", (_what, state, repeat, text) => {
    const saved = readCheckpoint(BYTES, file);
    const parts = [checkpointHeader(saved.length)];
    for (const st of saved as SavedState[]) {
      if (st.name === state) expect(repeat(st.data)).toBeGreaterThan(0);
      parts.push(encodeState(st.name, st.data, st.snapshotBytes, st.snapshot.restoreSerializer()));
    }
    const e = restoreBytes(Uint8Array.from(parts.flatMap((p) => [...p]))) as { name: string; code: string; message: string };
    expect(e).toMatchObject({ name: "SnapshotFormatError", code: "CHECKPOINT_CORRUPTED" });
    expect(e.message).toMatch(new RegExp(`^invalid checkpoint .*bad\\.ckpt, state "${state}" at byte \\d+: ${text.replace(/[()]/g, "\\$&")}; the store did not open: restore from an intact checkpoint$`));
  });

  test("trailing bytes are refused", () => {
    const e = restoreBytes(Uint8Array.from([...BYTES, 0])) as { code: string; offset: number };
    expect(e).toMatchObject({ code: "CHECKPOINT_TRAILING_BYTES", offset: BYTES.length });
  });
});

describe("lmdb store", () => {
  test("a corrupted stored snapshot refuses to open, naming the state and the offset", async () => {
    const where = join(dir, "lmdb-meta");
    const s = await LmdbStore.open(where, specsOf(V1));
    await fill(s, V1);
    await s.close();
    const raw = open({ path: where, encoding: "binary", keyEncoding: "binary" });
    const metaKey = Uint8Array.from([0, 0, 0, 0, 0, 7, ...new TextEncoder().encode("history")]);
    const meta = new Uint8Array(raw.getBinary(metaKey)!);
    meta[40] ^= 1;
    raw.putSync(metaKey, meta);
    await raw.close();
    const err = await LmdbStore.open(where, specsOf(V1)).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "SnapshotFormatError", code: "SNAPSHOT_CORRUPT" });
    expect((err as Error).message).toMatch(/^lmdb store .*lmdb-meta, state "history" at byte \d+ of its metadata: invalid snapshot/);
  });

  test("a corrupted stored value fails on read with a CodecError naming the state and key", async () => {
    const where = join(dir, "lmdb-value");
    const s = await LmdbStore.open(where, specsOf(V1));
    await fill(s, V1);
    await s.close();
    const raw = open({ path: where, encoding: "binary", keyEncoding: "binary" });
    const key = Uint8Array.from([1, 0, 0, 0, 0, 7, ...new TextEncoder().encode("current"), 0, 0, 0, 0, 2, ...new TextEncoder().encode("r1")]);
    raw.putSync(key, Uint8Array.of(0x0a, 0x05, 0x01));
    await raw.close();
    const again = await LmdbStore.open(where, specsOf(V1));
    expect(() => again.state("current").get("r1")).toThrow(/^state "current", key "r1": the stored value does not decode: /);
    expect(again.state("current").get("r2")!.get("id")).toBe(2n);
    await again.close();
  });
});
