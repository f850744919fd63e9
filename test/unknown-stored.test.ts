// Decoded unknown fields are kept as ranges (StoredUnknown: a store, an offset, a length) and
// viewed only when the application reads their bytes; writers and the write-side checks read the
// ranges. An entry of `{ number, data }` with a view per occurrence cost 156 bytes of heap for a
// 2-byte unknown field (78x its input): 64 MiB of them, one message within the default
// maxMessageBytes and valid for any schema, exhausted Node's heap and killed the process.
// Ranges come from three places, by input size (src/codec/read-plan.ts, unknownOf): the decoder's
// source copy (inputs up to 64 KiB; pieces over 4 KiB of inputs up to 256 KiB), a read-arena
// chunk (smaller pieces of larger inputs), or a buffer of their own (pieces over 4 KiB of inputs
// over 256 KiB). Each is checked around those sizes and around the 32-byte copy loop.
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { ProtobufType, type DynamicMessage } from "../src/index.js";
import { compileProtoDir } from "./support/buf.js";
import { fullGc, retainedBy } from "./support/heap.js";
import { varint } from "./support/wire-scramble.js";

const fds = compileProtoDir("fixtures/all-types");
const first = createFileRegistry(fromBinary(FileDescriptorSetSchema, fds)).getMessage("alltypes.AllTypes")!;
const second = createFileRegistry(fromBinary(FileDescriptorSetSchema, fds)).getMessage("alltypes.AllTypes")!;
const big = { maxMessageBytes: 1 << 28 };
const reader = ProtobufType.newBuilder(first).maxMessageBytes(big.maxMessageBytes).build().createSerializer();
const other = ProtobufType.newBuilder(second).maxMessageBytes(big.maxMessageBytes).build().createSerializer();
const otherDet = ProtobufType.newBuilder(second).maxMessageBytes(big.maxMessageBytes).deterministic(true).build().createSerializer();

const NUM = 9999; // not declared by alltypes.AllTypes

/** A length-delimited occurrence of field NUM of `total` bytes in all (tag 3 + length + payload), payload bytes = seed + i. */
function occurrence(total: number, seed: number): Uint8Array {
  const tag = varint((NUM << 3) | 2);
  let lenBytes = 1;
  while (total - tag.length - lenBytes >= 128 ** lenBytes) lenBytes++;
  const head = [...tag, ...varint(total - tag.length - lenBytes)];
  const out = new Uint8Array(total);
  out.set(head);
  for (let p = head.length, i = 0; p < total; p++, i++) out[p] = (seed + i) & 0xff;
  return out;
}

