// Byte helpers shared by every layer. A module of its own so that the evaluator, the descriptor
// input cache and the store reach them without pulling the codec into a bundle (bundle-size test).

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

/** True when `bytes`' buffer was transferred (ArrayBuffer#detached is not in Node 20). */
export function isDetached(bytes: Uint8Array): boolean {
  if (bytes.byteLength !== 0) return false;
  try {
    new Uint8Array(bytes.buffer);
    return false;
  } catch {
    return true;
  }
}
