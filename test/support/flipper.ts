// A worker thread that writes two byte strings in turn over the start of a SharedArrayBuffer, for
// tests of inputs in shared memory that another thread changes while protokeel reads them.
import { Worker } from "node:worker_threads";

export interface Flipper {
  /** The shared input: a view of the first `a.length` bytes, holding `a` at first. */
  readonly input: Uint8Array;
  stop(): Promise<void>;
}

/** Starts flipping `a` and `b` (of any lengths; the input is `a.length` long). */
export function flipper(a: Uint8Array, b: Uint8Array): Flipper {
  const off = Math.ceil(Math.max(a.length, b.length) / 4) * 4;
  const sab = new SharedArrayBuffer(off + 4);
  new Uint8Array(sab).set(a);
  const flag = new Int32Array(sab, off, 1);
  const w = new Worker(
    `const { workerData: d } = require("node:worker_threads");
     const v = new Uint8Array(d.sab, 0, Math.max(d.a.length, d.b.length)); const stop = new Int32Array(d.sab, d.off, 1);
     while (Atomics.load(stop, 0) === 0) { v.set(d.a); v.set(d.b); }`,
    { eval: true, workerData: { sab, a, b, off } },
  );
  return {
    input: new Uint8Array(sab, 0, a.length),
    stop: () => {
      Atomics.store(flag, 0, 1);
      return new Promise((resolve) => w.once("exit", () => resolve()));
    },
  };
}
