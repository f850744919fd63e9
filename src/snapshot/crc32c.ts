// CRC-32C (Castagnoli, reflected polynomial 0x82f63b78), the integrity check that ends snapshots
// and the type transfer form (DESIGN §10.2 item 7). It detects every error of up to 32
// consecutive bits, so any single flipped bit, including one in the settings or names that the
// fingerprint does not cover, is rejected. Plain TS and one 256-entry table: ~600 ms for 64 MiB
// on this machine, against ~1.4 s for the SHA-256 fingerprint of the same bytes.

const TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/** The CRC-32C of `bytes` as an unsigned 32-bit number (`crc32c("123456789") === 0xe3069283`). */
export function crc32c(bytes: Uint8Array): number {
  let c = -1;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/** Bytes of the check: 4, big-endian like every integer of both formats. */
export const CHECK_BYTES = 4;

/** Writes the CRC-32C of everything before the last 4 bytes of `out` into them, big-endian. */
export function writeCheck(out: Uint8Array): void {
  const at = out.length - CHECK_BYTES;
  const c = crc32c(out.subarray(0, at));
  out[at] = c >>> 24;
  out[at + 1] = (c >>> 16) & 0xff;
  out[at + 2] = (c >>> 8) & 0xff;
  out[at + 3] = c & 0xff;
}

/**
 * The recorded and the computed check of sealed `bytes` (at least CHECK_BYTES long): the last
 * 4 bytes, and the CRC-32C of everything before them.
 */
export function checksOf(bytes: Uint8Array): { recorded: number; computed: number } {
  const at = bytes.length - CHECK_BYTES;
  const recorded = ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
  return { recorded, computed: crc32c(bytes.subarray(0, at)) };
}

/** `0x` and 8 hex digits, for messages. */
export function hex32(v: number): string {
  return `0x${v.toString(16).padStart(8, "0")}`;
}
