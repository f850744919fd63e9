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

function decodeBoth(bytes: Uint8Array): DynamicMessage {
  const ours = ser.fromBinary(bytes);
  // The reference: @bufbuild/protobuf's merge of the same input, compared through our encoding.
  const theirs = fromBinary(Outer, bytes);
  expect(ours.equals(ser.fromBinary(toBinary(Outer, theirs)))).toBe(true);
  return ours;
}

describe("merging repeated occurrences of a singular sub-message is linear and exact", () => {
  test("packed runs append across 100,000 occurrences", () => {
    const v = decodeBoth(repeat(inner([0x08, 0x01]), N));
    expect((v.get("inner") as DynamicMessage).get("xs")).toHaveLength(N);
  });

  test("map entries merge (a later key replaces, new keys add) across 100,000 occurrences", () => {
    const unit = [
      ...inner(ld(2, [...ld(1, utf8("k")), 0x10, 0x01])),
      ...inner(ld(2, [...ld(1, utf8("j")), 0x10, 0x02])),
    ];
    const v = decodeBoth(repeat(unit, N / 2));
    expect(Object.fromEntries((v.get("inner") as DynamicMessage).get("m") as Map<string, number>)).toEqual({ k: 1, j: 2 });
  });

  test("unknown fields inside the merged message accumulate in order", () => {
    const v = decodeBoth(repeat(inner([...tag(99, 0), 0x01]), N));
    expect((v.get("inner") as DynamicMessage).unknownFields.get(99)).toHaveLength(N);
  });

  test("a nested chain of merges (inner.deeper.deeper) stays linear", () => {
    const unit = inner(ld(4, ld(4, [0x08, 0x07])));
    const v = decodeBoth(repeat(unit, N));
    const d = ((v.get("inner") as DynamicMessage).get("deeper") as DynamicMessage).get("deeper") as DynamicMessage;
    expect(d.get("xs")).toHaveLength(N);
  });

  test("oneof members replace each other across occurrences; a message member merges", () => {
    const unit = [...inner(ld(6, [0x18, 0x01])), ...inner(ld(6, [0x08, 0x02])), ...inner(ld(5, utf8("s"))), ...inner(ld(6, [0x08, 0x03]))];
    const v = decodeBoth(Uint8Array.from(unit));
    const i = v.get("inner") as DynamicMessage;
    expect(i.whichOneof("pick")).toBe("b");
    // The string member came between, so `b` starts over: only xs = [3].
    expect((i.get("b") as DynamicMessage).get("xs")).toEqual([3]);
    expect(i.has("a")).toBe(false);
    const many = decodeBoth(repeat([...inner(ld(5, utf8("x"))), ...inner(ld(6, [0x08, 0x01]))], N / 2));
    const mi = many.get("inner") as DynamicMessage;
    expect(mi.whichOneof("pick")).toBe("b");
    expect((mi.get("b") as DynamicMessage).get("xs")).toEqual([1]);
  });

  test("a later explicit zero of an implicit field clears it; a later optional zero is kept", () => {
    const v = decodeBoth(Uint8Array.from([...inner([0x18, 0x05, 0x38, 0x05]), ...inner([0x18, 0x00, 0x38, 0x00])]));
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
