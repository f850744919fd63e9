// Timing with tinybench. Sub-microsecond operations are repeated inside one timed sample so the
// timer's resolution and call overhead stay small against the sample; per-operation figures divide
// by the repetitions. The codecs of one fixture×operation are timed in alternating rounds and each
// codec's samples pooled, so a burst of load on the shared machine lands on all of them rather than
// on whichever codec happened to run during it (the ratios are the claims).
import { Bench } from "tinybench";

/** Time per case, ms (tinybench `time`, split over the rounds); ~300–500 ms per case keeps a full run near a minute. */
export const DEFAULT_TIME_MS = 400;
/** Warm-up before a case's first round, ms: enough for V8 to optimize the hot functions. */
export const DEFAULT_WARMUP_MS = 100;
/** Rounds per fixture×operation. */
export const ROUNDS = 4;
/** Target duration of one sample, ns: ~1000× the cost of reading the timer. */
export const SAMPLE_NS = 100_000;

// The clock, in ns: process.hrtime where the runtime has it (Node, Bun, Deno), else
// performance.now() (a browser, where it is coarser: give it longer samples, see sampleNs).
const hrtime = globalThis.process?.hrtime?.bigint?.bind(globalThis.process.hrtime);
const now = hrtime === undefined ? () => performance.now() * 1e6 : () => Number(hrtime());
const timestampProvider = hrtime === undefined ? "performanceNow" : "hrtimeNow";

let sink;

/** Time spent finding the repetitions of a case, ms: also warms it up so the count fits optimized code. */
const CALIBRATION_MS = 60;

/**
 * Repetitions per sample so that one sample takes about `sampleNs`. `inputs(n)` gives the arguments
 * of n calls (fresh values for encode cases), built outside the timed loop. The count doubles until
 * a run lasts 2 ms or more, then runs of a sixteenth of that repeat until CALIBRATION_MS have
 * passed; the cost per call is the lowest seen in any run long enough to time (a tenth of a sample
 * or more). The lowest: runs of cold code, and runs the scheduler interrupted on a loaded machine,
 * only look slower. (Taking the first long run as the cost, as before, measured cold code and gave
 * samples of 1–3 calls for the small fixture, where the timer's own cost is a few percent of a
 * sample.)
 */
function repetitions(fn, inputs, sampleNs) {
  const time = (reps) => {
    const args = inputs(reps);
    const t0 = now();
    for (let i = 0; i < reps; i++) sink = fn(args[i]);
    return now() - t0;
  };
  const start = now();
  let perCall = Infinity;
  const consider = (ns, reps) => {
    if (ns >= sampleNs / 10) perCall = Math.min(perCall, ns / reps);
  };
  let reps = 1;
  for (;;) {
    const ns = time(reps);
    consider(ns, reps);
    if (ns > Math.max(2_000_000, 20 * sampleNs) || reps >= 1 << 20) break;
    reps *= 2;
  }
  // then short runs (a sixteenth: ~0.1 ms and up), which a loaded machine's scheduler rarely cuts into
  const short = Math.max(1, reps >> 4);
  for (let i = 0; i < 4 || now() - start < CALIBRATION_MS * 1e6; i++) consider(time(short), short);
  return Math.max(1, Math.round(sampleNs / perCall));
}

function quantile(sorted, q) {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (at - lo);
}

function runRound(name, batch, beforeEach, timeMs, warmupMs) {
  const bench = new Bench({
    time: timeMs,
    warmupTime: warmupMs,
    warmup: warmupMs > 0,
    throws: true,
    retainSamples: true,
    timestampProvider,
    setup: () => globalThis.gc?.(),
  });
  bench.add(name, batch, beforeEach === undefined ? {} : { beforeEach });
  const [task] = bench.runSync();
  const result = task.result;
  if (result.state !== "completed") throw new Error(`${name}: tinybench ${result.state}${result.error ? `: ${result.error.message}` : ""}`);
  return result.latency.samples;
}

/**
 * Times the operations of one fixture×operation in alternating rounds.
 * @param {Array<{ name: string, fn: (input?: unknown) => unknown, fresh?: () => unknown }>} entries
 *   one operation each; with `fresh`, every call gets its own input, built before the sample (untimed)
 * @param {{ timeMs?: number, warmupMs?: number, rounds?: number, sampleNs?: number }} [options] sampleNs: the
 *   target duration of one sample (longer where the clock is coarse)
 * @returns {Array<{ opsPerSec: number, medianNs: number, spread: number, samples: number, reps: number } | { error: Error }>}
 */
export function measureGroup(entries, { timeMs = DEFAULT_TIME_MS, warmupMs = DEFAULT_WARMUP_MS, rounds = ROUNDS, sampleNs = SAMPLE_NS } = {}) {
  const state = entries.map(({ name, fn, fresh }) => {
    try {
      globalThis.gc?.();
      const inputs = (n) => (fresh === undefined ? [] : Array.from({ length: n }, fresh));
      const reps = repetitions(fn, inputs, sampleNs);
      let args = [];
      return {
        name,
        reps,
        beforeEach: fresh === undefined ? undefined : () => void (args = inputs(reps)),
        batch: () => {
          for (let i = 0; i < reps; i++) sink = fn(args[i]);
        },
        perOpMs: [],
      };
    } catch (error) {
      return { error };
    }
  });
  for (let round = 0; round < rounds; round++) {
    for (const s of state) {
      if (s.error) continue;
      try {
        for (const ms of runRound(s.name, s.batch, s.beforeEach, timeMs / rounds, round === 0 ? warmupMs : warmupMs / 4)) s.perOpMs.push(ms / s.reps);
      } catch (error) {
        s.error = error;
      }
    }
  }
  return state.map((s) => {
    if (s.error) return { error: s.error };
    const sorted = s.perOpMs.sort((a, b) => a - b);
    const median = quantile(sorted, 0.5);
    return {
      opsPerSec: 1000 / median,
      medianNs: median * 1e6,
      // interquartile range relative to the median: how noisy the samples were
      spread: (quantile(sorted, 0.75) - quantile(sorted, 0.25)) / median,
      samples: sorted.length,
      reps: s.reps,
    };
  });
}

/** Keeps the last result reachable so the optimizer cannot drop the measured calls. */
export const lastResult = () => sink;
