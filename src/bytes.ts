// Byte helpers shared by every layer. A module of its own so that the evaluator, the descriptor
// input cache and the store reach them without pulling the codec into a bundle (bundle-size test).

/** Equal length and equal bytes. Not constant-time: nothing compared here is a secret. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
