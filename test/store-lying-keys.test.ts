// A bytes key whose `length` says more than it holds (a subclass's getter): LMDB stored it with
// zeros after it, another key than the memory backend's, and a get with the plain key missed.
// Both backends now key it by the bytes it holds.
import { join } from "node:path";
import { expect, test } from "vitest";
import { LmdbStore, MemoryStore } from "../src/store/index.js";
import { reading, scratch, specsOf, V1 } from "./support/store.js";

class ClaimsMore extends Uint8Array {
  override get length(): number {
    return 8;
  }
}

test.each(["memory", "lmdb"])("the %s backend keys a lying-length key by its bytes", async (backend) => {
  const specs = specsOf(V1);
  const store = backend === "memory" ? MemoryStore.create(specs) : await LmdbStore.open(join(scratch("store-lying-keys"), "db"), specs, { noSync: true });
  const state = store.state("current");
  await state.put(new ClaimsMore([65, 66, 67]), reading(V1, 1));
  expect(state.get(Uint8Array.of(65, 66, 67))?.get("id")).toBe(1n);
  expect(state.get(Uint8Array.of(65, 66, 67, 0, 0, 0, 0, 0))).toBeUndefined();
  if (store instanceof LmdbStore) await store.close();
});
