// Assembles snapshot bytes field by field (docs/design.md §10), so tests can make exact corruptions.
import { sha256 } from "@noble/hashes/sha2";
import { SnapshotFormatError, readSnapshot } from "../../src/index.js";

export const CLASS_NAME = "protokeel.ProtobufDynamicSerializerSnapshot";

export interface SnapshotFields {
  magic: Uint8Array;
  envelopeVersion: number;
  /** Raw class-name bytes (a string is UTF-8 encoded). */
  className: string | Uint8Array;
  /** Overrides the u16 class-name length. */
  classNameLength?: number;
  version: number;
  framing: number;
  normalization: number;
  maxMessageBytes: number;
  maxDepth: number;
  deterministic: number;
  aliasThreshold: number;
  fullName: string | Uint8Array;
  set: Uint8Array;
  /** Overrides the u32 set length. */
  setLength?: number;
  /** Defaults to the SHA-256 of `set`. */
  fingerprint?: Uint8Array;
  /** Bytes after the fingerprint, inside the checked bytes. */
  trailing: Uint8Array;
  /** Overrides the integrity check, which defaults to the CRC-32C of everything before it. */
  check?: number;
}

export function defaultFields(fullName: string, set: Uint8Array): SnapshotFields {
  return {
    magic: new TextEncoder().encode("PKSS"),
    envelopeVersion: 1,
    className: CLASS_NAME,
    version: 1,
    framing: 1,
    normalization: 1,
    maxMessageBytes: 67_108_864,
    maxDepth: 100,
    deterministic: 0,
    aliasThreshold: 0,
    fullName,
    set,
    trailing: new Uint8Array(0),
  };
}

const utf8 = (s: string | Uint8Array): Uint8Array => (typeof s === "string" ? new TextEncoder().encode(s) : s);

function u16(v: number): number[] {
  return [(v >>> 8) & 0xff, v & 0xff];
}

function u32(v: number): number[] {
  return [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];
}

export function assemble(f: SnapshotFields): Uint8Array {
  const cls = utf8(f.className);
  const name = utf8(f.fullName);
  const parts: number[] = [
    ...f.magic,
    f.envelopeVersion,
    ...u16(f.classNameLength ?? cls.length),
    ...cls,
    ...u32(f.version),
    f.framing,
    f.normalization,
    ...u32(f.maxMessageBytes),
    ...u32(f.maxDepth),
    f.deterministic,
    ...u32(f.aliasThreshold),
    ...u16(name.length),
    ...name,
    ...u32(f.setLength ?? f.set.length),
    ...f.set,
    ...(f.fingerprint ?? sha256(f.set)),
    ...f.trailing,
  ];
  return withCheck(Uint8Array.from(parts), f.check);
}

/**
 * CRC-32C bit by bit, written apart from the package's table-driven one, so the format tests
 * check the package against the definition (polynomial 0x1edc6f41, reflected 0x82f63b78).
 */
export function crc32cReference(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** `body` followed by a 4-byte big-endian check: `check`, or the CRC-32C of `body`. */
export function withCheck(body: Uint8Array, check = crc32cReference(body)): Uint8Array {
  return Uint8Array.from([...body, ...u32(check)]);
}

/** The SnapshotFormatError of `bytes`; fails when readSnapshot accepts them or throws anything else. */
export function snapshotError(bytes: Uint8Array): SnapshotFormatError {
  try {
    readSnapshot(bytes);
  } catch (e) {
    if (e instanceof SnapshotFormatError) return e;
    throw e;
  }
  throw new Error("readSnapshot accepted the bytes");
}