/** `f_int32 = 1`, then the occurrences, then filler unknown fields (field 9998, varint) up to `inputBytes`. */
function message(occs: Uint8Array[], inputBytes: number): Uint8Array {
  const head = [0x28, 0x01];
  const used = head.length + occs.reduce((s, o) => s + o.length, 0);
  const filler = Math.max(0, inputBytes - used);
  const fillerUnit = [...varint((NUM - 1) << 3), 0x00]; // field 9998, varint 0
  const out = new Uint8Array(used + filler - (filler % 4));
  out.set(head);
  let p = head.length;
  for (const o of occs) {
    out.set(o, p);
    p += o.length;
  }
  while (p + 4 <= out.length) {
    out.set(fillerUnit, p);
    p += 4;
  }
  return out;
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const SIZES = [5, 31, 32, 33, 100, 4096, 4097, 9000];
const INPUTS: [string, number][] = [
  ["an input under 64 KiB (cut from the source copy)", 0],
  ["an input of 64-256 KiB (small pieces to the arena, large ones cut)", 100_000],
  ["an input over 256 KiB (every piece copied)", 400_000],
];

describe.each(INPUTS)("decoded unknown fields of %s", (_name, inputBytes) => {
  const occs = SIZES.map((n, i) => occurrence(n, i * 7));
  const input = message(occs, inputBytes);

  test("read back as written, each view made once and kept", () => {
    const v = reader.fromBinary(input);
    const got = v.unknownFields.get(NUM)!;
    expect(got.map(hex)).toEqual(occs.map(hex));
    expect(v.unknownFields.get(NUM)![3]).toBe(got[3]);
    for (const d of got) expect(Object.getPrototypeOf(d)).toBe(Uint8Array.prototype);
  });

  test("written byte for byte by the same instance, another instance and a deterministic one, before and after the bytes are viewed", () => {
    for (const view of [false, true]) {
      const v = reader.fromBinary(input);
      if (view) v.unknownFields.get(NUM);
      expect(hex(reader.toBinary(v))).toBe(hex(input));
      expect(hex(other.toBinary(v))).toBe(hex(input));
      expect(hex(otherDet.toBinary(v))).toBe(hex(input));
      expect(hex(other.encodeAll([v, v]))).toBe(hex(reader.encodeAll([v, v])));
    }
  });

  test("later decodes do not write where earlier values keep their unknown fields", () => {
    const kept = [reader.fromBinary(input), reader.fromBinary(input)];
    for (let i = 0; i < 20; i++) reader.fromBinary(message(SIZES.map((n, j) => occurrence(n, 100 + i + j)), inputBytes));
    for (const v of kept) {
      expect(v.unknownFields.get(NUM)!.map(hex)).toEqual(occs.map(hex));
      expect(hex(other.toBinary(v))).toBe(hex(input));
    }
  });

  test("values with the same unknown fields are equal, whether or not their bytes were viewed", () => {
    const a = reader.fromBinary(input);
    const b = reader.fromBinary(input);
    a.unknownFields.get(NUM);
    expect(a.equals(b)).toBe(true);
    expect(b.equals(reader.fromBinary(message(SIZES.map((n, i) => occurrence(n, i * 7 + 1)), inputBytes)))).toBe(false);
  });
});

describe("a merged sub-message keeps the unknown fields of every occurrence", () => {
  test("two occurrences of f_message, each with unknown fields, then written elsewhere", () => {
    const tag = (17 << 3) | 2; // f_message: alltypes.Leaf
    const part = (seed: number) => occurrence(40, seed);
    const body = (p: Uint8Array) => Uint8Array.from([...varint(tag), p.length, ...p]);
    const input = Uint8Array.from([...body(part(1)), ...body(part(2))]);
    const v = reader.fromBinary(input);
    const nested = v.get("f_message") as DynamicMessage;
    expect(nested.unknownFields.get(NUM)!.map(hex)).toEqual([hex(part(1)), hex(part(2))]);
    // Re-encoded, the merged value is one occurrence holding both; relayed, it reads back equal.
    expect(hex(otherDet.toBinary(v))).toBe(hex(body(Uint8Array.from([...part(1), ...part(2)]))));
    expect(reader.fromBinary(other.toBinary(v)).equals(v)).toBe(true);
  });
});

describe("heap per decoded unknown field", () => {
  test("2-byte unknown fields cost under 100 bytes of heap each (156 with a view per occurrence; 66 measured)", () => {
    const n = 200_000;
    const input = new Uint8Array(2 * n);
    for (let i = 0; i < n; i++) input[2 * i] = 0x38; // field 7, varint 0: undeclared by alltypes.Leaf
    const leaf = createFileRegistry(fromBinary(FileDescriptorSetSchema, fds)).getMessage("alltypes.Leaf")!;
    const plain = ProtobufType.of(leaf).createSerializer();
    const { value: v, bytes } = retainedBy(() => {
      const m = plain.fromBinary(input);
      m.get("name");
      return m;
    });
    expect(v.unknownFields.get(7)!.length).toBe(n);
    expect(bytes / n).toBeLessThan(100);
  });
});

describe("the decoder keeps nothing of a value after returning it", () => {
  test("a dropped value's unknown fields and nested values are collected before the next decode", async () => {
    // Large enough for the tape path (a lazy value, materialized by the tape reader).
    const leafBody = [...occurrence(40, 3), 0x0a, 0x01, 0x61];
    const input = Uint8Array.from([0x8a, 0x01, leafBody.length, ...leafBody, ...message([occurrence(40, 5)], 200_000)]);
    const refs = (() => {
      const v = reader.fromBinary(input);
      const nested = v.get("f_message") as DynamicMessage;
      expect(nested.get("name")).toBe("a");
      // _unknown: the stored occurrences (internal), what the decoder built
      return [new WeakRef(nested), new WeakRef((v as unknown as { _unknown: object })._unknown)];
    })();
    // WeakRef targets stay alive until the job that made the refs ends.
    await new Promise((r) => setTimeout(r, 0));
    fullGc();
    expect(refs.map((r) => r.deref() === undefined)).toEqual([true, true]);
  });
});
