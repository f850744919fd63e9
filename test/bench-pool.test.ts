// `npm run bench:pool` (bench/pool.mjs) runs end to end on a few frames and prints every row: one
// thread, and pools of 1, 2 and N workers in each result form. The numbers themselves are not
// checked (no timed assertions).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");

test("bench/pool.mjs measures one thread and pools of 1, 2 and N workers, and prints every row", () => {
  const out = execFileSync(process.execPath, ["bench/pool.mjs", "--frames", "8", "--batches", "1", "--rounds", "1"], { cwd: repo, encoding: "utf8" });
  const n = availableParallelism();
  const sizes = [...new Set([1, 2, n, 2 * n])].sort((a, b) => a - b);
  const sides = ["one thread, values", "one thread, objects", ...sizes.flatMap((k) => [`pool ×${k}, objects`, `pool ×${k}, messages`, `pool ×${k}, messages read`])];
  expect(out).toMatch(/^protokeel\/pool vs one thread: span batch \(OpenTelemetry-like\), \d+ bytes a frame, 8 frames a batch × 1 batches \(2 in flight\) × 1 rounds \(median\), \d+ cores$/m);
  for (const side of sides) expect(out).toMatch(new RegExp(`^  ${side.replace(/[()×]/g, "\\$&")} +\\d+ +\\d+\\.\\d\\d× +(?:\\d+\\.\\d\\d|-) +\\d+\\.\\d$`, "m"));
  const result = JSON.parse(readFileSync(join(repo, "bench", ".results", "pool.json"), "utf8"));
  expect(result.rows.map((r: { side: string }) => r.side)).toEqual(sides);
  for (const r of result.rows) expect(r.framesPerSecond).toBeGreaterThan(0);
}, 300_000);
