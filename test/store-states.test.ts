// The three state kinds on both backends: value, map and list state with string and Uint8Array
// keys (never confused with each other), survive a close/reopen (memory: checkpoint/restore), and
// the store's usage errors.
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { DynamicMessage } from "../src/index.js";
import { LmdbStore, MemoryStore, valueState } from "../src/store/index.js";
import { DRIVERS, V1, reading, readingType, scratch, specsOf } from "./support/store.js";

const ids = (vs: (DynamicMessage | undefined)[]) => vs.map((v) => v?.get("id"));

describe.each(DRIVERS)("$name backend", (driver) => {
  const where = () => {
    const dir = scratch(`store-states-${driver.name}`);
    return driver.name === "memory" ? join(dir, "s.ckpt") : dir;
  };

  test("value, map and list state with string and bytes keys, across a reopen", async () => {
    const at = where();
    const a = await driver.open(at, specsOf(V1), { fresh: true });
    const s = a.store;
    await s.state("current").put("a", reading(V1, 1));
    await s.state("current").put(Uint8Array.of(0x61), reading(V1, 2));
    await s.state("current").put("gone", reading(V1, 3));
    await s.state("current").delete("gone");
    for (const id of [5, 4, 6]) await s.state("history").add("dev", reading(V1, id));
    await s.state("history").add(Uint8Array.of(1, 2), reading(V1, 7));
    await s.state("byDevice").put("dev", "x", reading(V1, 8));
    await s.state("byDevice").put("dev", Uint8Array.of(0x78), reading(V1, 9));
    await s.state("byDevice").put("dev", "y", reading(V1, 10));
    await s.state("byDevice").delete("dev", "y");
    await s.state("byDevice").put("other", "z", reading(V1, 11));
    await s.state("byDevice").clear("other");
    await a.close();

    const b = await driver.open(at, specsOf(V1));
    const t = b.store;
    expect(ids([t.state("current").get("a"), t.state("current").get(Uint8Array.of(0x61)), t.state("current").get("gone")])).toEqual([1n, 2n, undefined]);
    const label = (k: unknown) => (typeof k === "string" ? `string ${k}` : `${Object.getPrototypeOf(k).constructor.name} ${[...(k as Uint8Array)]}`);
    expect(t.state("current").keys().map(label).sort()).toEqual(["Uint8Array 97", "string a"]);
    expect(ids(t.state("history").get("dev"))).toEqual([5n, 4n, 6n]);
    expect(ids(t.state("history").get(Uint8Array.of(1, 2)))).toEqual([7n]);
    expect(t.state("history").get("nobody")).toEqual([]);
    const entries = t.state("byDevice").entries("dev");
    expect(entries.map(([k, v]) => [k, v.get("id")]).sort((x, y) => Number(x[1]) - Number(y[1]))).toEqual([
      ["x", 8n],
      [Uint8Array.of(0x78), 9n],
    ]);
    expect(t.state("byDevice").get("dev", "x")!.get("id")).toBe(8n);
    expect(t.state("byDevice").get("dev", "y")).toBeUndefined();
    expect(t.state("byDevice").keys()).toEqual(["dev"]);
    expect(t.state("history").keys().length).toBe(2);
    await t.state("history").clear("dev");
    expect(t.state("history").get("dev")).toEqual([]);
    await b.close();
  });

  test.each([
    ["a number key", (s: MemoryStore<ReturnType<typeof specsOf>>) => s.state("current").get(7 as never), "STATE_KEY_INVALID", 'state "current": a key must be a string or a Uint8Array, got number'],
    ["a null user key", (s: MemoryStore<ReturnType<typeof specsOf>>) => s.state("byDevice").get("k", null as never), "STATE_KEY_INVALID", 'state "byDevice": a user key must be a string or a Uint8Array, got null'],
    ["a plain object value", (s: MemoryStore<ReturnType<typeof specsOf>>) => s.state("current").put("k", { id: 1n } as never), "STATE_VALUE_INVALID", 'state "current": a value must be a DynamicMessage, got object; build it with DynamicMessage.create(type.descriptor, init)'],
    ["an undeclared state", (s: MemoryStore<ReturnType<typeof specsOf>>) => s.state("nope" as never), "STATE_NOT_DECLARED", /^state "nope" is not declared: pass it in the states of (MemoryStore.create\/restore|LmdbStore.open)$/],
    // Stored as UTF-8, where every lone surrogate is U+FFFD: "\uD800" and "\uDC00" were one key on
    // disk (LMDB overwrote one with the other), two in memory (whose checkpoint never restored).
    ...["\uD800", "a\uDC00", "\uDBFFb"].flatMap((k): [string, (s: MemoryStore<ReturnType<typeof specsOf>>) => unknown, string, string][] => [
      [`a key ${JSON.stringify(k)} with a lone surrogate, at put`, (s) => s.state("current").put(k, reading(V1, 1)), "STATE_KEY_INVALID", 'state "current": a string key must be well-formed (it has a lone surrogate, which UTF-8 cannot hold); use a well-formed string, or a Uint8Array for arbitrary bytes'],
      [`a key ${JSON.stringify(k)} with a lone surrogate, at get`, (s) => s.state("history").get(k), "STATE_KEY_INVALID", 'state "history": a string key must be well-formed (it has a lone surrogate, which UTF-8 cannot hold); use a well-formed string, or a Uint8Array for arbitrary bytes'],
      [`a user key ${JSON.stringify(k)} with a lone surrogate`, (s) => s.state("byDevice").put("dev", k, reading(V1, 1)), "STATE_KEY_INVALID", 'state "byDevice": a string user key must be well-formed (it has a lone surrogate, which UTF-8 cannot hold); use a well-formed string, or a Uint8Array for arbitrary bytes'],
    ]),
  ])("%s is a StateStoreError", async (_what, use, code, message) => {
    const opened = await driver.open(where(), specsOf(V1), { fresh: true });
    expect(() => use(opened.store as never)).toThrow(expect.objectContaining({ name: "StateStoreError", code, message: typeof message === "string" ? message : expect.stringMatching(message) }));
    if (driver.name === "lmdb") await opened.close();
  });
});

