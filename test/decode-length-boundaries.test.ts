// Lengths one below, at and one above the codec's internal thresholds, for data other than
// strings: the TypeScript reader's 256 B, the lazy decode and read-arena piece size (4 KiB), the
// mid-size piece (32 KiB), the one-byte length reserved for nested messages and packed runs
// (moved up past 127 and 16,383 bytes), and unknown fields around the same sizes. Every read path
// gives @bufbuild/protobuf's value, every write its bytes, a relay the input's bytes, and
// maxMessageBytes holds exactly: the size itself accepted, one byte less refused with nothing written.
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, FrameReader, FrameWriter, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { esContent, frame, hex } from "./support/differential.js";
import { concat, tag, varint } from "./support/wire-scramble.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.newBuilder(All).deterministic(true).build().createSerializer();

const piece = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 0xff);
/** Nested `k` levels deep through `recursive`. */
const chain = (k: number, inner: Record<string, unknown>): Record<string, unknown> => (k === 0 ? inner : { recursive: chain(k - 1, inner) });
/** n such that a bytes field of n bytes (1-byte tag) takes exactly `total` bytes. */
function payloadFor(total: number): number {
  for (let k = 1; k <= 3; k++) if (varint(total - 1 - k).length === k) return total - 1 - k;
  throw new Error(`no payload for ${total}`);
}

interface Case {
  name: string;
  /** protokeel init (proto names) and @bufbuild/protobuf init (local names) of the same content. */
  pk?: Record<string, unknown>;
  es?: Record<string, unknown>;
  /** Raw input (unknown fields), when there is no init. */
  raw?: Uint8Array;
}

const cases: Case[] = [];
// Whole message of 255/256/257 and 4095/4096/4097 bytes: one bytes field.
for (const total of [255, 256, 257, 4095, 4096, 4097]) {
  const b = piece(payloadFor(total));
  cases.push({ name: `message of ${total} B`, pk: { f_bytes: b }, es: { fBytes: b } });
}
// Pieces at the read arena's piece sizes, in every place a bytes value can be.
for (const n of [4095, 4096, 4097, 32767, 32768, 32769]) {
  const b = piece(n);
  cases.push({ name: `repeated bytes ${n} B`, pk: { r_bytes: [Uint8Array.of(1), b] }, es: { rBytes: [Uint8Array.of(1), b] } });
  cases.push({ name: `map value ${n} B`, pk: { mv_bytes: { k: b } }, es: { mvBytes: { k: b } } });
  cases.push({ name: `oneof bytes ${n} B`, pk: { c_bytes: b }, es: { choice: { case: "cBytes", value: b } } });
  cases.push({ name: `unknown ${n} B`, raw: concat([Uint8Array.from(tag(9999, 2)), Uint8Array.from(varint(n)), b]) });
}
// Sub-message bodies of 127/128 and 16383/16384 bytes, one and three levels down (reserved length moved up).
for (const body of [127, 128, 16383, 16384]) {
  const b = piece(payloadFor(body));
  for (const k of [1, 3]) cases.push({ name: `sub-message body ${body} B at depth ${k + 1}`, pk: chain(k, { f_bytes: b }), es: chain(k, { fBytes: b }) });
  cases.push({ name: `repeated message body ${body} B`, pk: { children: [{ f_bytes: b }, { f_int32: 1 }] }, es: { children: [{ fBytes: b }, { fInt32: 1 }] } });
}
// Packed runs of 2-byte varints of 126..130 and 16382..16386 bytes (length reserved for the element count).
for (const len of [126, 128, 130, 16382, 16384, 16386]) {
  const r = Array.from({ length: len / 2 }, (_, i) => 128 + i);
  cases.push({ name: `packed uint32 run of ${len} B`, pk: { recursive: { r_uint32: r } }, es: { recursive: { rUint32: r } } });
}

function inputOf(c: Case): Uint8Array {
  return c.raw ?? toBinary(All, create(All, c.es as never));
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof CodecError) return e.code;
    throw e;
  }
  return "none";
}

describe("lengths at internal thresholds", () => {
  test.each(cases.map((c) => [c.name, c] as const))("%s", (_, c) => {
    const B = inputOf(c);
    const F = frame(B);
    // The value protobuf-es decodes: the init it was written from, or (raw input) one unknown field.
    const want = c.pk !== undefined ? DynamicMessage.create(All, c.pk) : undefined;
    expect(esContent(All, B)).toBe(hex(B));
    // reads: value equal to protobuf-es's; relays: the input's bytes
    const reads: [string, DynamicMessage][] = [
      ["fromBinary", ser.fromBinary(B)],
      ["decode", ser.decode(F)],
      ["decodeAll", ser.decodeAll(concat([F, F]))[1]!],
      ["deserialize", ser.deserialize(new FrameReader(F))],
    ];
    for (const [path, v] of reads) {
      expect(hex(ser.toBinary(v)), `${path} relay`).toBe(hex(B));
      if (want !== undefined) expect(v.equals(want), `${path} value`).toBe(true);
      else expect([...v.unknownFields].map(([no, occ]) => [no, occ.map(hex)]), `${path} value`).toEqual([[9999, [hex(B)]]]);
    }
    expect(() => ser.validate(B)).not.toThrow();
    // writes from a fresh value: protobuf-es's bytes
    if (c.pk !== undefined) {
      expect(hex(ser.toBinary(c.pk))).toBe(hex(B));
      expect(hex(ser.encodeAll([c.pk, {}]))).toBe(hex(concat([F, Uint8Array.of(0)])));
      const fw = new FrameWriter(B.length);
      ser.serialize(c.pk, fw);
      expect(hex(fw.toUint8Array())).toBe(hex(F));
    }
    // maxMessageBytes exactly at the size, then one below
    const value = ser.fromBinary(B);
    const at = ProtobufType.newBuilder(All).deterministic(true).maxMessageBytes(B.length).build().createSerializer();
    expect(hex(at.toBinary(value))).toBe(hex(B));
    expect(hex(at.encode(c.pk ?? value))).toBe(hex(F));
    expect(hex(at.toBinary(at.fromBinary(B)))).toBe(hex(B));
    const below = ProtobufType.newBuilder(All).deterministic(true).maxMessageBytes(B.length - 1).build().createSerializer();
    expect(codeOf(() => below.fromBinary(B))).toBe("MESSAGE_TOO_LARGE");
    expect(codeOf(() => below.validate(B))).toBe("MESSAGE_TOO_LARGE");
    expect(codeOf(() => below.decode(F))).toBe("FRAME_TOO_LARGE");
    expect(codeOf(() => below.toBinary(value))).toBe("MESSAGE_TOO_LARGE");
    const fw = new FrameWriter(0);
    below.serialize({ f_int32: 1 }, fw);
    expect(codeOf(() => below.serialize(c.pk ?? value, fw))).toBe("MESSAGE_TOO_LARGE");
    expect(hex(fw.toUint8Array())).toBe("022801");
  });
});
