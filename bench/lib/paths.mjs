// Paths the bench uses, all relative to the repository root so it runs from any working directory.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const ROOT_DIR = resolve(BENCH_DIR, "..");
/** Generated at run time (pbjs and pbf code, the compiled descriptor set); gitignored. */
export const GENERATED_DIR = join(BENCH_DIR, ".generated");
/** The committed results the README shows; changed only by `npm run bench -- --update-results`. */
export const RESULTS_DIR = join(BENCH_DIR, "results");
/** Every run's results (latest and dated copies); gitignored. */
export const RUNS_DIR = join(BENCH_DIR, ".results");
export const DIST_ENTRY = process.env.BENCH_DIST_ENTRY ?? join(ROOT_DIR, "dist", "index.js");
export const BIN = {
  buf: join(ROOT_DIR, "node_modules", ".bin", "buf"),
  pbjs: join(ROOT_DIR, "node_modules", ".bin", "pbjs"),
  pbf: join(ROOT_DIR, "node_modules", ".bin", "pbf"),
  protocGenTs: join(ROOT_DIR, "node_modules", ".bin", "protoc-gen-ts"),
};
