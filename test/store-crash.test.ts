// Issue 15, failure safety: a process killed (SIGKILL) at a random moment during a checkpoint
// (memory) or a write transaction (LMDB) leaves the previous state readable and complete: every
// value of one generation, never a mix, never a partial file. The child runs the built package
// (dist/: `npm run build` first).
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { LmdbStore, MemoryStore, valueState } from "../src/store/index.js";
import { V1, scratch } from "./support/store.js";

const child = join(dirname(fileURLToPath(import.meta.url)), "support", "store-crash-child.mjs");
const COUNT = 4000;
const ROUNDS = 4;

/** Starts the child, waits for `after` completed generations, then kills it `delay` ms later. */
function runAndKill(args: string[], after: number, delay: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let armed = false;
    p.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const done = out.trim().split("\n").length;
      if (!armed && done >= after) {
        armed = true;
        setTimeout(() => p.kill("SIGKILL"), delay);
      }
    });
    p.stderr.on("data", (d: Buffer) => (err += d.toString()));
    p.on("exit", (code, signal) => {
      if (signal !== "SIGKILL") reject(new Error(`child exited with ${code}: ${err}`));
      else resolve(Number(out.trim().split("\n").at(-1)));
    });
  });
}

function checkOneGeneration(values: { get(name: string): unknown }[], lastReported: number): void {
  expect(values).toHaveLength(COUNT);
  const generations = new Set(values.map((v) => v.get("score")));
  expect(generations.size).toBe(1);
  const g = [...generations][0] as number;
  // The generation that was being written when the process died may or may not have completed.
  expect([lastReported, lastReported + 1]).toContain(g);
  values.forEach((v, i) => expect(v.get("note")).toBe(`generation ${g} of value ${i}`));
}

const typeFile = join(scratch("store-crash-type"), "type.bin");
writeFileSync(typeFile, V1.toBytes());

test.each([...Array(ROUNDS).keys()])("memory: killed during checkpoint round %i, the previous checkpoint is complete", async (round) => {
  const dir = scratch("store-crash-mem");
  const file = join(dir, "state.ckpt");
  const last = await runAndKill(["memory", file, typeFile, String(COUNT)], 1 + (round % 2), Math.floor(Math.random() * 60));
  const store = MemoryStore.restore(file, { current: valueState(V1) });
  const values = [...Array(COUNT).keys()].map((i) => store.state("current").get(`k${i}`)!);
  checkOneGeneration(values, last);
}, 30_000);

test.each([...Array(ROUNDS).keys()])("lmdb: killed during a write transaction round %i, the last committed generation is complete", async (round) => {
  const dir = scratch("store-crash-lmdb");
  const last = await runAndKill(["lmdb", dir, typeFile, String(COUNT)], 1 + (round % 2), Math.floor(Math.random() * 60));
  const store = await LmdbStore.open(dir, { current: valueState(V1) });
  const values = [...Array(COUNT).keys()].map((i) => store.state("current").get(`k${i}`)!);
  checkOneGeneration(values, last);
  await store.close();
}, 30_000);