describe.each(DRIVERS)("$name backend", (driver) => {
  // The memory store kept such a value, and every checkpoint after it failed until the key was
  // deleted: it is refused at put and add now, as LMDB (which stores the bytes) refuses it.
  test("a value of another schema that write acceptance refuses is a CodecError at put and add, and nothing is kept", async () => {
    const dir = scratch(`store-states-accept-${driver.name}`);
    const at = driver.name === "memory" ? join(dir, "s.ckpt") : dir;
    const opened = await driver.open(at, specsOf(V1), { fresh: true });
    const s = opened.store;
    await s.state("current").put("k", reading(V1, 1));
    const bad = reading(readingType("int32-uint32"), 2);
    const refused = (key: string) => expect.objectContaining({ name: "CodecError", code: "INCOMPATIBLE_VALUE_DESCRIPTOR", message: expect.stringMatching(new RegExp(`^state "\\w+", key "${key}": .*FIELD_TYPE_CHANGED.*; nothing was written$`)) });
    expect(() => s.state("current").put("bad", bad)).toThrow(refused("bad"));
    expect(() => s.state("byDevice").put("dev", "bad", bad)).toThrow(refused("dev"));
    expect(() => s.state("history").add("dev", bad)).toThrow(refused("dev"));
    expect([s.state("current").keys(), s.state("byDevice").keys(), s.state("history").keys()]).toEqual([["k"], [], []]);
    await opened.close();
    const again = await driver.open(at, specsOf(V1));
    expect(again.store.state("current").keys()).toEqual(["k"]);
    if (driver.name === "lmdb") await again.close();
  });

  test("a value over the state type's maxMessageBytes is refused at put with its exact size", async () => {
    const dir = scratch(`store-states-size-${driver.name}`);
    const small = readingType("v1", { maxMessageBytes: 40 });
    const opened = await driver.open(driver.name === "memory" ? join(dir, "s.ckpt") : dir, specsOf(small), { fresh: true });
    const big = reading(small, 1, { note: "n".repeat(64) });
    expect(() => opened.store.state("current").put("k", big)).toThrow(
      expect.objectContaining({ name: "CodecError", code: "MESSAGE_TOO_LARGE", message: expect.stringMatching(/^state "current", key "k": .*exceeds maxMessageBytes 40.*; nothing was written$/) }),
    );
    expect(opened.store.state("current").keys()).toEqual([]);
    await opened.close();
  });
});

