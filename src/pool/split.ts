// How protokeel/pool cuts a batch into chunks for its workers (and owns their bytes), and puts
// the chunks' results back together. A buffer of frames is cut only at
// frame boundaries that its prefixes announce; everything from the first prefix that does not
// announce a complete frame on goes, as is, into the last chunk, whose worker then throws exactly
// the error decodeAll would (its offsets shifted back by the chunk's start).
import { concatBytes } from "../bytes.js";
import { readFramePrefix } from "../codec/frame-reader.js";

// A chunk of a buffer that is cut is always larger than the largest input the serializer checks
// again for a framing mix-up (MIX_UP_MAX_BYTES, 64 KiB, src/serializer.ts): so no worker adds a
// "Note: the input is one frame…" hint that the single-thread call on the whole input would not
// add, and an input that small is never cut (errors then equal decodeAll's, hints included).
const MIX_UP_MAX_BYTES = 64 * 1024;

/**
 * The smallest chunk worth a round trip to a worker. A round trip (postMessage, structured clone of
 * the task and its reply) costs tens of microseconds; 128 KiB of span-batch frames decode in about
 * a millisecond on this machine (bench/pool.mjs), so a chunk this size keeps the trip a few percent.
 */
export const MIN_CHUNK_BYTES = 128 * 1024;

/**
 * Chunks per worker when a batch is large: more than one, so that a worker that finishes early
 * takes the next chunk (load balance) and other batches' chunks interleave (fairness).
 */
export const CHUNKS_PER_WORKER = 2;

/** A run of frames: bytes [start, end) of the input; `bodies` (when asked) are (offset, length) pairs relative to `start`. */
export interface FrameChunk {
  readonly start: number;
  readonly end: number;
  readonly bodies: number[] | undefined;
}

/** How many chunks a batch of `weight` units is cut into, for a pool of `workers`. */
export function chunkCount(weight: number, minWeight: number, workers: number): number {
  return Math.max(1, Math.min(Math.floor(weight / minWeight), workers * CHUNKS_PER_WORKER));
}

/**
 * Cuts a buffer of frames into `count` runs of whole frames, each over MIX_UP_MAX_BYTES when there
 * is more than one; undefined when it holds more than `maxFrames` frames. With `withBodies`, each run lists its frames' bodies (for values read lazily on
 * the calling thread): the runs then cover the input, and a run whose frames could not all be
 * read is the last one, with `bodies` undefined.
 */
export function splitFrames(input: Uint8Array, count: number, withBodies: boolean, maxFrames: number): FrameChunk[] | undefined {
  const chunks: FrameChunk[] = [];
  const total = input.length;
  let start = 0;
  let bodies: number[] | undefined = withBodies ? [] : undefined;
  let at = 0;
  // Each worker's part holds fewer frames than its decodeAll refuses, but all of them together
  // are one array of values on this thread (and `bodies` two numbers per frame): past `maxFrames`
  // (decodeAll's limit), undefined, for the caller to refuse the batch as decodeAll does.
  let frames = 0;
  while (at < total) {
    if (++frames > maxFrames) return undefined;
    const prefix = readFramePrefix(input, at);
    if (typeof prefix === "number" || prefix.bodyAt + prefix.size > total) {
      // The rest goes to one worker as is: it throws the error this frame gives.
      bodies = undefined;
      at = total;
      break;
    }
    bodies?.push(prefix.bodyAt - start, prefix.size);
    at = prefix.bodyAt + prefix.size;
    const target = (total * (chunks.length + 1)) / count;
    if (chunks.length < count - 1 && at >= target && at - start > MIX_UP_MAX_BYTES && total - at > MIX_UP_MAX_BYTES) {
      chunks.push({ start, end: at, bodies });
      start = at;
      bodies = withBodies ? [] : undefined;
    }
  }
  chunks.push({ start, end: total, bodies });
  return chunks;
}

/** Cuts `items` into at most `count` runs [start, end) of about equal `weight`. */
export function splitItems<T>(items: readonly T[], count: number, weight: (item: T) => number): [number, number][] {
  if (count <= 1 || items.length <= 1) return [[0, items.length]];
  let total = 0;
  for (const it of items) total += weight(it);
  const runs: [number, number][] = [];
  let start = 0;
  let sum = 0;
  for (let i = 0; i < items.length; i++) {
    sum += weight(items[i]!);
    if (runs.length < count - 1 && sum >= (total * (runs.length + 1)) / count && i + 1 < items.length) {
      runs.push([start, i + 1]);
      start = i + 1;
    }
  }
  runs.push([start, items.length]);
  return runs;
}

/**
 * The caller's bytes moved into an ArrayBuffer the pool owns, the caller's detached. Copied instead
 * when the array views only part of its buffer (moving it would detach the rest, which other code
 * may be using: a protokeel encoder's output can be a view into its arena), when the buffer is
 * shared, and (by Node) when it is one of Node's pooled small Buffers.
 */
export function adopt(bytes: Uint8Array): Uint8Array {
  const buffer = bytes.buffer;
  if (buffer instanceof SharedArrayBuffer || bytes.byteOffset !== 0 || bytes.byteLength !== buffer.byteLength) return copyOf(bytes, 0, bytes.length);
  return new Uint8Array(structuredClone(buffer, { transfer: [buffer as ArrayBuffer] }));
}

/**
 * A copy of `bytes[start, end)` in a buffer of its own. Not `slice()`: a Node Buffer's slice is a
 * view, and transferring a view's buffer would move (detach) the caller's whole buffer; a buffer
 * that is already detached when a task is posted makes Node drop the message without an error.
 */
export function copyOf(bytes: Uint8Array, start: number, end: number): Uint8Array {
  const out = new Uint8Array(end - start);
  out.set(bytes.subarray(start, end));
  return out;
}

export function flat(results: unknown[]): unknown[] {
  return results.length === 1 ? (results[0] as unknown[]) : (results as unknown[][]).flat();
}

export function concat(results: unknown[]): Uint8Array {
  const parts = results as Uint8Array[];
  return parts.length === 1 ? parts[0]! : concatBytes(parts);
}
