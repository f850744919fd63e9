// Big-endian byte reading and writing for the snapshot format (docs/design.md §10). The reader checks
// every length against the bytes that remain before it reads or allocates, so malformed input
// ends in a SnapshotFormatError with the byte offset, never in a RangeError from a typed array.
import { SnapshotFormatError } from "../errors.js";
import { CHECK_BYTES, checksOf, hex32, writeCheck } from "./crc32c.js";

const utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8Encoder = new TextEncoder();

export class SnapshotInput {
  /** Offset of the next byte to read. */
  pos = 0;
  /** Names the snapshot in messages once its root full name is known, e.g. ` of acme.Order`. */
  subject = "";
  /** Where the readable bytes end: before the integrity check once it was verified. */
  #end: number;

  constructor(readonly bytes: Uint8Array) {
    this.#end = bytes.length;
  }

  get remaining(): number {
    return this.#end - this.pos;
  }

  /**
   * Verifies the integrity check (the last 4 bytes: the CRC-32C of every byte before them) and
   * ends the input before it, so that nothing after the envelope version is read from bytes
   * that the check does not vouch for.
   */
  verifyCheck(): void {
    this.need(CHECK_BYTES, "the integrity check");
    const { recorded, computed } = checksOf(this.bytes);
    const at = this.bytes.length - CHECK_BYTES;
    if (recorded !== computed) {
      this.fail(
        "SNAPSHOT_CORRUPT",
        at,
        `the bytes are corrupt: the CRC-32C of bytes 0..${at - 1} is ${hex32(computed)}, but the snapshot records ${hex32(recorded)}`,
        "the snapshot was damaged, cut short or modified; restore it from an intact copy",
      );
    }
    this.#end = at;
  }

  fail(code: string, offset: number, rule: string, fix: string): never {
    throw new SnapshotFormatError(code, `invalid snapshot${this.subject} at byte ${offset}: ${rule}; ${fix}`, {
      offset,
    });
  }

  private need(n: number, what: string): void {
    if (n > this.remaining) {
      const left = this.remaining;
      this.fail(
        "SNAPSHOT_TRUNCATED",
        this.pos,
        `${what} needs ${n} byte${n === 1 ? "" : "s"} but ${left} remain${left === 1 ? "s" : ""}`,
        "pass the complete snapshot bytes",
      );
    }
  }

  u8(what: string): number {
    this.need(1, what);
    return this.bytes[this.pos++]!;
  }

  u16(what: string): number {
    this.need(2, what);
    const b = this.bytes;
    const p = this.pos;
    this.pos = p + 2;
    return (b[p]! << 8) | b[p + 1]!;
  }

  u32(what: string): number {
    this.need(4, what);
    const b = this.bytes;
    const p = this.pos;
    this.pos = p + 4;
    // Multiplying the top byte keeps the result unsigned (a shift by 24 would turn it negative).
    return b[p]! * 0x1000000 + ((b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!);
  }

  /** A view of the next `n` bytes; `n` was checked against the input, so no oversized allocation. */
  take(n: number, what: string): Uint8Array {
    this.need(n, what);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** A u16 length and that many bytes of UTF-8 (Java's writeUTF bound, without its modified UTF-8). */
  utf8(what: string): string {
    const lengthAt = this.pos;
    const n = this.u16(`the length of ${what}`);
    const raw = this.take(n, what);
    try {
      return utf8Decoder.decode(raw);
    } catch {
      return this.fail(
        "SNAPSHOT_INVALID_UTF8",
        lengthAt + 2,
        `${what} is not valid UTF-8`,
        "the snapshot was corrupted; restore it from an intact copy",
      );
    }
  }
}

/** Collects big-endian fields; `finish()` joins them into one array. */
export class SnapshotOutput {
  private readonly parts: Uint8Array[] = [];
  private length = 0;

  private push(part: Uint8Array): void {
    this.parts.push(part);
    this.length += part.length;
  }

  u8(v: number): void {
    this.push(Uint8Array.of(v & 0xff));
  }

  u16(v: number): void {
    this.push(Uint8Array.of((v >>> 8) & 0xff, v & 0xff));
  }

  u32(v: number): void {
    this.push(Uint8Array.of((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff));
  }

  raw(bytes: Uint8Array): void {
    this.push(bytes);
  }

  utf8(s: string, what: string): void {
    const bytes = utf8Encoder.encode(s);
    if (bytes.length > 0xffff) {
      // Construction rejects such names (docs/design.md §4.2 rule 6), so only a hand-made snapshot gets here.
      throw new SnapshotFormatError(
        "SNAPSHOT_NAME_TOO_LONG",
        `cannot write snapshot: ${what} is ${bytes.length} bytes of UTF-8, above 65535; use a shorter name`,
      );
    }
    this.u16(bytes.length);
    this.push(bytes);
  }

  finish(): Uint8Array {
    return this.#join(0);
  }

  /** The fields followed by the integrity check over all of them (docs/design.md §10.2 item 7). */
  finishWithCheck(): Uint8Array {
    const out = this.#join(CHECK_BYTES);
    writeCheck(out);
    return out;
  }

  #join(extra: number): Uint8Array {
    const out = new Uint8Array(this.length + extra);
    let at = 0;
    for (const part of this.parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }
}
