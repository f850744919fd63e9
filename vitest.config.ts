// Test projects:
// - "default": every test file, on the TypeScript sources, but those of "workers".
// - "workers": the files that start worker threads (the pool, the store's multi-writer test).
// - "lazy-decode": the codec tests again with every bare message decoded lazily.
// - "small-decode", "core-decode": the codec, decode, adversarial and differential tests again
//   with every bare message and single frame read by the TypeScript reader of small messages, and
//   with none (src/codec/small-reader.ts; the default threshold splits them by size).
// - "dataview-int64": the differential, round-trip and plain-write tests again with 64-bit integers
//   read and written through DataView, as on JavaScriptCore (src/int64-access.ts), every decode
//   through the core's tape.
// - "dist-esm", "dist-cjs": the adversarial suite (test/adversarial/**), the conformance replay and the differential
//   properties over random schemas (test/differential-*.test.ts) against the built package
//   (issue 11, "The built package"): their imports of src/index.js resolve to dist/index.js (ESM)
//   or dist/index.cjs (CJS, through test/support/dist-cjs.ts). `npm test` builds dist/ first; run
//   `npm run build` before running these projects alone.
//
// Rule for the dist projects: a test file that imports a module under src/ other than index.js —
// directly or through a test/ module it imports (`import type` aside) — tests internals that the
// package does not expose, and is left out of them automatically (`usesInternals` below). Prefer
// the public API in new tests, so that they also run against what users install. Property tests
// run at a quarter of their runs there (PROTOKEEL_RUNS_SCALE, test/support/property.ts): the same
// seeds, so the first runs of each property are the ones `default` runs (a PROTOKEEL_RUNS_SCALE
// given from outside scales both).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig, type Plugin } from "vitest/config";

const here = dirname(fileURLToPath(import.meta.url));

// Vitest runs the TypeScript sources: give `.wasm` imports the bytes, as tsup's binary loader
// does for the built package.
const wasmBytes: Plugin = {
  name: "protokeel-wasm-bytes",
  enforce: "pre",
  load(id) {
    const file = id.split("?")[0]!;
    if (!file.endsWith(".wasm")) return null;
    const b64 = readFileSync(file).toString("base64");
    return `export default new Uint8Array(Buffer.from(${JSON.stringify(b64)}, "base64"));`;
  },
};

const SRC = join(here, "src");
const IMPORT = /^\s*(?:import|export)\s+(?!type\b)[^'"]*?from\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm;
const internal = new Map<string, boolean>();

/** True when `file` (a .ts under test/) imports, at run time, a src/ module other than index.js. */
function usesInternals(file: string): boolean {
  const known = internal.get(file);
  if (known !== undefined) return known;
  internal.set(file, false); // import cycles end here
  let result = false;
  for (const m of readFileSync(file, "utf8").matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3]!;
    if (!spec.startsWith(".")) continue;
    const target = resolve(dirname(file), spec);
    if (target.startsWith(SRC + "/")) {
      if (relative(SRC, target) !== "index.js") result = true;
    } else {
      const ts = target.replace(/\.js$/, ".ts");
      if (ts.startsWith(join(here, "test") + "/") && existsSync(ts) && usesInternals(ts)) result = true;
    }
    if (result) break;
  }
  internal.set(file, result);
  return result;
}

/** Test files the dist projects run: the adversarial suite and the differential properties. */
function distTests(): string[] {
  const adversarial = readdirSync(join(here, "test", "adversarial"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => join("test", "adversarial", f));
  const differential = readdirSync(join(here, "test"))
    .filter((f) => f.startsWith("differential-") && f.endsWith(".test.ts"))
    .map((f) => join("test", f));
  return [...adversarial, ...differential, "test/conformance.test.ts"].filter((f) => !usesInternals(join(here, f))).sort();
}

// The files of the lazy-decode project, the adversarial suite and the differential properties.
const CODEC_TESTS = [
  "test/decode-*.test.ts",
  "test/serializer-*.test.ts",
  "test/field-note-relays.test.ts",
  "test/write-*.test.ts",
  "test/writer-*.test.ts",
  "test/snapshot-upgrade.test.ts",
  "test/dynamic-message.test.ts",
  "test/conformance.test.ts",
];

/** The read path's two ways for small messages (TypeScript reader or core) must agree. */
function smallProject(name: string, setup: string) {
  return {
    extends: true as const,
    test: {
      name,
      include: [
        ...CODEC_TESTS,
        "test/stream-decode.test.ts",
        "test/adversarial/**/*.test.ts",
        "test/differential-*.test.ts",
        "test/generated-read.test.ts",
        "test/generated-differential.test.ts",
      ],
      setupFiles: [setup],
    },
  };
}

/** The test files that start worker threads (see the "workers" project). */
const WORKER_TESTS = ["test/pool-*.test.ts", "test/dist-pool.test.ts", "test/bench-pool.test.ts", "test/store-multiprocess.test.ts"];

const SRC_INDEX = /^(?:\.\.\/)+src\/index\.js$/;

function distProject(name: string, entry: string, format: "esm" | "cjs") {
  return {
    extends: true as const,
    resolve: { alias: [{ find: SRC_INDEX, replacement: join(here, entry) }] },
    test: {
      name,
      // dist-projects.test.ts checks that the alias took effect.
      include: [...distTests(), "test/dist-projects.test.ts"],
      env: { PROTOKEEL_DIST: format, PROTOKEEL_RUNS_SCALE: String(0.25 * Number(process.env.PROTOKEEL_RUNS_SCALE || 1)) },
    },
  };
}

export default defineConfig({
  plugins: [wasmBytes],
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    projects: [
      { extends: true, test: { name: "default", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...WORKER_TESTS] } },
      {
        // Node 20 aborts the whole process (`NodePlatform::ForIsolate`, "Assertion failed:
        // (data.first) != nullptr") when a worker thread is terminated while V8 optimizes its
        // code on a background thread: the compile job schedules a task for an isolate already
        // unregistered (nodejs/node#56312; seen once in ~30 full runs, in pool-differential). The
        // files that start and end workers run with optimization on the main thread, where no
        // job outlives its isolate. The pool's own behaviour is the same either way.
        extends: true,
        test: { name: "workers", include: WORKER_TESTS, execArgv: ["--no-concurrent-recompilation"] },
      },
      {
        // The read path's two forms (eager and lazy, src/codec/reader.ts) must give the same values
        // and the same errors: the codec tests run again with every bare message decoded lazily.
        extends: true,
        test: {
          name: "lazy-decode",
          include: CODEC_TESTS,
          setupFiles: ["test/support/lazy-everywhere.ts"],
        },
      },
      smallProject("small-decode", "test/support/small-everywhere.ts"),
      smallProject("core-decode", "test/support/small-nowhere.ts"),
      {
        extends: true,
        test: {
          name: "dataview-int64",
          include: [
            "test/differential-*.test.ts",
            "test/decode-differential.test.ts",
            "test/writer-differential.test.ts",
            "test/generated-differential.test.ts",
            "test/generated-read.test.ts",
            "test/serializer-roundtrip.test.ts",
            "test/write-plain.test.ts",
            "test/write-init-direct.test.ts",
            "test/adversarial/js-number-range.test.ts",
            "test/stream-decode.test.ts",
          ],
          setupFiles: ["test/support/int64-dataview.ts"],
        },
      },
      distProject("dist-esm", "dist/index.js", "esm"),
      distProject("dist-cjs", "test/support/dist-cjs.ts", "cjs"),
    ],
  },
});
