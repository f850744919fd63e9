// Base64 for bytes fields in ProtoJSON: written in the standard alphabet with padding, read in
// either alphabet (standard or URL-safe), with or without padding, as the spec allows.

const DECODE = new Int8Array(128).fill(-1);
{
  const std = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (let i = 0; i < 64; i++) DECODE[std.charCodeAt(i)] = i;
  DECODE["-".charCodeAt(0)] = 62;
  DECODE["_".charCodeAt(0)] = 63;
}

/** The bytes of base64 text, or a string saying why it is not base64. */
export function decodeBase64(text: string): Uint8Array | string {
  let end = text.length;
  if (end > 0 && text.charCodeAt(end - 1) === 61) end--; // "="
  if (end > 0 && text.charCodeAt(end - 1) === 61) end--;
  const padding = text.length - end;
  // A character outside the alphabets (a space, a newline) is named before the length it spoils.
  if (padding > 0 && text.length % 4 !== 0) return badCharacter(text, end) ?? "its padding does not complete a group of 4 characters";
  if (end % 4 === 1) return badCharacter(text, end) ?? "its length leaves a single character in the last group";
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let o = 0;
  let i = 0;
  for (; i + 4 <= end; i += 4) {
    const a = sextet(text, i);
    const b = sextet(text, i + 1);
    const c = sextet(text, i + 2);
    const d = sextet(text, i + 3);
    if ((a | b | c | d) < 0) return invalidAt(text, i, 4);
    out[o++] = (a << 2) | (b >> 4);
    out[o++] = ((b & 15) << 4) | (c >> 2);
    out[o++] = ((c & 3) << 6) | d;
  }
  const rest = end - i;
  if (rest >= 2) {
    const a = sextet(text, i);
    const b = sextet(text, i + 1);
    const c = rest === 3 ? sextet(text, i + 2) : 0;
    if ((a | b | c) < 0) return invalidAt(text, i, rest);
    out[o++] = (a << 2) | (b >> 4);
    if (rest === 3) out[o++] = ((b & 15) << 4) | (c >> 2);
  }
  return out;
}

function sextet(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c < 128 ? DECODE[c]! : -1;
}

function invalidAt(text: string, from: number, n: number): string {
  return badCharacter(text, from + n, from) ?? "it is not base64";
}

/** Why the first character of text[from, end) outside the alphabets is, or undefined. */
function badCharacter(text: string, end: number, from = 0): string | undefined {
  for (let i = from; i < end; i++) {
    if (sextet(text, i) < 0) return `character ${JSON.stringify(text[i])} at index ${i} is not in the base64 alphabets`;
  }
  return undefined;
}

const ENCODE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const nativeToBase64 = (Uint8Array.prototype as { toBase64?: () => string }).toBase64;

/** Standard base64 with padding, on every runtime; chunks joined once (linear for large bytes). */
export function encodeBase64(b: Uint8Array): string {
  if (nativeToBase64 !== undefined) return nativeToBase64.call(b);
  const parts: string[] = [];
  const CHUNK = 3 * 4096;
  for (let start = 0; start < b.length; start += CHUNK) {
    const stop = Math.min(start + CHUNK, b.length);
    let s = "";
    let i = start;
    for (; i + 3 <= stop; i += 3) {
      const n = (b[i]! << 16) | (b[i + 1]! << 8) | b[i + 2]!;
      s += ENCODE[n >>> 18]! + ENCODE[(n >>> 12) & 63]! + ENCODE[(n >>> 6) & 63]! + ENCODE[n & 63]!;
    }
    if (i < stop) {
      const two = i + 1 < stop;
      const n = (b[i]! << 16) | ((two ? b[i + 1]! : 0) << 8);
      s += ENCODE[n >>> 18]! + ENCODE[(n >>> 12) & 63]! + (two ? ENCODE[(n >>> 6) & 63]! : "=") + "=";
    }
    parts.push(s);
  }
  return parts.join("");
}
