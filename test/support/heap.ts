// Heap retained by a value, for tests that bound what decoded values cost (test/unknown-stored,
// test/decode-empty-submessages). Not a timing: the bytes a live value holds after full GCs.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Runs `make` once to warm up, then again, and returns the value of the second run with the heap
 * bytes it keeps alive (after full GCs). `make` runs in a function of its own: a value left in
 * the caller's interpreter registers would stay alive (a warm-up's 13 MB were still counted, and
 * freed during the measurement).
 */
export function retainedBy<T>(make: () => T): { value: T; bytes: number } {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  make();
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const value = make();
  gc();
  gc();
  return { value, bytes: process.memoryUsage().heapUsed - before };
}

/** Collects garbage in full (for WeakRef checks). */
export function fullGc(): void {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
}
