// Run by test/store-multiprocess.test.ts: processes and worker threads sharing one LMDB store.
// The type arrives as ProtobufType.toBytes() (a file for processes, a message for workers).
//   node store-multi-child.mjs writer PATH TYPE_FILE GENERATIONS KEYS
//     writes every key in one transaction per generation (score = generation), then exits
//   node store-multi-child.mjs reader PATH TYPE_FILE GENERATIONS KEYS
//     reads every key until all show the last generation; checks each key's generation never
//     goes back; prints {reads, distinct, monotonic, final}
//   as a worker: workerData { path, typeBytes, id, keys }: writes id's keys, reads them back with
//     its own type, posts {id, written, read}
import { readFileSync } from "node:fs";
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { DynamicMessage, ProtobufType } from "../../dist/index.js";
import { LmdbStore, valueState } from "../../dist/store/index.js";

const tick = () => new Promise((r) => setImmediate(r));

if (!isMainThread) {
  const { path, typeBytes, id, keys } = workerData;
  const type = ProtobufType.fromBytes(typeBytes);
  const store = await LmdbStore.open(path, { current: valueState(type) });
  const state = store.state("current");
  for (let i = 0; i < keys; i++) await state.put(`w${id}-k${i}`, DynamicMessage.create(type.descriptor, { id: BigInt(i), note: `worker ${id}` }));
  const read = [];
  for (let i = 0; i < keys; i++) read.push(state.get(`w${id}-k${i}`)?.get("note"));
  await store.close();
  parentPort.postMessage({ id, written: keys, read: read.filter((n) => n === `worker ${id}`).length });
} else {
  const [role, path, typeFile, generationsText, keysText] = process.argv.slice(2);
  const type = ProtobufType.fromBytes(new Uint8Array(readFileSync(typeFile)));
  const generations = Number(generationsText);
  const keys = Number(keysText);
  const store = await LmdbStore.open(path, { current: valueState(type) });
  const state = store.state("current");
  if (role === "writer") {
    for (let g = 1; g <= generations; g++) {
      store.transactionSync(() => {
        for (let i = 0; i < keys; i++) state.put(`k${i}`, DynamicMessage.create(type.descriptor, { id: BigInt(i), score: g }));
      });
      await new Promise((r) => setTimeout(r, 2));
    }
    await store.close();
  } else {
    process.stdout.write("ready\n");
    const last = new Array(keys).fill(0);
    const seen = new Set();
    let reads = 0;
    let monotonic = true;
    const deadline = Date.now() + 60_000;
    while (last.some((g) => g < generations) && Date.now() < deadline) {
      for (let i = 0; i < keys; i++) {
        const v = state.get(`k${i}`);
        reads++;
        const g = v === undefined ? 0 : v.get("score");
        if (g < last[i]) monotonic = false;
        last[i] = g;
        seen.add(g);
      }
      await tick();
    }
    await store.close();
    process.stdout.write(JSON.stringify({ reads, distinct: seen.size, monotonic, final: Math.min(...last) }));
  }
}
