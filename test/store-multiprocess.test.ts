// Issue 15, many processes: two Node processes read one LMDB store while a third writes, and
// worker threads share a store, each building its type from ProtobufType.toBytes(). The children
// run the built package (dist/: `npm run build` first).
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { expect, test } from "vitest";
import { LmdbStore, valueState } from "../src/store/index.js";
import { V1, reading, scratch } from "./support/store.js";

const child = join(dirname(fileURLToPath(import.meta.url)), "support", "store-multi-child.mjs");
const GENERATIONS = 150;
const KEYS = 20;

/** A child process: `ready` once it printed "ready" (readers, after opening), `done` with its last line. */
function run(args: string[]): { ready: Promise<void>; done: Promise<string> } {
  let ready!: () => void;
  const readyP = new Promise<void>((r) => (ready = r));
  const done = new Promise<string>((resolve, reject) => {
    const p = spawn(process.execPath, [child, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.startsWith("ready\n")) ready();
    });
    p.stderr.on("data", (d: Buffer) => (err += d.toString()));
    p.on("exit", (code) => (code === 0 ? resolve(out.trim().split("\n").at(-1)!) : reject(new Error(`${args[0]} exited ${code}: ${err}`))));
  });
  return { ready: readyP, done };
}

test("two reader processes see one writer process's committed generations, in order, to the last", async () => {
  const dir = scratch("store-multi");
  const typeFile = join(dir, "type.bin");
  writeFileSync(typeFile, V1.toBytes());
  const path = join(dir, "db");
  // Create the store and its snapshot first, so that the readers open a store with the state.
  const first = await LmdbStore.open(path, { current: valueState(V1) });
  await first.state("current").put("k0", reading(V1, 0, { score: 0 }));
  await first.close();
  const args = [path, typeFile, String(GENERATIONS), String(KEYS)];
  const readers = [run(["reader", ...args]), run(["reader", ...args])];
  await Promise.all(readers.map((r) => r.ready));
  const writer = run(["writer", ...args]);
  const [r1, r2] = await Promise.all([...readers.map((r) => r.done), writer.done]);
  for (const out of [r1!, r2!]) {
    const result = JSON.parse(out) as { reads: number; distinct: number; monotonic: boolean; final: number };
    expect(result.monotonic).toBe(true);
    expect(result.final).toBe(GENERATIONS);
    // The readers ran while the writer wrote: they saw generations before the last.
    expect(result.distinct).toBeGreaterThan(1);
  }
  const after = await LmdbStore.open(path, { current: valueState(V1) });
  for (let i = 0; i < KEYS; i++) expect(after.state("current").get(`k${i}`)!.get("score")).toBe(GENERATIONS);
  await after.close();
}, 90_000);

test("worker threads share a store through ProtobufType.toBytes()", async () => {
  const path = join(scratch("store-workers"), "db");
  const typeBytes = V1.toBytes();
  const results = await Promise.all(
    [1, 2, 3].map(
      (id) =>
        new Promise<{ id: number; written: number; read: number }>((resolve, reject) => {
          const w = new Worker(child, { workerData: { path, typeBytes, id, keys: 50 } });
          w.once("message", resolve);
          w.once("error", reject);
        }),
    ),
  );
  expect(results.sort((a, b) => a.id - b.id)).toEqual([1, 2, 3].map((id) => ({ id, written: 50, read: 50 })));
  const store = await LmdbStore.open(path, { current: valueState(V1) });
  expect(store.state("current").keys()).toHaveLength(150);
  expect(store.state("current").get("w2-k49")!.get("note")).toBe("worker 2");
  expect(store.state("current").get("w2-k49")!.descriptor).toBe(V1.descriptor);
  await store.close();
}, 60_000);
