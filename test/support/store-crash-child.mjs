// Run by test/store-crash.test.ts in its own Node process, which the test kills (SIGKILL) at a
// random moment. It rewrites every value of one value state in generation after generation: a
// memory store checkpoints each generation, an LMDB store writes each in one transaction. After
// each completed generation it prints the generation number.
// Usage: node store-crash-child.mjs memory|lmdb PATH TYPE_FILE COUNT
import { readFileSync } from "node:fs";
import { DynamicMessage, ProtobufType } from "../../dist/index.js";
import { LmdbStore, MemoryStore, valueState } from "../../dist/store/index.js";

const [backend, path, typeFile, countText] = process.argv.slice(2);
const type = ProtobufType.fromBytes(new Uint8Array(readFileSync(typeFile)));
const count = Number(countText);
const specs = { current: valueState(type) };
const value = (i, g) => DynamicMessage.create(type.descriptor, { id: BigInt(i), score: g, note: `generation ${g} of value ${i}` });

if (backend === "memory") {
  const store = MemoryStore.create(specs);
  for (let g = 1; ; g++) {
    for (let i = 0; i < count; i++) store.state("current").put(`k${i}`, value(i, g));
    store.checkpoint(path);
    process.stdout.write(`${g}\n`);
  }
} else {
  const store = await LmdbStore.open(path, specs);
  for (let g = 1; ; g++) {
    store.transactionSync(() => {
      for (let i = 0; i < count; i++) store.state("current").put(`k${i}`, value(i, g));
    });
    process.stdout.write(`${g}\n`);
    await new Promise((r) => setImmediate(r));
  }
}
