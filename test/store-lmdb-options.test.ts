// LmdbStore.open's options are checked before lmdb sees them: lmdb maps `mapSize` bytes at once,
// and -1, 1e30 or 2^48 killed the process (SIGSEGV) with nothing to catch.
import { join } from "node:path";
import { expect, test } from "vitest";
import { LmdbStore } from "../src/store/index.js";
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
