// Unknown fields in every form the reader accepts can be written by every writer, and the writer
// writes none that the reader refuses (src/codec/unknown.ts). protobuf allows non-minimal varints
// (up to 10 bytes) in tags, values and lengths; the reader accepts them and a decoded value keeps
// its unknown fields as read, so a serializer of another descriptor instance (a restored or
// upgraded schema, a registry, a pool), which checks unknown fields before writing, must accept
// them too. It used to refuse a tag or a length over 5 bytes ("the tag is longer than 32 bits")
// that it had just read, and it accepted a tenth varint byte over 1, which the reader refuses.
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../src/index.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";
import { compileProtoDir } from "./support/buf.js";

const fds = compileProtoDir("fixtures/all-types");
// Two registries of the same set: two descriptor instances of one schema.
const first = createFileRegistry(fromBinary(FileDescriptorSetSchema, fds)).getMessage("alltypes.AllTypes")!;
const second = createFileRegistry(fromBinary(FileDescriptorSetSchema, fds)).getMessage("alltypes.AllTypes")!;
const reader = ProtobufType.of(first).createSerializer();
const other = ProtobufType.of(second).createSerializer();
const otherDet = ProtobufType.newBuilder(second).deterministic(true).build().createSerializer();
const generated = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();

const NUM = 9999; // not declared by alltypes.AllTypes
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const bytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/ /g, ""), "hex"));

/** `v` as a varint padded to `n` bytes (non-minimal when n exceeds its minimal length). */
function padded(v: bigint, n: number): string {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const last = i === n - 1;
    out.push(Number(v & 0x7fn) | (last ? 0 : 0x80));
    v >>= 7n;
  }
  if (v !== 0n) throw new Error("does not fit");
  return hex(Uint8Array.from(out));
}

const tag = (wt: number, n: number) => padded(BigInt((NUM << 3) | wt), n);

// Well-formed occurrences: tags of 3 (minimal for field 9999) to 10 bytes, varints of 1 to 10 bytes (the largest
// value included), lengths of 1 to 10 bytes, fixed widths.
const VALID: [string, string][] = [
  ...[3, 4, 5, 6, 8, 10].map((n): [string, string] => [`tag in ${n} bytes, varint`, tag(0, n) + "05"]),
  ...[1, 2, 5, 6, 9, 10].map((n): [string, string] => [`varint 1 in ${n} bytes`, tag(0, 3) + padded(1n, n)]),
  ["varint 2^64 - 1", tag(0, 3) + "ffffffffffffffffff01"],
  ...[1, 2, 5, 6, 10].map((n): [string, string] => [`length 3 in ${n} bytes`, tag(2, 3) + padded(3n, n) + "616263"]),
  ["length 0 in 10 bytes", tag(2, 10) + padded(0n, 10)],
  ["fixed64 under a 7-byte tag", tag(1, 7) + "0102030405060708"],
  ["fixed32 under a 6-byte tag", tag(5, 6) + "01020304"],
];

describe("unknown fields the reader accepts are written by every writer", () => {
  test.each(VALID)("%s", (_name, h) => {
    const input = bytes("2801" + h); // f_int32 (5) = 1, then the unknown field
    const v = reader.fromBinary(input);
    expect(hex(v.unknownFields.get(NUM)![0]!)).toBe(h);
    // The same instance relays the bytes; another instance checks them first, then writes them as read.
    expect(hex(reader.toBinary(v))).toBe(hex(input));
    expect(hex(other.toBinary(v))).toBe(hex(input));
    expect(hex(other.encode(v))).toBe(hex(reader.encode(v)));
    expect(other.fromBinary(other.toBinary(v)).unknownFields.get(NUM)).toEqual(v.unknownFields.get(NUM));
    expect(hex(otherDet.toBinary(v))).toBe(hex(input));
    // The same field set on a value by hand is accepted as well.
    const built = DynamicMessage.create(second, { f_int32: 1 }).toBuilder().setUnknownFields(new Map([[NUM, [bytes(h)]]])).build();
    expect(hex(other.toBinary(built))).toBe(hex(input));
    // The generated kind reads it (protobuf-es keeps the payload apart from its tag) and writes it back.
    const g = generated.fromBinary(input);
    expect(generated.fromBinary(generated.toBinary(g))).toEqual(g);
  });
});

