// Where a bench run writes its results. By default a run writes only under the gitignored
// bench/.results/ (latest.json, latest.svg and a dated copy of the JSON, so consecutive runs can be
// compared), and never changes a tracked file. The committed bench/results/latest.* (what the
// README shows) change only on request: --update-results or BENCH_UPDATE_RESULTS=1, full runs only.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { RESULTS_DIR, ROOT_DIR, RUNS_DIR } from "./paths.mjs";

/**
 * What a run writes: { dirs, skipped } where dirs are the folders that get latest.json/latest.svg.
 * A filtered run writes nothing unless asked (--write), and may never update the committed results.
 */
export function planOutputs({ filtered, write = false, update = false }) {
  if (update && filtered) {
    throw new Error("--update-results needs a full run: the committed results must cover every case (drop --filter/BENCH_FILTER)");
  }
  if (filtered && !write) return { dirs: [], skipped: "filtered run: results not written (add --write to write them to bench/.results/)" };
  return { dirs: update ? [RUNS_DIR, RESULTS_DIR] : [RUNS_DIR] };
}

/** The update flag from the command line or the environment. */
export function updateRequested(flag, env = process.env) {
  return flag === true || env.BENCH_UPDATE_RESULTS === "1" || env.BENCH_UPDATE_RESULTS === "true";
}

/** Writes the record's JSON and SVG into each planned folder; returns the files written. */
export function writeOutputs(dirs, record, svg) {
  const json = JSON.stringify(record, (_, v) => (typeof v === "bigint" ? v.toString() : v), 2) + "\n";
  const written = [];
  for (const dir of dirs) {
    mkdirSync(dir, { recursive: true });
    const files = { "latest.json": json, "latest.svg": svg };
    if (dir === RUNS_DIR) files[`${record.date.replace(/:/g, "-")}.json`] = json;
    for (const [name, text] of Object.entries(files)) {
      writeFileSync(join(dir, name), text);
      written.push(relative(ROOT_DIR, join(dir, name)));
    }
  }
  return written;
}
