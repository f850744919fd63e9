// Linear memory: one set of cached views, rebuilt only after our own memory.grow (the core
// never grows memory itself, so views cannot go stale behind our back). Creating a view per
// call costs ~20 ns (DESIGN §13), so every reader goes through `views`.
//
// Regions, from the core's heap base up:
//   [table]    the layout table store (src/wasm/table.ts), uploaded incrementally
//   [scratch]  per call: walker stack, the input copy, the tape (entries up, packed arrays down)
// Scratch is reused by every call: a tape must be read before the next core call.
import { CodecError } from "../errors.js";
import { core, type CoreExports } from "./instance.js";
import { tableLength, tableWords, takeDirty } from "./table.js";

export interface MemoryViews {
  buffer: ArrayBuffer;
  u8: Uint8Array;
  i32: Int32Array;
  u32: Uint32Array;
  f32: Float32Array;
  f64: Float64Array;
  i64: BigInt64Array;
  u64: BigUint64Array;
}

const PAGE = 65536;
/** wasm32 addresses end at 4 GiB (65,536 pages); V8 allows all of them on 64-bit hosts. */
const MAX_PAGES = 65536;

/** The views over the current instance's memory; replaced (fields reassigned) after growth. */
export const views: MemoryViews = {} as MemoryViews;

let exports: CoreExports | undefined;
let ctrlWord = 0;
let tableBase = 0;
let tableCap = 0;
let growCount = 0;
// The next upload is of the whole table (a new instance starts without it).
let fresh = true;

function rebuildViews(memory: WebAssembly.Memory): void {
  const b = memory.buffer;
  views.buffer = b;
  views.u8 = new Uint8Array(b);
  views.i32 = new Int32Array(b);
  views.u32 = new Uint32Array(b);
  views.f32 = new Float32Array(b);
  views.f64 = new Float64Array(b);
  views.i64 = new BigInt64Array(b);
  views.u64 = new BigUint64Array(b);
}

/** Makes [0, end) addressable, growing memory (and rebuilding the views) when needed. */
export function ensureMemory(end: number): void {
  const e = exports!;
  const have = views.buffer.byteLength;
  if (end <= have) return;
  const havePages = have / PAGE;
  const needPages = Math.ceil(end / PAGE);
  if (needPages > MAX_PAGES) throw memoryError(end);
  // Grow by at least half again what we have, so a stream of slightly larger inputs does
  // not grow (and rebuild every view) on each call.
  const target = Math.min(MAX_PAGES, Math.max(needPages, Math.ceil(havePages * 1.5)));
  try {
    e.memory.grow(target - havePages);
  } catch {
    try {
      e.memory.grow(needPages - havePages);
    } catch (cause) {
      throw memoryError(end, cause);
    }
  }
  growCount++;
  rebuildViews(e.memory);
}

function memoryError(end: number, cause?: unknown): CodecError {
  return new CodecError(
    "MEMORY_EXHAUSTED",
    `cannot grow WebAssembly memory to ${end} bytes; split the input into smaller messages or frames`,
    cause === undefined ? {} : { cause },
  );
}

/** The instance with its table uploaded: call before every core call that reads the table. */
export function ready(): CoreExports {
  const e = core();
  if (e !== exports) {
    exports = e;
    ctrlWord = (e.ctrl() >>> 0) >>> 2;
    tableBase = e.heapBase() >>> 0;
    tableCap = 64 * 1024;
    rebuildViews(e.memory);
    ensureMemory(tableBase + tableCap);
    fresh = true;
  }
  const need = tableLength() * 4;
  if (need > tableCap) {
    let cap = tableCap;
    while (cap < need) cap *= 2;
    tableCap = cap;
    ensureMemory(tableBase + tableCap);
  }
  const [lo, hi] = takeDirty(fresh);
  fresh = false;
  if (hi > lo) views.i32.set(tableWords().subarray(lo, hi), (tableBase >>> 2) + lo);
  return e;
}

/** Address of the layout table. */
export function tableAddress(): number {
  return tableBase;
}

/** First address of the per-call scratch region (16-aligned). */
export function scratchAddress(): number {
  return align16(tableBase + tableCap);
}

/** Word index of control word `k` (see assembly/ctrl.ts). */
export function ctrlIndex(k: number): number {
  return ctrlWord + k;
}

/** How many times memory grew (tests check that a refused input does not grow it). */
export function memoryGrowCount(): number {
  return growCount;
}

// Addresses reach 4 GiB, beyond 32-bit signed bitwise operators: those need plain arithmetic.
export const align16 = (n: number): number => (n < 0x7fff0000 ? (n + 15) & ~15 : Math.ceil(n / 16) * 16);
