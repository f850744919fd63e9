import { describe, expect, test } from "vitest";
import { sha256 } from "@noble/hashes/sha2";
import { ProtobufType, readSnapshot, writeSnapshot } from "../src/index.js";
import { ProtobufDynamicSerializerSnapshot } from "../src/snapshot/dynamic.js";
import { messageFromDir } from "./support/buf.js";
import { assemble, crc32cReference, defaultFields, snapshotError, withCheck, type SnapshotFields } from "./support/snapshot-bytes.js";

// The normalized set of the v1 schema, as a ProtobufType records it.
const SET = ProtobufType.of(messageFromDir("fixtures/snapshot/v1", "acme.Order")).normalizedDescriptorSet();
const L = SET.length;
// Fixed offsets of the envelope and the dynamic payload for the root name "acme.Order" (10 bytes).
const AT = {
  envelopeVersion: 4,
  classNameLength: 5,
  className: 7,
  version: 50,
  framing: 54,
  normalization: 55,
  maxMessageBytes: 56,
  maxDepth: 60,
  deterministic: 64,
  aliasThreshold: 65,
  nameLength: 69,
  name: 71,
  setLength: 81,
  set: 85,
  fingerprint: 85 + L,
  check: 85 + L + 32,
  end: 85 + L + 32 + 4,
};

const valid = (over: Partial<SnapshotFields> = {}): Uint8Array =>
  assemble({ ...defaultFields("acme.Order", SET), ...over });
const flip = (bytes: Uint8Array, at: number, mask: number): Uint8Array => {
  const out = bytes.slice();
  out[at]! ^= mask;
  return out;
};
/** The first `n` bytes of a valid snapshot, with a fresh integrity check: a cut that the check does not catch. */
const cut = (n: number, over: Partial<SnapshotFields> = {}): Uint8Array => withCheck(valid(over).subarray(0, n));

const formatError = snapshotError;

