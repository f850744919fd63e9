// Byte helpers shared by every layer. A module of its own so that the evaluator, the descriptor
// input cache and the store reach them without pulling the codec into a bundle (bundle-size test).

/** Largest field number: the tag is the number shifted left by 3 in an unsigned 32-bit varint. */
export const MAX_FIELD_NUMBER = 536_870_911;

/**
 * A genuine Uint8Array (a subclass such as Node's Buffer too). `instanceof` alone also passes a
 * Proxy of one (or an object whose prototype is Uint8Array.prototype), whose every read runs
 * code: a Proxy input whose trap decoded other bytes mid-copy made decodeAll return that other
 * input's values, and a Proxy bytes value threw the engine's TypeError from inside a write.
 */
export function isBytes(v: unknown): v is Uint8Array {
  return v instanceof Uint8Array && ArrayBuffer.isView(v);
}

const TYPED_ARRAY = Object.getPrototypeOf(Uint8Array.prototype) as object;
const intrinsic = (name: string) => Object.getOwnPropertyDescriptor(TYPED_ARRAY, name)!.get! as (this: Uint8Array) => never;
const LENGTH = intrinsic("length") as (this: Uint8Array) => number;
const OFFSET = intrinsic("byteOffset") as (this: Uint8Array) => number;
const BUFFER = intrinsic("buffer") as (this: Uint8Array) => ArrayBuffer;
/** Node's Buffer: its subarray and constructor are the runtime's own. */
const BUFFER_PROTO = (globalThis as { Buffer?: { prototype: object } }).Buffer?.prototype;
const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Input bytes (isBytes, not detached) as an array whose reads run no application code: the array
 * itself when it is a Uint8Array or a Node Buffer without own `length`, `subarray` or
 * `constructor`, else a Uint8Array over the same memory (by the engine's own getters). A reader
 * reads an input's length and takes subarrays of it after the core holds state for it: a
 * subclass's `length` getter that decoded other bytes there made decodeAll return that other
 * input's values, `[]`, or an internal error on valid input. Taken at the boundary, where code
 * that runs cannot disturb a read in progress. Own properties are checked by name: the check
 * costs the smallest validate (5 bytes) ~15% and a small decode ~1% (A/B, one process); a view
 * per call costs more, and in Chromium far more.
 */
export function readable(bytes: Uint8Array): Uint8Array {
  return unshared(readableView(bytes));
}

/**
 * `readable` without the private copy of shared memory: for a reader that copies the input once
 * before it reads any of it, and passes it through `unshared` on every other path (BoundDecoder's
 * small path; asking the engine for a view's buffer is a native call, ~5% of a small decode).
 */
export function readableView(bytes: Uint8Array): Uint8Array {
  return plainLength(bytes) && !hasOwn.call(bytes, "subarray") && !hasOwn.call(bytes, "constructor") ? bytes : ownView(bytes);
}

/**
 * A view (from readableView) in memory another thread may write while it is read, as a private
 * copy, read once; any other view as it is. The core validates its own copy of the input, and a
 * relay and a lazy value read the reader's source copy: taken from shared memory, the two were
 * of different bytes (values that broke the schema, relays of bytes never validated). A new
 * Uint8Array, not `view.slice()`: a Node Buffer's slice is a view of the same shared memory.
 */
export function unshared(view: Uint8Array): Uint8Array {
  return SHARED !== undefined && BUFFER.call(view) instanceof SHARED ? new Uint8Array(view) : view;
}

const SHARED = (globalThis as { SharedArrayBuffer?: typeof SharedArrayBuffer }).SharedArrayBuffer;

/**
 * `readable(bytes)` for what may not be a genuine Uint8Array (a Proxy of one passes instanceof):
 * such a value is returned as it is, for the caller's own check to refuse. For inputs read more
 * than once that are not on a hot path: descriptor sets, snapshots, transfer forms.
 */
export function privateInput(bytes: Uint8Array): Uint8Array {
  return isBytes(bytes) ? readable(bytes) : bytes;
}

/**
 * A bytes value (isBytes) as an array whose `length` is its own: the array itself when its length
 * is the engine's (a Uint8Array or Node Buffer without an own `length`), else a Uint8Array over
 * the same memory. The writers size a field by a value's length and copy its bytes: an array whose
 * `length` getter said more than it held made the output carry bytes of an earlier write.
 */
export function bytesValue(v: Uint8Array): Uint8Array {
  if (plainLength(v)) return v;
  // A detached buffer reads as empty (as a detached Uint8Array's own length is 0).
  return LENGTH.call(v) === 0 ? new Uint8Array(0) : ownView(v);
}

/** The length of a genuine Uint8Array (isBytes) by the engine's own getter: no code of `v`'s runs. */
export function byteLength(v: Uint8Array): number {
  return LENGTH.call(v);
}

/** A Uint8Array over `v`'s memory, by the engine's own getters (no code of `v`'s runs). */
function ownView(v: Uint8Array): Uint8Array {
  return new Uint8Array(BUFFER.call(v), OFFSET.call(v), LENGTH.call(v));
}

/** True when `v`'s `length` is the engine's own (bytesValue returns it as it is). */
export function plainLength(v: Uint8Array): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return (proto === Uint8Array.prototype || proto === BUFFER_PROTO) && !hasOwn.call(v, "length");
}

