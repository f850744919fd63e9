// Pools for the tests of protokeel/pool on the TypeScript sources: the calling side is src/pool/,
// the workers run the built worker (dist/pool/worker.js, `npm run build` first: Node cannot start
// a worker from a .ts file), or a test's own worker script that wraps it. test/dist-pool.test.ts
// runs the built package on both sides.
import { createCodecPool, type CodecPool, type CodecPoolOptions } from "../../src/pool/index.js";

export const DIST_WORKER = new URL("../../dist/pool/worker.js", import.meta.url);
/** The built worker behind a test hook: see pool-crash-worker.mjs. */
export const CRASH_WORKER = new URL("./pool-crash-worker.mjs", import.meta.url);
/** A worker script that throws before the worker starts. */
export const BROKEN_WORKER = new URL("./pool-broken-worker.mjs", import.meta.url);

export function poolOf(options: CodecPoolOptions, worker: URL = DIST_WORKER): CodecPool {
  return createCodecPool({ ...options, _workerUrl: worker } as CodecPoolOptions);
}