test("memory: a saved state the application no longer declares is carried to the next checkpoint unchanged", async () => {
  const file = join(scratch("store-states-carry"), "s.ckpt");
  const store = MemoryStore.create(specsOf(V1));
  await store.state("history").add("d", reading(V1, 4));
  store.checkpoint(file);
  const fewer = MemoryStore.restore(file, { current: valueState(V1) });
  expect(fewer.stateNames().sort()).toEqual(["byDevice", "current", "history"]);
  fewer.checkpoint(file);
  expect(MemoryStore.restore(file, specsOf(V1)).state("history").get("d")[0]!.get("id")).toBe(4n);
});

test("lmdb: a key over LMDB's key limit is a StateStoreError, not lmdb's own error", async () => {
  const { LmdbStore } = await import("../src/store/index.js");
  const store = await LmdbStore.open(scratch("store-states-long-key"), specsOf(V1));
  const long = "k".repeat(2000);
  expect(() => store.state("current").get(long)).toThrow(
    expect.objectContaining({ name: "StateStoreError", code: "STATE_KEY_TOO_LONG", message: `state "current": the key takes 2018 bytes with the state's prefix, over LMDB's limit of 1974 for this state; use a shorter key (or a hash of it)` }),
  );
  await store.state("current").put("k".repeat(1900), reading(V1, 1));
  expect(store.state("current").get("k".repeat(1900))!.get("id")).toBe(1n);
  await store.close();
});

test.each(["\uD800", "x\uDC00"])("a state name %j with a lone surrogate is STATE_NAME_INVALID on both backends", async (name) => {
  const message = `state name ${JSON.stringify(name)} is invalid: it has a lone surrogate, which UTF-8 cannot hold; use a well-formed string`;
  expect(() => MemoryStore.create({ [name]: valueState(V1) })).toThrow(expect.objectContaining({ code: "STATE_NAME_INVALID", message }));
  await expect(LmdbStore.open(scratch("store-states-name"), { [name]: valueState(V1) })).rejects.toMatchObject({ code: "STATE_NAME_INVALID", message });
  // Well-formed names and keys outside the BMP are kept as they are.
  const s = MemoryStore.create({ "\u{1F600}": valueState(V1) });
  s.state("\u{1F600}").put("\u{1F600}", reading(V1, 1));
  expect(s.state("\u{1F600}").get("\u{1F600}")!.get("id")).toBe(1n);
});

test("memory: restoring from a missing file is a StateStoreError", () => {
  const file = join(scratch("store-states-missing"), "none.ckpt");
  expect(() => MemoryStore.restore(file, specsOf(V1))).toThrow(
    expect.objectContaining({ name: "StateStoreError", code: "CHECKPOINT_NOT_FOUND", message: `no checkpoint at ${file}: start with MemoryStore.create(states), or pass the path that checkpoint(path) wrote` }),
  );
});

test("memory: restoring from a path that is not a readable file is a StateStoreError", () => {
  // A directory (EISDIR) was a plain Node Error: only a missing file was typed.
  const dir = scratch("store-states-dir");
  expect(() => MemoryStore.restore(dir, specsOf(V1))).toThrow(
    expect.objectContaining({
      name: "StateStoreError",
      code: "CHECKPOINT_UNREADABLE",
      message: `checkpoint ${dir} cannot be read (EISDIR): pass the path of a checkpoint file that this process can read`,
    }),
  );
});