/** How errors describe what passes `instanceof Uint8Array` and fails isBytes. */
export const NOT_GENUINE_BYTES = "an object that passes instanceof Uint8Array but is not one (a Proxy?)";

/** Why an input reads as detached, and what to do: the reading methods' NOT_BYTES messages end with it. */
export const DETACHED_INPUT =
  "(its buffer was transferred, to a worker or by a pool call with transfer: true, or a resizable buffer shrank below it); pass bytes that are not transferred, or a copy made before the transfer";

/** How errors describe a Uint8Array whose buffer was transferred. */
export const DETACHED_BYTES = "a detached Uint8Array (its buffer was transferred, or a resizable buffer shrank below it)";

/**
 * Why a value that passes `instanceof Uint8Array` cannot be read as input (NOT_GENUINE_BYTES or
 * DETACHED_BYTES), or undefined when it can. For the boundaries that take bytes read more than
 * once (descriptor sets, transfer forms, snapshots, store keys): a Proxy or a detached array
 * reached the engine's DataView and copy code there, whose TypeError escaped the typed errors.
 */
export function bytesProblem(v: Uint8Array): string | undefined {
  if (!isBytes(v)) return NOT_GENUINE_BYTES;
  return isDetached(v) ? DETACHED_BYTES : undefined;
}

/** A 64-bit count for a message: a number up to 2^53 - 1, else the exact bigint (a double rounds it). */
export function exactCount(v: bigint): number | bigint {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const nativeWellFormed = (String.prototype as { isWellFormed?: () => boolean }).isWellFormed;

/** A string with no lone surrogate (it has an exact UTF-8 form). */
export function isWellFormed(s: string): boolean {
  return nativeWellFormed !== undefined ? nativeWellFormed.call(s) : !LONE_SURROGATE.test(s);
}

/** Equal length and equal bytes. Not constant-time: nothing compared here is a secret. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Copies `src[off .. off + n)` to `dst` at `at`. Ids and hashes are short: under 32 bytes a loop
 * beats TypedArray.set, which has a fixed native-call cost (and a subarray to make).
 */
export function copyBytes(dst: Uint8Array, at: number, src: Uint8Array, off: number, n: number): void {
  if (n < 32) for (let i = 0; i < n; i++) dst[at + i] = src[off + i]!;
  else dst.set(off === 0 && n === src.length ? src : src.subarray(off, off + n), at);
}

/** The parts joined into one new array: chunks read from a stream, records assembled from pieces. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * The base-128 varint of a non-negative safe integer, low group first. Arithmetic, not bit
 * operators: a tag of field 536,870,911 (2^32 − 8 and up) is past 32 bits.
 */
export function varintBytes(n: number): number[] {
  // Past 2^53 the bytes would be of a rounded number (and Infinity's never end).
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`varintBytes: ${n} is not an integer in 0..2^53-1`);
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}

/**
 * True when a genuine Uint8Array (isBytes) cannot be read: its buffer was transferred
 * (ArrayBuffer#detached is not in Node 20), or it is a view past the end of a resizable buffer
 * that shrank. Both read as length 0 and make the engine's copy throw a TypeError; the second's
 * buffer is not detached, so asking the buffer missed it (read as empty: another store key's value
 * overwritten, a FrameReader or stream that read nothing). A copy of it is what throws for both.
 */
export function isDetached(bytes: Uint8Array): boolean {
  if (LENGTH.call(bytes) !== 0) return false;
  try {
    new Uint8Array(bytes);
    return false;
  } catch {
    return true;
  }
}
