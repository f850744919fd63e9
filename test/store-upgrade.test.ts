// Issue 15, verification 1: restore after a supported schema change (field added, field removed
// with its number reserved, int32 → int64, enum → int32, optional added) for value, map and list
// state on both backends, and the descriptor restored values carry before and after a second
// restore. Memory: values keep the saved descriptor until the next checkpoint writes them with the
// current serializer. LMDB: values are read with the current serializer.
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { DRIVERS, V1, everything, fill, readingType, scratch, specsOf } from "./support/store.js";

const V1_FIELDS = ["id", "count", "level", "note", "score", "tag"];

/** variant → [field names of the variant, how v1's value of id n reads under the variant]. */
const SUPPORTED: [string, string[], (n: number) => Record<string, unknown>][] = [
  ["field-added", [...V1_FIELDS, "extra"], (n) => ({ ...v1Object(n), extra: "" })],
  ["field-removed-reserved", ["id", "count", "level", "score", "tag"], (n) => withoutNote(v1Object(n))],
  ["int32-int64", V1_FIELDS, (n) => ({ ...v1Object(n), count: BigInt(n * 10) })],
  ["enum-int32", V1_FIELDS, (n) => v1Object(n)],
  ["optional-added", V1_FIELDS, (n) => v1Object(n)],
];

function v1Object(n: number): Record<string, unknown> {
  return { id: BigInt(n), count: n * 10, level: 1, note: `n${n}`, score: n, tag: `t${n}` };
}
function withoutNote(o: Record<string, unknown>): Record<string, unknown> {
  const { note: _note, ...rest } = o;
  return rest;
}
const ORDER = [1, 2, 3, 1, 2, 3, 1, 2, 3]; // value state, list state, map state

describe.each(SUPPORTED)("supported change %s", (variant, fields, expected) => {
  const V2 = readingType(variant);

  test("memory: restored values keep the saved descriptor until the next checkpoint, then carry the current schema", async () => {
    const dir = scratch("store-upgrade-mem");
    const file = join(dir, "state.ckpt");
    const { MemoryStore } = await import("../src/store/index.js");
    const first = MemoryStore.create(specsOf(V1));
    await fill(first, V1);
    first.checkpoint(file);

    // First restore with the current (v2) type: values decoded by the saved serializer.
    const restored = MemoryStore.restore(file, specsOf(V2));
    const before = everything(restored);
    expect(before).toHaveLength(9);
    for (const v of before) {
      expect(v.descriptor.fields.map((f) => f.name)).toEqual(V1_FIELDS);
      expect(v.descriptor).not.toBe(V1.descriptor);
      expect(v.descriptor).not.toBe(V2.descriptor);
    }
    expect(before.map((v) => v.toObject())).toEqual(ORDER.map(v1Object));

    // The next checkpoint writes them with the current serializer (write acceptance).
    restored.checkpoint(file);
    const again = MemoryStore.restore(file, specsOf(V2));
    const after = everything(again);
    for (const v of after) expect(v.descriptor.fields.map((f) => f.name)).toEqual(fields);
    expect(after.map((v) => v.toObject())).toEqual(ORDER.map(expected));
  });

  test("lmdb: compatibility is resolved at open, values are read with the current schema, writes replace the snapshot", async () => {
    const dir = scratch("store-upgrade-lmdb");
    const { LmdbStore } = await import("../src/store/index.js");
    const first = await LmdbStore.open(dir, specsOf(V1));
    await fill(first, V1);
    await first.close();

    const second = await LmdbStore.open(dir, specsOf(V2));
    const values = everything(second);
    for (const v of values) expect(v.descriptor).toBe(V2.descriptor);
    expect(values.map((v) => v.toObject())).toEqual(ORDER.map(expected));
    // A write with v2 replaces the stored snapshot: v1 can no longer open the store if v2 → v1 is unsupported.
    await second.state("current").put("r9", values[0]!);
    await second.close();

    const third = await LmdbStore.open(dir, specsOf(V2));
    for (const v of everything(third)) expect(v.descriptor).toBe(V2.descriptor);
    expect(third.state("current").get("r9")!.toObject()).toEqual(expected(1));
    await third.close();
  });
});

test.each(DRIVERS)("%s: an unchanged schema reopens with the same values", async (driver) => {
  const dir = scratch(`store-same-${driver.name}`);
  const where = driver.name === "memory" ? join(dir, "s.ckpt") : dir;
  const a = await driver.open(where, specsOf(V1), { fresh: true });
  await fill(a.store, V1);
  await a.close();
  const b = await driver.open(where, specsOf(readingType("v1")));
  expect(everything(b.store).map((v) => v.toObject())).toEqual(ORDER.map(v1Object));
  await b.close();
});
