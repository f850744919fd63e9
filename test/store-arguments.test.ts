// Store paths and options are checked before they reach the file system or lmdb: lmdb maps
// `mapSize` bytes at once, and -1, 1e30 or 2^48 killed the process (SIGSEGV) with nothing to catch.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { LmdbStore, MemoryStore } from "../src/store/index.js";
import { StateStoreError } from "../src/index.js";
import { scratch, specsOf, V1 } from "./support/store.js";

const range = (got: string) => `mapSize of LmdbStore.open must be an integer number of bytes in 1..17592186044416 (16 TiB), got ${got}`;

test.each([
  [{ mapSize: -1 }, RangeError, range("-1")],
  [{ mapSize: 0 }, RangeError, range("0")],
  [{ mapSize: 1.5 }, RangeError, range("1.5")],
  [{ mapSize: Number.NaN }, RangeError, range("NaN")],
  [{ mapSize: 2 ** 48 }, RangeError, range("281474976710656")],
  [{ mapSize: 1e30 }, RangeError, range("1e+30")],
  [{ mapSize: "1048576" }, RangeError, range("1048576")],
  [{ noSync: "yes" }, TypeError, "noSync of LmdbStore.open must be a boolean, got string"],
  [null, TypeError, "options of LmdbStore.open must be an object ({ mapSize?, noSync? }), got null"],
])("%o is refused before lmdb opens", async (options, kind, message) => {
  const dir = scratch("store-lmdb-options");
  const e = await LmdbStore.open(join(dir, "db"), specsOf(V1), options as never).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(kind);
  expect((e as Error).message).toBe(message);
});

test("a mapSize in range opens", async () => {
  const store = await LmdbStore.open(join(scratch("store-lmdb-options"), "db"), specsOf(V1), { mapSize: 2 ** 24, noSync: true });
  await store.close();
});

// A number was taken for a file descriptor: MemoryStore.restore(5) read fd 5.
test.each([
  ["MemoryStore.restore", () => MemoryStore.restore(5 as never, specsOf(V1)), "number"],
  ["MemoryStore.restore", () => MemoryStore.restore("" as never, specsOf(V1)), "an empty string"],
  ["store.checkpoint", () => MemoryStore.create(specsOf(V1)).checkpoint(undefined as never), "undefined"],
])("%s of a path that is not a non-empty string is a TypeError", (api, run, got) => {
  expect(run).toThrow(new TypeError(`the path of ${api} must be a non-empty string, got ${got}`));
  expect(run).toThrow(TypeError);
});

test("LmdbStore.open of a path that is not a string is a TypeError", async () => {
  const e = await LmdbStore.open(7 as never, specsOf(V1)).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(TypeError);
  expect((e as Error).message).toBe("the path of LmdbStore.open must be a non-empty string, got number");
});

// lmdb's own Error came out as it was (MDB_READERS_FULL after ~126 stores of a path left open).
test("a path lmdb cannot open is STORE_OPEN_FAILED with lmdb's error as the cause", async () => {
  const file = join(scratch("store-lmdb-options"), "a-file");
  writeFileSync(file, "not a directory");
  const e = await LmdbStore.open(join(file, "db"), specsOf(V1)).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(StateStoreError);
  expect(e).toMatchObject({ code: "STORE_OPEN_FAILED", message: expect.stringMatching(/^lmdb store .*a-file\/db did not open: .+; check the path and its permissions$/) });
  expect((e as Error).cause).toBeInstanceOf(Error);
});
