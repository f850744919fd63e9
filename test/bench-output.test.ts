// npm run bench never rewrites tracked files unless asked: a run writes under the gitignored
// bench/.results/, and the committed bench/results/latest.* change only with --update-results.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { planOutputs, updateRequested, writeOutputs } from "../bench/lib/output.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const runs = join(repo, "bench", ".results");
const committed = join(repo, "bench", "results");

describe("planOutputs", () => {
  test("a full run writes only to the ignored folder", () => {
    expect(planOutputs({ filtered: false })).toEqual({ dirs: [runs] });
  });

  test("--update-results also writes the committed results", () => {
    expect(planOutputs({ filtered: false, update: true })).toEqual({ dirs: [runs, committed] });
  });

  test("a filtered run writes nothing unless --write, and then only to the ignored folder", () => {
    expect(planOutputs({ filtered: true }).dirs).toEqual([]);
    expect(planOutputs({ filtered: true }).skipped).toMatch(/add --write/);
    expect(planOutputs({ filtered: true, write: true })).toEqual({ dirs: [runs] });
  });

  test("a filtered run may not update the committed results", () => {
    expect(() => planOutputs({ filtered: true, write: true, update: true })).toThrow("--update-results needs a full run");
  });
});

test("BENCH_UPDATE_RESULTS=1 works like --update-results", () => {
  expect(updateRequested(false, {})).toBe(false);
  expect(updateRequested(true, {})).toBe(true);
  expect(updateRequested(false, { BENCH_UPDATE_RESULTS: "1" })).toBe(true);
  expect(updateRequested(false, { BENCH_UPDATE_RESULTS: "0" })).toBe(false);
});

test("writeOutputs writes latest.json and latest.svg into each folder", () => {
  const dir = mkdtempSync(join(tmpdir(), "protokeel-bench-out-"));
  const written = writeOutputs([dir], { date: "2026-01-02T03:04:05.000Z", n: 1n }, "<svg/>");
  expect(readdirSync(dir).sort()).toEqual(["latest.json", "latest.svg"]);
  expect(written).toHaveLength(2);
  expect(JSON.parse(readFileSync(join(dir, "latest.json"), "utf8"))).toEqual({ date: "2026-01-02T03:04:05.000Z", n: "1" });
});

test("the ignored folder is gitignored and the committed results are tracked", () => {
  const ignored = execFileSync("git", ["check-ignore", "-q", "bench/.results/latest.json"], { cwd: repo, stdio: "pipe" });
  expect(ignored).toBeDefined(); // exit status 0: ignored
  const tracked = execFileSync("git", ["ls-files", "bench/results"], { cwd: repo, encoding: "utf8" }).trim().split("\n");
  // latest.* from npm run bench, store.json from npm run bench:store, pool.json from npm run
  // bench:pool, each only with --update-results.
  expect(tracked).toEqual(["bench/results/latest.json", "bench/results/latest.svg", "bench/results/pool.json", "bench/results/store.json"]);
});
