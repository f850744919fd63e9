// Assembles snapshot bytes field by field (DESIGN §10), so tests can make exact corruptions.
import { sha256 } from "@noble/hashes/sha2";

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
  trailing: Uint8Array;
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
  return Uint8Array.from(parts);
}
