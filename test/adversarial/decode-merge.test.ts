// Hardening item 4: repeated occurrences of a singular sub-message field merge (protobuf's rule:
// as if the occurrences' fields were parsed in order). Merging copied the earlier value each time,
// so n occurrences cost O(n²): 20,000 occurrences of a 4-byte `inner { xs: 1 }` (80 KB) took
// 16-40 s. These inputs are 100,000 occurrences: linear, they decode in milliseconds.
import { create, createFileRegistry, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../../src/index.js";
import { compileProtoText } from "../support/buf.js";
import { ld, repeat, tag, utf8, varint } from "./support.js";

const set = compileProtoText({
  "merge.proto": `syntax = "proto3";
package adv;
message Inner {
  repeated int32 xs = 1;
  map<string, int32> m = 2;
  int32 n = 3;
  Inner deeper = 4;
  oneof pick { string a = 5; Inner b = 6; }
  optional int32 o = 7;
}
message Outer { Inner inner = 1; }`,
});
const reg = createFileRegistry(fromBinary(FileDescriptorSetSchema, set));
const Outer = reg.getMessage("adv.Outer") as DescMessage;
const ser = ProtobufType.newBuilder(Outer).maxMessageBytes(1 << 30).build().createSerializer();

const N = 100_000;
const inner = (payload: number[]): number[] => ld(1, payload);

// The inputs of the tests below, shared with the generated kind's.
const PACKED = repeat(inner([0x08, 0x01]), N);
const MAPS = repeat([...inner(ld(2, [...ld(1, utf8("k")), 0x10, 0x01])), ...inner(ld(2, [...ld(1, utf8("j")), 0x10, 0x02]))], N / 2);
const UNKNOWN = repeat(inner([...tag(99, 0), 0x01]), N);
const CHAIN = repeat(inner(ld(4, ld(4, [0x08, 0x07]))), N);
const ONEOF = Uint8Array.from([...inner(ld(6, [0x18, 0x01])), ...inner(ld(6, [0x08, 0x02])), ...inner(ld(5, utf8("s"))), ...inner(ld(6, [0x08, 0x03]))]);
const ONEOF_MANY = repeat([...inner(ld(5, utf8("x"))), ...inner(ld(6, [0x08, 0x01]))], N / 2);
const ZEROS = Uint8Array.from([...inner([0x18, 0x05, 0x38, 0x05]), ...inner([0x18, 0x00, 0x38, 0x00])]);

function decodeBoth(bytes: Uint8Array): DynamicMessage {
  const ours = ser.fromBinary(bytes);
  // The reference: @bufbuild/protobuf's merge of the same input, compared through our encoding.
  const theirs = fromBinary(Outer, bytes);
  expect(ours.equals(ser.fromBinary(toBinary(Outer, theirs)))).toBe(true);
  return ours;
}

describe("merging repeated occurrences of a singular sub-message is linear and exact", () => {
  test("packed runs append across 100,000 occurrences", () => {
    const v = decodeBoth(PACKED);
    expect((v.get("inner") as DynamicMessage).get("xs")).toHaveLength(N);
  });

  test("map entries merge (a later key replaces, new keys add) across 100,000 occurrences", () => {
    const v = decodeBoth(MAPS);
    expect(Object.fromEntries((v.get("inner") as DynamicMessage).get("m") as Map<string, number>)).toEqual({ k: 1, j: 2 });
  });

  test("unknown fields inside the merged message accumulate in order", () => {
    const v = decodeBoth(UNKNOWN);
    expect((v.get("inner") as DynamicMessage).unknownFields.get(99)).toHaveLength(N);
  });

  test("a nested chain of merges (inner.deeper.deeper) stays linear", () => {
    const v = decodeBoth(CHAIN);
    const d = ((v.get("inner") as DynamicMessage).get("deeper") as DynamicMessage).get("deeper") as DynamicMessage;
    expect(d.get("xs")).toHaveLength(N);
  });

  test("oneof members replace each other across occurrences; a message member merges", () => {
    const v = decodeBoth(ONEOF);
    const i = v.get("inner") as DynamicMessage;
    expect(i.whichOneof("pick")).toBe("b");
    // The string member came between, so `b` starts over: only xs = [3].
    expect((i.get("b") as DynamicMessage).get("xs")).toEqual([3]);
    expect(i.has("a")).toBe(false);
    const many = decodeBoth(ONEOF_MANY);
    const mi = many.get("inner") as DynamicMessage;
    expect(mi.whichOneof("pick")).toBe("b");
    expect((mi.get("b") as DynamicMessage).get("xs")).toEqual([1]);
  });

  test("a later explicit zero of an implicit field clears it; a later optional zero is kept", () => {
    const v = decodeBoth(ZEROS);
    const i = v.get("inner") as DynamicMessage;
    expect(i.has("n")).toBe(false);
    expect(i.has("o")).toBe(true);
    expect(i.get("o")).toBe(0);
  });

  test("the merged value is independent of the earlier occurrence's value (no shared arrays)", () => {
    const a = ser.fromBinary(Uint8Array.from(inner([0x08, 0x01])));
    const ab = ser.fromBinary(Uint8Array.from([...inner([0x08, 0x01]), ...inner([0x08, 0x02])]));
    expect((a.get("inner") as DynamicMessage).get("xs")).toEqual([1]);
    expect((ab.get("inner") as DynamicMessage).get("xs")).toEqual([1, 2]);
  });

  test("the same through decodeAll frames and deep lazy values", () => {
    const body = repeat(inner([0x08, 0x01]), 1000);
    const frame = Uint8Array.from([...varint(body.length), ...body]);
    const back = ser.decodeAll(repeat(frame, 20));
    expect(back).toHaveLength(20);
    for (const v of back) expect((v.get("inner") as DynamicMessage).get("xs")).toHaveLength(1000);
    expect(DynamicMessage.create(Outer, { inner: { xs: [1] } }).descriptor).toBe(Outer);
  });
});

describe("the generated kind merges the same occurrences as protobuf-es' fromBinary", () => {
  const gen = ProtobufType.newGeneratedBuilder(Outer).maxMessageBytes(1 << 30).build().createSerializer();
  type Inner = { xs: number[]; m: Record<string, number>; n: number; o?: number; deeper?: Inner; pick: { case?: string; value?: unknown }; $unknown?: unknown[] };
  const innerOf = (v: unknown) => (v as { inner: Inner }).inner;

  test.each([
    ["packed runs", PACKED],
    ["map entries", MAPS],
    ["unknown fields", UNKNOWN],
    ["a nested chain", CHAIN],
    ["oneof members", ONEOF],
    ["oneof members, 100,000 occurrences", ONEOF_MANY],
    ["explicit zeros", ZEROS],
  ])("%s: the value protobuf-es reads, written back as protobuf-es writes it", (_name, bytes) => {
    const v = gen.fromBinary(bytes);
    expect(v).toEqual(fromBinary(Outer, bytes));
    expect(Buffer.compare(gen.toBinary(v), toBinary(Outer, v))).toBe(0);
  });

  test("the merged values hold what the dynamic kind's do", () => {
    expect(innerOf(gen.fromBinary(PACKED)).xs).toHaveLength(N);
    expect(innerOf(gen.fromBinary(MAPS)).m).toEqual({ k: 1, j: 2 });
    expect(innerOf(gen.fromBinary(UNKNOWN)).$unknown).toHaveLength(N);
    expect(innerOf(gen.fromBinary(CHAIN)).deeper!.deeper!.xs).toHaveLength(N);
    expect(innerOf(gen.fromBinary(ONEOF)).pick).toEqual({ case: "b", value: expect.objectContaining({ xs: [3] }) });
    const z = innerOf(gen.fromBinary(ZEROS));
    expect([z.n, z.o]).toEqual([0, 0]);
  });

  test("the merged value is independent of the earlier occurrence's value (no shared arrays)", () => {
    const bytes = Uint8Array.from([...inner([0x08, 0x01]), ...inner([0x08, 0x02])]);
    const a = gen.fromBinary(bytes.subarray(0, 4));
    const ab = gen.fromBinary(bytes);
    expect([innerOf(a).xs, innerOf(ab).xs]).toEqual([[1], [1, 2]]);
    // Two frames of a batch are two values: the second merges nothing from the first.
    const [x, y] = gen.decodeAll(Uint8Array.from([4, ...bytes.subarray(0, 4), 4, ...bytes.subarray(4)]));
    expect([innerOf(x).xs, innerOf(y).xs]).toEqual([[1], [2]]);
  });

  test("the same through decodeAll frames", () => {
    const body = repeat(inner([0x08, 0x01]), 1000);
    const back = gen.decodeAll(repeat(Uint8Array.from([...varint(body.length), ...body]), 20));
    expect(back).toHaveLength(20);
    for (const v of back) expect(v).toEqual(fromBinary(Outer, body));
  });
});
