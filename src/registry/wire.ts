// The Confluent Schema Registry wire format for Protobuf: magic byte 0, the schema id as a 4-byte
// big-endian integer, the message-index array (the path of the message in its schema file:
// a zigzag varint count, then one zigzag varint per index; the single byte 0 stands for [0], the
// first top-level message), then the bare message. Pure bytes: no descriptor, no registry.
import { CodecError, RegistryCode } from "../errors.js";

export const MAGIC_BYTE = 0;
/** Magic byte and schema id. */
const ID_END = 5;
/**
 * Most indexes an array may hold. A path has one index per level of nesting, and no descriptor
 * set nests deeper than 100 levels (src/descriptor/closure.ts), so a longer array never resolves:
 * refused before anything is allocated for it.
 */
export const MAX_MESSAGE_INDEXES = 100;

export interface RegistryHeader {
  readonly schemaId: number;
  /** Path of the message in its schema file: top-level index, then nested indexes. */
  readonly messageIndexes: readonly number[];
  /** Where the bare message starts. */
  readonly bodyAt: number;
}

/** The header bytes for `schemaId` and `messageIndexes` ([0] is written as the single byte 0). */
export function writeHeader(schemaId: number, messageIndexes: readonly number[]): Uint8Array {
  if (!Number.isInteger(schemaId) || schemaId < 0 || schemaId > 0xffffffff) {
    throw new RangeError(`schema id ${schemaId} is not an integer in 0..4294967295`);
  }
  if (!Array.isArray(messageIndexes) || messageIndexes.length < 1 || messageIndexes.length > MAX_MESSAGE_INDEXES) {
    throw new RangeError(`message indexes must be 1..${MAX_MESSAGE_INDEXES} integers (a path in the schema file), e.g. [0]`);
  }
  for (const i of messageIndexes) {
    if (!Number.isInteger(i) || i < 0 || i > 0x7fffffff) throw new RangeError(`message index ${i} is not an integer in 0..2147483647`);
  }
  const first = messageIndexes.length === 1 && messageIndexes[0] === 0;
  const out: number[] = [MAGIC_BYTE, (schemaId >>> 24) & 0xff, (schemaId >>> 16) & 0xff, (schemaId >>> 8) & 0xff, schemaId & 0xff];
  if (first) out.push(0);
  else {
    writeZigzag(out, messageIndexes.length);
    for (const i of messageIndexes) writeZigzag(out, i);
  }
  return Uint8Array.from(out);
}

function writeZigzag(out: number[], n: number): void {
  // Indexes and counts are small non-negative int32s (positions in a file): zigzag doubles them.
  let v = (n << 1) ^ (n >> 31);
  v >>>= 0;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
}

/** The header and the message, in one new array. */
export function withHeader(header: Uint8Array, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(header.length + body.length);
  out.set(header, 0);
  out.set(body, header.length);
  return out;
}

function truncated(bytes: Uint8Array, what: string): CodecError {
  return new CodecError(
    RegistryCode.REGISTRY_HEADER_TRUNCATED,
    `schema registry header truncated: ${what} at byte ${bytes.length} (the input is ${bytes.length} bytes); pass the whole record value as the producer wrote it`,
    { offset: bytes.length },
  );
}

/** A zigzag varint (int32) at `at`: [value, next offset]; a varint past 5 bytes is malformed. */
function readZigzag(bytes: Uint8Array, at: number, what: string): [number, number] {
  let v = 0;
  for (let k = 0; k < 5; k++) {
    if (at + k >= bytes.length) throw truncated(bytes, `${what} ends`);
    const b = bytes[at + k]!;
    v += (b & 0x7f) * 2 ** (7 * k);
    if ((b & 0x80) === 0) {
      if (v > 0xffffffff) break;
      return [(v >>> 1) ^ -(v & 1), at + k + 1];
    }
  }
  throw new CodecError(
    RegistryCode.REGISTRY_MESSAGE_INDEX_INVALID,
    `schema registry header: ${what} at byte ${at} is not a 32-bit varint; the value was not written in the Confluent wire format`,
    { offset: at },
  );
}

/** Reads the header; throws CodecError for a wrong magic byte, a truncated header or an index array that cannot be a path. */
export function readHeader(bytes: Uint8Array): RegistryHeader {
  if (bytes.length === 0) throw truncated(bytes, "the magic byte is missing");
  if (bytes[0] !== MAGIC_BYTE) {
    throw new CodecError(
      RegistryCode.REGISTRY_MAGIC_BYTE,
      `schema registry header: magic byte 0x${bytes[0]!.toString(16).padStart(2, "0")} at byte 0, expected 0x00; the value was not written by a Schema Registry serializer (read bare messages with serializer.fromBinary)`,
      { offset: 0 },
    );
  }
  if (bytes.length < ID_END) throw truncated(bytes, "the 4-byte schema id ends");
  const schemaId = ((bytes[1]! << 24) | (bytes[2]! << 16) | (bytes[3]! << 8) | bytes[4]!) >>> 0;
  const [count, afterCount] = readZigzag(bytes, ID_END, "the message-index count");
  if (count === 0) return { schemaId, messageIndexes: [0], bodyAt: afterCount };
  if (count < 0 || count > MAX_MESSAGE_INDEXES) {
    throw new CodecError(
      RegistryCode.REGISTRY_MESSAGE_INDEX_INVALID,
      `schema registry header: message-index count ${count} at byte ${ID_END} is outside 1..${MAX_MESSAGE_INDEXES}; the value was not written in the Confluent wire format`,
      { offset: ID_END },
    );
  }
  const indexes: number[] = [];
  let at = afterCount;
  for (let k = 0; k < count; k++) {
    const [index, next] = readZigzag(bytes, at, `message index ${k + 1} of ${count}`);
    if (index < 0) {
      throw new CodecError(
        RegistryCode.REGISTRY_MESSAGE_INDEX_INVALID,
        `schema registry header: message index ${index} at byte ${at} is negative; the value was not written in the Confluent wire format`,
        { offset: at },
      );
    }
    indexes.push(index);
    at = next;
  }
  return { schemaId, messageIndexes: indexes, bodyAt: at };
}
