// `npm run bench:store` (bench/store.mjs) runs end to end on a few operations and reports ops/s
// and ratios for every side; the numbers themselves are not checked (no timed assertions).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");

test("bench/store.mjs measures store, protobufjs-direct and protokeel-direct puts and gets", () => {
  const out = execFileSync(process.execPath, ["bench/store.mjs", "--ops", "20", "--rounds", "1"], { cwd: repo, encoding: "utf8" });
  expect(out).toMatch(/^protokeel\/store on LMDB vs protobufjs bytes into LMDB directly: span batch \(OpenTelemetry-like\), \d+ bytes, 20 ops × 1 rounds \(median\)$/m);
  const result = JSON.parse(readFileSync(join(repo, "bench", ".results", "store.json"), "utf8"));
  expect(Object.keys(result.opsPerSecond).sort()).toEqual(["bare get", "bare put", "direct get", "direct put", "store get", "store put"]);
  for (const v of Object.values(result.opsPerSecond)) expect(v).toBeGreaterThan(0);
  expect(Object.keys(result.ratio)).toEqual(["put", "get"]);
  expect(Object.keys(result.layerRatio)).toEqual(["put", "get"]);
}, 120_000);