// Occurrences the reader refuses: the writer refuses them too, naming why.
const INVALID: [string, string, string][] = [
  ["a tag of 11 bytes", tag(0, 10).slice(0, -2) + "8000" + "05", "the tag is longer than 10 bytes"],
  ["a tag whose tenth byte overflows", tag(0, 10).slice(0, -2) + "02" + "05", "the tag overflows 64 bits"],
  ["a tag past 32 bits", padded((1n << 32n) | BigInt(NUM << 3), 5) + "05", "the tag's value exceeds 32 bits"],
  ["a varint of 11 bytes", tag(0, 3) + "8080808080808080808000", "the varint is longer than 10 bytes"],
  ["a varint whose tenth byte overflows", tag(0, 3) + "ffffffffffffffffff02", "the varint overflows 64 bits"],
  ["a truncated varint", tag(0, 3) + "80", "the varint is truncated"],
  ["a length of 11 bytes", tag(2, 3) + "8080808080808080808000", "the length is longer than 10 bytes"],
  ["a length whose tenth byte overflows", tag(2, 3) + "ffffffffffffffffff02", "the length overflows 64 bits"],
  ["a length past the end", tag(2, 3) + "8380808000" + "6162", "the payload is truncated"],
  ["a length of 2^63", tag(2, 3) + "80808080808080808001", "the payload is truncated"],
];

describe("unknown fields the reader refuses are refused by the writer", () => {
  test.each(INVALID)("%s", (_name, h, why) => {
    expect(() => reader.fromBinary(bytes(h))).toThrow(CodecError);
    const built = DynamicMessage.create(second, {}).toBuilder().setUnknownFields(new Map([[NUM, [bytes(h)]]])).build();
    let error: unknown;
    try {
      other.toBinary(built);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CodecError);
    expect((error as CodecError).code).toBe("UNKNOWN_FIELD_MALFORMED");
    expect((error as CodecError).message).toBe(
      `cannot write alltypes.AllTypes: unknown field ${NUM} at alltypes.AllTypes is not one well-formed encoded field: ${why}; each occurrence must be a tag followed by its payload`,
    );
  });
});

describe("writer check and reader agree", () => {
  // Byte strings built from varint-like runs around every boundary: a tag of field NUM with any
  // wire type, then payload bytes from the edge values.
  const edge = fc.constantFrom(0x00, 0x01, 0x02, 0x0f, 0x10, 0x7f, 0x80, 0x81, 0xff);
  const occurrence = fc
    .tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 2, max: 11 }), fc.array(edge, { maxLength: 14 }))
    .map(([wt, n, rest]) => {
      let t: string;
      try {
        t = tag(wt, Math.min(n, 10));
      } catch {
        t = tag(wt, 3);
      }
      if (n === 11) t = t.slice(0, -2) + "8000"; // an eleventh byte
      return bytes(t + hex(Uint8Array.from(rest)));
    });

  test("an occurrence is written exactly when the reader reads it as one unknown field", () => {
    fc.assert(
      fc.property(occurrence, (data) => {
        let read: Uint8Array | undefined;
        try {
          const got = reader.fromBinary(data).unknownFields.get(NUM);
          // One occurrence that is the whole input (not one followed by other fields).
          read = got !== undefined && got.length === 1 && hex(got[0]!) === hex(data) ? data : undefined;
        } catch (e) {
          if (!(e instanceof CodecError)) throw e;
        }
        const built = DynamicMessage.create(second, {}).toBuilder().setUnknownFields(new Map([[NUM, [data]]])).build();
        let written: Uint8Array | undefined;
        try {
          written = other.toBinary(built);
        } catch (e) {
          if (!(e instanceof CodecError) || e.code !== "UNKNOWN_FIELD_MALFORMED") throw e;
        }
        expect(written === undefined ? undefined : hex(written)).toBe(read === undefined ? undefined : hex(read));
      }),
      { numRuns: 3000, seed: 20261203 },
    );
  });
});
