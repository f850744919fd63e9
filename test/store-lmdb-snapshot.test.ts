// Issue 15, LMDB: the stored snapshot is the one of the schema that last wrote. Opening with a new
// (compatible) schema changes nothing on disk; the first write with it stores its snapshot in the
// same transaction as the value, so the old schema can no longer open the store when the change
// does not go both ways.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { open } from "lmdb";
import { expect, test } from "vitest";
import { writeSnapshot } from "../src/index.js";
import { LmdbStore } from "../src/store/index.js";
import { V1, fill, reading, readingType, scratch, specsOf } from "./support/store.js";

const V2 = readingType("field-added");
const metaKey = Uint8Array.from([0, 0, 0, 0, 0, 7, ...new TextEncoder().encode("current")]);

async function storedSnapshot(path: string): Promise<Uint8Array | undefined> {
  const raw = open({ path, encoding: "binary", keyEncoding: "binary", readOnly: true });
  const meta = raw.getBinary(metaKey);
  const out = meta === undefined ? undefined : new Uint8Array(meta.subarray(1));
  await raw.close();
  return out;
}
const snapshotOf = (t: typeof V1) => writeSnapshot(t.createSerializer().snapshotConfiguration());
const digest = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");

test("no snapshot before the first write; v1's after it; opening with v2 modifies nothing; v2's first write replaces it", async () => {
  const path = scratch("store-lmdb-snapshot");
  const a = await LmdbStore.open(path, specsOf(V1));
  await a.close();
  expect(await storedSnapshot(path)).toBeUndefined();

  const b = await LmdbStore.open(path, specsOf(V1));
  await fill(b, V1);
  await b.close();
  expect(await storedSnapshot(path)).toEqual(snapshotOf(V1));

  const before = digest(join(path, "data.mdb"));
  const c = await LmdbStore.open(path, specsOf(V2));
  expect(c.state("current").get("r1")!.descriptor).toBe(V2.descriptor);
  await c.close();
  expect(digest(join(path, "data.mdb"))).toBe(before);
  expect(await storedSnapshot(path)).toEqual(snapshotOf(V1));
  // v1 still opens: nothing was written with v2.
  await (await LmdbStore.open(path, specsOf(V1))).close();

  const d = await LmdbStore.open(path, specsOf(V2));
  await d.state("current").put("r4", reading(V2, 4, { extra: "x" }));
  await d.close();
  expect(await storedSnapshot(path)).toEqual(snapshotOf(V2));
  // v2 → v1 removes field 7 without reserving it: v1 no longer opens.
  await expect(LmdbStore.open(path, specsOf(V1))).rejects.toMatchObject({
    code: "STATE_SCHEMA_INCOMPATIBLE",
    state: "current",
    incompatibilities: [expect.objectContaining({ rule: "FIELD_REMOVED_NOT_RESERVED", path: "acme.Reading.extra(7)" })],
  });
});

test("a schema that another store instance made unreadable is refused at its first write, which writes nothing", async () => {
  const path = scratch("store-lmdb-snapshot-race");
  const a = await LmdbStore.open(path, specsOf(V1)); // empty store: opens, no snapshot yet
  const other = readingType("int32-uint32");
  const b = await LmdbStore.open(path, specsOf(other));
  await b.state("current").put("b", reading(other, 1));
  expect(await storedSnapshot(path)).toEqual(snapshotOf(other));
  expect(() => a.state("current").put("a", reading(V1, 2))).toThrow(
    expect.objectContaining({ name: "StateStoreError", code: "STATE_SCHEMA_INCOMPATIBLE", message: expect.stringMatching(/^state "current" cannot be written: its data was written with acme.Reading and the current acme.Reading cannot read it \(rules: FIELD_TYPE_CHANGED at acme.Reading.count\(2\)\); the store was not modified/), incompatibilities: [expect.objectContaining({ rule: "FIELD_TYPE_CHANGED", path: "acme.Reading.count(2)" })] }),
  );
  expect(a.state("current").get("a")).toBeUndefined();
  expect(await storedSnapshot(path)).toEqual(snapshotOf(other));
  await a.close();
  await b.close();
});

test("a transactionSync inside another is refused before it writes: lmdb ran it as part of the outer one, whose commit kept an inner one's writes after it threw", async () => {
  const s = await LmdbStore.open(scratch("store-lmdb-nested"), specsOf(V1));
  let inner: unknown;
  s.transactionSync(() => {
    void s.state("current").put("outer", reading(V1, 1));
    try {
      s.transactionSync(() => {
        void s.state("current").put("inner", reading(V1, 2));
        throw new Error("inner fails");
      });
    } catch (e) {
      inner = e;
    }
  });
  expect(inner).toMatchObject({
    name: "StateStoreError",
    code: "STATE_TRANSACTION_NESTED",
    message: "transactionSync cannot run inside another transactionSync: its writes would commit with the outer transaction even if it threw; call the inner function directly, inside the outer transaction",
  });
  expect(s.state("current").get("outer")!.get("id")).toBe(1n);
  expect(s.state("current").get("inner")).toBeUndefined();
  // Not nested any more once the outer one is done.
  s.transactionSync(() => void s.state("current").put("after", reading(V1, 3)));
  expect(s.state("current").get("after")!.get("id")).toBe(3n);
  await s.close();
});

test("a transaction that throws writes neither its values nor the snapshot, and the next write stores the snapshot", async () => {
  const path = scratch("store-lmdb-snapshot-abort");
  const s = await LmdbStore.open(path, specsOf(V1));
  expect(() =>
    s.transactionSync(() => {
      void s.state("current").put("a", reading(V1, 1));
      void s.state("history").add("h", reading(V1, 2));
      throw new Error("abort");
    }),
  ).toThrow("abort");
  expect(s.state("current").get("a")).toBeUndefined();
  expect(s.state("history").get("h")).toEqual([]);
  expect(await storedSnapshot(path)).toBeUndefined();
  await s.state("current").put("b", reading(V1, 3));
  expect(await storedSnapshot(path)).toEqual(snapshotOf(V1));
  await s.close();
});
