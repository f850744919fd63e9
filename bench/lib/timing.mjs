// Timing with tinybench. Sub-microsecond operations are repeated inside one timed sample so the
// timer's resolution and call overhead stay small against the sample; per-operation figures divide
// by the repetitions.
import { Bench } from "tinybench";

/** Time per case, ms (tinybench `time`); the issue budget is ~300–500 ms per case on 2 noisy cores. */
export const DEFAULT_TIME_MS = 400;
/** Warm-up per case, ms: enough for V8 to optimize the hot functions before samples count. */
export const DEFAULT_WARMUP_MS = 100;
/** Target duration of one sample, ns: ~1000× a 100 ns timer read. */
const SAMPLE_NS = 100_000;

let sink;

/** Repetitions per sample so that one sample takes about SAMPLE_NS. */
function repetitions(fn) {
  for (let reps = 1; ; reps *= 2) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < reps; i++) sink = fn();
    const ns = Number(process.hrtime.bigint() - t0);
    if (ns > 2_000_000 || reps >= 1 << 20) return Math.max(1, Math.round((reps * SAMPLE_NS) / Math.max(ns, 1)));
  }
}

/**
 * Times `fn` and returns the median operations per second over tinybench samples.
 * @param {string} name
 * @param {() => unknown} fn one operation
 */
export function measure(name, fn, { timeMs = DEFAULT_TIME_MS, warmupMs = DEFAULT_WARMUP_MS } = {}) {
  globalThis.gc?.();
  const reps = repetitions(fn);
  const batch = () => {
    for (let i = 0; i < reps; i++) sink = fn();
  };
  const bench = new Bench({ time: timeMs, warmupTime: warmupMs, throws: true, timestampProvider: "hrtimeNow", setup: () => globalThis.gc?.() });
  bench.add(name, batch);
  const [task] = bench.runSync();
  const result = task.result;
  if (result.state !== "completed") throw new Error(`${name}: tinybench ${result.state}${result.error ? `: ${result.error.message}` : ""}`);
  const msPerSample = result.latency.p50;
  return {
    opsPerSec: (reps * 1000) / msPerSample,
    medianNs: (msPerSample * 1e6) / reps,
    rme: result.latency.rme,
    samples: result.latency.samplesCount,
    reps,
  };
}

/** Keeps the last result reachable so the optimizer cannot drop the measured calls. */
export const lastResult = () => sink;