/** A FileDescriptorSet whose first message nests `depth` levels deep (hostile input). */
function deeplyNestedSet(depth: number): Uint8Array {
  const tagged = (field: number, body: number[]): number[] => {
    const out = [(field << 3) | 2];
    let n = body.length;
    while (n > 0x7f) {
      out.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    out.push(n);
    return out.concat(body);
  };
  let msg = tagged(1, [...new TextEncoder().encode("M")]); // DescriptorProto.name
  for (let i = 0; i < depth; i++) msg = tagged(1, [0x4d]).concat(tagged(3, msg)); // nested_type = 3
  const file = tagged(4, msg); // FileDescriptorProto.message_type = 4
  return Uint8Array.from(tagged(1, file)); // FileDescriptorSet.file = 1
}

describe("snapshot format", () => {
  test("a hand-assembled valid snapshot reads and writes back byte for byte", () => {
    const bytes = valid({ maxMessageBytes: 4096, maxDepth: 7, deterministic: 1, aliasThreshold: 512 });
    const snap = readSnapshot(bytes) as ProtobufDynamicSerializerSnapshot;
    expect(snap).toBeInstanceOf(ProtobufDynamicSerializerSnapshot);
    expect(snap.className).toBe("protokeel.ProtobufDynamicSerializerSnapshot");
    expect(snap.version).toBe(1);
    expect(snap.framingVersion).toBe(1);
    expect(snap.normalizationVersion).toBe(1);
    expect(snap.fullName).toBe("acme.Order");
    expect(snap.settings).toEqual({ maxMessageBytes: 4096, maxDepth: 7, deterministic: true, aliasThreshold: 512 });
    expect(snap.normalizedDescriptorSet()).toEqual(SET);
    expect(snap.fingerprint).toBe(Buffer.from(sha256(SET)).toString("hex"));
    expect(writeSnapshot(snap)).toEqual(bytes);
  });

  test("writing a snapshot made from parts gives the documented layout", () => {
    const snap = new ProtobufDynamicSerializerSnapshot({
      settings: { maxMessageBytes: 67_108_864, maxDepth: 100, deterministic: false, aliasThreshold: 0 },
      fullName: "acme.Order",
      normalizedDescriptorSet: SET,
    });
    expect(writeSnapshot(snap)).toEqual(valid());
    expect(AT.end).toBe(valid().length);
  });

  test("the last 4 bytes are the CRC-32C of every byte before them, big-endian", () => {
    expect(crc32cReference(new TextEncoder().encode("123456789"))).toBe(0xe3069283);
    const bytes = valid();
    const check = new DataView(bytes.buffer, bytes.byteOffset).getUint32(AT.check);
    expect(check).toBe(crc32cReference(bytes.subarray(0, AT.check)));
  });

  test("reads from a Buffer and from a view at a non-zero offset", () => {
    const bytes = valid();
    const padded = new Uint8Array(bytes.length + 7);
    padded.set(bytes, 3);
    expect(readSnapshot(padded.subarray(3, 3 + bytes.length)).className).toBe(
      "protokeel.ProtobufDynamicSerializerSnapshot",
    );
    expect(writeSnapshot(readSnapshot(Buffer.from(bytes)))).toEqual(bytes);
  });

  test("the snapshot keeps its own copy of the descriptor set", () => {
    const bytes = valid();
    const snap = readSnapshot(bytes) as ProtobufDynamicSerializerSnapshot;
    bytes.fill(0);
    snap.normalizedDescriptorSet().fill(0);
    expect(snap.normalizedDescriptorSet()).toEqual(SET);
  });

  test.each<[string, () => Uint8Array, string, number]>([
    ["empty input", () => new Uint8Array(0), "SNAPSHOT_TRUNCATED", 0],
    ["three bytes", () => valid().subarray(0, 3), "SNAPSHOT_TRUNCATED", 0],
    ["wrong magic", () => valid({ magic: Uint8Array.of(0x50, 0x4b, 0x53, 0x54) }), "SNAPSHOT_BAD_MAGIC", 0],
    ["envelope version 0", () => valid({ envelopeVersion: 0 }), "SNAPSHOT_UNSUPPORTED_ENVELOPE_VERSION", AT.envelopeVersion],
    ["envelope version 2", () => valid({ envelopeVersion: 2 }), "SNAPSHOT_UNSUPPORTED_ENVELOPE_VERSION", AT.envelopeVersion],
    ["no integrity check", () => valid().subarray(0, 6), "SNAPSHOT_TRUNCATED", AT.classNameLength],
    ["no class name length", () => cut(6), "SNAPSHOT_TRUNCATED", AT.classNameLength],
    ["class name past the end", () => cut(60, { classNameLength: 0xffff }), "SNAPSHOT_TRUNCATED", AT.className],
    ["unknown class", () => valid({ className: "acme.Other" }), "SNAPSHOT_UNKNOWN_CLASS", AT.classNameLength],
    ["empty class name", () => valid({ className: "" }), "SNAPSHOT_UNKNOWN_CLASS", AT.classNameLength],
    ["class name not UTF-8", () => valid({ className: Uint8Array.of(0xc3, 0x28) }), "SNAPSHOT_INVALID_UTF8", AT.className],
    ["snapshot version 0", () => valid({ version: 0 }), "SNAPSHOT_UNSUPPORTED_VERSION", AT.version],
    ["snapshot version 2", () => valid({ version: 2 }), "SNAPSHOT_UNSUPPORTED_VERSION", AT.version],
    ["snapshot version 2^32-1", () => valid({ version: 0xffffffff }), "SNAPSHOT_UNSUPPORTED_VERSION", AT.version],
    ["framing version 2", () => valid({ framing: 2 }), "SNAPSHOT_UNSUPPORTED_FRAMING_VERSION", AT.framing],
    ["normalization version 0", () => valid({ normalization: 0 }), "SNAPSHOT_UNSUPPORTED_NORMALIZATION_VERSION", AT.normalization],
    ["maxMessageBytes 0", () => valid({ maxMessageBytes: 0 }), "SNAPSHOT_SETTING_OUT_OF_RANGE", AT.maxMessageBytes],
    ["maxMessageBytes 2^31", () => valid({ maxMessageBytes: 2 ** 31 }), "SNAPSHOT_SETTING_OUT_OF_RANGE", AT.maxMessageBytes],
    ["maxDepth 0", () => valid({ maxDepth: 0 }), "SNAPSHOT_SETTING_OUT_OF_RANGE", AT.maxDepth],
    ["maxDepth 10001", () => valid({ maxDepth: 10_001 }), "SNAPSHOT_SETTING_OUT_OF_RANGE", AT.maxDepth],
    ["deterministic 2", () => valid({ deterministic: 2 }), "SNAPSHOT_SETTING_OUT_OF_RANGE", AT.deterministic],
    [
      "aliasThreshold above maxMessageBytes",
      () => valid({ maxMessageBytes: 100, aliasThreshold: 101 }),
      "SNAPSHOT_SETTING_OUT_OF_RANGE",
      AT.aliasThreshold,
    ],
    ["settings cut short", () => cut(AT.maxDepth + 2), "SNAPSHOT_TRUNCATED", AT.maxDepth],
    ["empty root name", () => valid({ fullName: "", setLength: L }), "SNAPSHOT_EMPTY_NAME", AT.nameLength],
    ["root name not UTF-8", () => valid({ fullName: Uint8Array.of(0x61, 0xff) }), "SNAPSHOT_INVALID_UTF8", AT.name],
    ["set length 0", () => valid({ setLength: 0 }), "SNAPSHOT_SET_LENGTH_OUT_OF_RANGE", AT.setLength],
    ["set length 64 MiB + 1", () => valid({ setLength: 64 * 1024 * 1024 + 1 }), "SNAPSHOT_SET_LENGTH_OUT_OF_RANGE", AT.setLength],
    ["set length 2^32-1", () => valid({ setLength: 0xffffffff }), "SNAPSHOT_SET_LENGTH_OUT_OF_RANGE", AT.setLength],
    ["set length 64 MiB past the input", () => valid({ setLength: 64 * 1024 * 1024 }), "SNAPSHOT_TRUNCATED", AT.set],
    ["set length one past the input", () => valid({ setLength: L + 33 }), "SNAPSHOT_TRUNCATED", AT.set],
    ["fingerprint cut short", () => cut(AT.check - 1), "SNAPSHOT_TRUNCATED", AT.fingerprint],
    ["fingerprint of other bytes", () => valid({ fingerprint: new Uint8Array(32) }), "SNAPSHOT_FINGERPRINT_MISMATCH", AT.fingerprint],
    [
      "set that is not a FileDescriptorSet (fingerprint recomputed)",
      () => valid({ set: Uint8Array.of(0x0a, 0x05, 0x01) }),
      "SNAPSHOT_SET_UNDECODABLE",
      AT.set,
    ],
    [
      "set nested past the decoder's recursion limit (fingerprint recomputed)",
      () => valid({ set: deeplyNestedSet(150) }),
      "SNAPSHOT_SET_UNDECODABLE",
      AT.set,
    ],
    ["root absent from the set", () => valid({ fullName: "acme.Missing" }), "SNAPSHOT_ROOT_NOT_FOUND", AT.set + 2],
    ["root name is the package", () => valid({ fullName: "acme" }), "SNAPSHOT_ROOT_NOT_FOUND", AT.set - 6],
    [
      "set declaring the root twice",
      () => valid({ set: Uint8Array.from([...SET, ...SET]) }),
      "SNAPSHOT_ROOT_AMBIGUOUS",
      AT.set,
    ],
    ["one trailing byte inside the check", () => valid({ trailing: Uint8Array.of(0) }), "SNAPSHOT_TRAILING_BYTES", AT.check],
    ["one byte after the check", () => Uint8Array.from([...valid(), 0]), "SNAPSHOT_CORRUPT", AT.end - 3],
    ["a second snapshot appended", () => Uint8Array.from([...valid(), ...valid()]), "SNAPSHOT_CORRUPT", 2 * AT.end - 4],
    ["the last byte cut", () => valid().subarray(0, AT.end - 1), "SNAPSHOT_CORRUPT", AT.end - 5],
    ["a wrong check", () => valid({ check: 0 }), "SNAPSHOT_CORRUPT", AT.check],
    // Before the check, this read as a snapshot with maxMessageBytes 1,140,850,688.
    ["a flipped settings bit", () => flip(valid(), AT.maxMessageBytes, 0x40), "SNAPSHOT_CORRUPT", AT.check],
  ])("%s", (_name, make, code, offset) => {
    const e = formatError(make());
    expect(e.name).toBe("SnapshotFormatError");
    expect(e.code).toBe(code);
    expect(e.offset).toBe(offset);
    expect(e.message).toMatch(new RegExp(`^invalid snapshot( of \\S+)? at byte ${offset}: `));
  });

  test.each<[string, () => Uint8Array, string]>([
    [
      "truncated",
      () => cut(AT.version + 2),
      "invalid snapshot at byte 50: the snapshot version needs 4 bytes but 2 remain; pass the complete snapshot bytes",
    ],
    [
      "corrupt",
      () => valid({ check: 0x01020304 }),
      `invalid snapshot at byte ${AT.check}: the bytes are corrupt: the CRC-32C of bytes 0..${AT.check - 1} is 0x${crc32cReference(valid().subarray(0, AT.check)).toString(16).padStart(8, "0")}, but the snapshot records 0x01020304; the snapshot was damaged, cut short or modified; restore it from an intact copy`,
    ],
    [
      "too short for the check",
      () => valid().subarray(0, 7),
      "invalid snapshot at byte 5: the integrity check needs 4 bytes but 2 remain; pass the complete snapshot bytes",
    ],
    [
      "bad magic",
      () => new TextEncoder().encode("PK\u0003\u0004 a zip file"),
      'invalid snapshot at byte 0: the bytes do not start with "PKSS"; pass bytes written by writeSnapshot',
    ],
    [
      "unknown class",
      () => valid({ className: "acme.Other" }),
      'invalid snapshot at byte 5: snapshot class "acme.Other" is unknown (known: protokeel.ProtobufDynamicSerializerSnapshot, protokeel.ProtobufGeneratedSerializerSnapshot); read it with the protokeel version that wrote it or a newer one',
    ],
    [
      "unsupported version",
      () => valid({ version: 2 }),
      "invalid snapshot at byte 50: protokeel.ProtobufDynamicSerializerSnapshot version 2 is not supported (this version of protokeel reads version 1); read it with the protokeel version that wrote it or a newer one",
    ],
    [
      "setting out of range",
      () => valid({ maxDepth: 0 }),
      "invalid snapshot at byte 60: setting maxDepth is 0, outside 1..10000; the snapshot was corrupted or modified; restore it from an intact copy",
    ],
    [
      "set length over the limit",
      () => valid({ setLength: 64 * 1024 * 1024 + 1 }),
      "invalid snapshot of acme.Order at byte 81: the descriptor set length is 67108865, outside 1..67108864; the snapshot was corrupted or modified; restore it from an intact copy",
    ],
    [
      "root not found",
      () => valid({ fullName: "acme.Missing" }),
      "invalid snapshot of acme.Missing at byte 87: the descriptor set does not declare acme.Missing; the snapshot was corrupted or modified; restore it from an intact copy",
    ],
    [
      "root twice",
      () => valid({ set: Uint8Array.from([...SET, ...SET]) }),
      "invalid snapshot of acme.Order at byte 85: the descriptor set declares acme.Order 2 times (2 as a message); the root must resolve exactly once; the snapshot was corrupted or modified; restore it from an intact copy",
    ],
    [
      "trailing bytes",
      () => valid({ trailing: Uint8Array.of(1, 2) }),
      `invalid snapshot of acme.Order at byte ${AT.check}: 2 bytes follow the end of the snapshot; pass exactly the bytes written by writeSnapshot`,
    ],
  ])("message: %s", (_name, make, message) => {
    expect(formatError(make()).message).toBe(message);
  });

  test("a fingerprint mismatch names both digests", () => {
    const e = formatError(valid({ fingerprint: new Uint8Array(32) }));
    expect(e.message).toBe(
      `invalid snapshot of acme.Order at byte ${AT.fingerprint}: the SHA-256 of the descriptor set (${Buffer.from(sha256(SET)).toString("hex")}) differs from the recorded fingerprint (${"00".repeat(32)}); the snapshot was corrupted or modified; restore it from an intact copy`,
    );
  });

  test("errors are JSON-safe and carry the offset", () => {
    expect(JSON.parse(JSON.stringify(formatError(valid({ framing: 9 }))))).toEqual({
      name: "SnapshotFormatError",
      code: "SNAPSHOT_UNSUPPORTED_FRAMING_VERSION",
      message:
        "invalid snapshot at byte 54: framing version 9 is not supported (supported: 1); read it with the protokeel version that wrote it or a newer one",
      offset: 54,
    });
  });

  test.each([[null], [undefined], ["PKSS"], [[0x50, 0x4b, 0x53, 0x53]], [new ArrayBuffer(4)]])(
    "readSnapshot(%o) is a TypeError",
    (input) => {
      expect(() => readSnapshot(input as unknown as Uint8Array)).toThrow(TypeError);
    },
  );

  test.each([[null], [{}], [{ className: "acme.Other", version: 1, writePayload() {} }]])(
    "writeSnapshot(%o) is a TypeError",
    (input) => {
      expect(() => writeSnapshot(input as never)).toThrow(
        new TypeError("writeSnapshot expects a snapshot from serializer.snapshotConfiguration() or readSnapshot()"),
      );
    },
  );
});
