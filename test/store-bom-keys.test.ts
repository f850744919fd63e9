// Keys, user keys and state names that begin with U+FEFF survive a reopen on both backends. A
// TextDecoder strips a leading U+FEFF unless told not to (ignoreBOM): the checkpoint's state
// names and both backends' string keys were read back without it, so "\uFEFFk" came back as "k"
// (another key's slot) and a state so named restored empty.
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { LmdbStore, MemoryStore, listState, mapState, valueState } from "../src/store/index.js";
import { DRIVERS, V1, reading, scratch } from "./support/store.js";

const KEYS = ["\uFEFF", "\uFEFFk", "\uFEFF\uFEFFk", "k\uFEFF", "\uFEFF\u{1F600}"];
const NAME = "\uFEFFreadings";
const specs = () => ({ [NAME]: valueState(V1), lists: listState(V1), maps: mapState(V1) });
type Specs = ReturnType<typeof specs>;

const open = async (driver: (typeof DRIVERS)[number], at: string, fresh: boolean): Promise<{ store: MemoryStore<Specs> | LmdbStore<Specs>; close(): Promise<void> }> => {
  if (driver.name === "lmdb") {
    const store = await LmdbStore.open(at, specs());
    return { store, close: () => store.close() };
  }
  const store = fresh ? MemoryStore.create(specs()) : MemoryStore.restore(at, specs());
  return { store, close: async () => store.checkpoint(at) };
};

describe.each(DRIVERS)("$name backend", (driver) => {
  test("string keys, user keys and a state name with U+FEFF read back as written", async () => {
    const dir = scratch(`store-bom-${driver.name}`);
    const at = driver.name === "memory" ? join(dir, "s.ckpt") : dir;
    const a = await open(driver, at, true);
    for (const [i, k] of KEYS.entries()) {
      await a.store.state(NAME).put(k, reading(V1, i + 1));
      await a.store.state("lists").add(k, reading(V1, i + 1));
      await a.store.state("maps").put("m", k, reading(V1, i + 1));
    }
    // The keys the stripped ones would have been: distinct slots that must stay empty.
    await a.close();

    const b = await open(driver, at, false);
    const sorted = [...KEYS].sort();
    expect(b.store.state(NAME).keys().sort()).toEqual(sorted);
    expect(b.store.state("lists").keys().sort()).toEqual(sorted);
    expect(b.store.state("maps").entries("m").map(([k]) => k).sort()).toEqual(sorted);
    for (const [i, k] of KEYS.entries()) {
      expect(b.store.state(NAME).get(k)?.get("id")).toBe(BigInt(i + 1));
      expect(b.store.state("lists").get(k).map((v) => v.get("id"))).toEqual([BigInt(i + 1)]);
      expect(b.store.state("maps").get("m", k)?.get("id")).toBe(BigInt(i + 1));
    }
    expect(b.store.state(NAME).get("k")).toBeUndefined();
    expect(b.store.state("maps").get("m", "k")).toBeUndefined();
    await b.close();
  });
});
