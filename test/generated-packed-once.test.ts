// The generated kind writes a packed list of 32-bit varints (int32, uint32, sint32, enum) from the
// protobuf-es array itself: each element is read once, checked and written in one pass, with no
// checked copy first (src/codec/field-writer.ts varintRun). Its bytes are protobuf-es'
// toBinary bytes at every boundary (values at each varint width, run lengths around a second
// length byte, lists that grow the output buffer), and an element it cannot write as it is (a
// fraction, out of range, a string, a bigint, a hole) leaves nothing of the run behind: the
// refusal is the conversion path's error, the same as DynamicMessage.create's for that value; an
// enum name, which create converts, has the run written again from its start.
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { DynamicMessage, FrameWriter, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";
import { thrown } from "./support/thrown.js";

const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
const gen = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();

type Field = "rInt32" | "rUint32" | "rSint32" | "rEnum";

const I32 = [0, 1, -1, 127, 128, -128, 16_383, 16_384, 2 ** 21 - 1, 2 ** 21, 2 ** 28 - 1, 2 ** 28, 2 ** 31 - 1, -(2 ** 31), -0];
const U32 = [0, 1, 127, 128, 16_383, 16_384, 2 ** 21, 2 ** 28 - 1, 2 ** 28, 2 ** 31, 2 ** 32 - 1, -0];

// [field, proto name, every boundary value of its range]
const FIELDS: [Field, string, number[]][] = [
  ["rInt32", "r_int32", I32],
  ["rUint32", "r_uint32", U32],
  ["rSint32", "r_sint32", I32],
  ["rEnum", "r_enum", I32],
];

function valueOf(field: Field, list: unknown[], more: Record<string, unknown> = {}) {
  const v = create(AllTypesSchema, { fString: "before", ...more });
  (v as unknown as Record<string, unknown>)[field] = list;
  return v;
}

describe("bytes equal protobuf-es' toBinary", () => {
  test.each(FIELDS)("%s: each boundary value, alone and all together, in a nested message too", (field, _name, values) => {
    for (const list of [...values.map((x) => [x]), values]) {
      const v = valueOf(field, list, { fUint32: 7 });
      expect(gen.toBinary(v)).toEqual(toBinary(AllTypesSchema, v));
      const outer = create(AllTypesSchema, { recursive: v, children: [v, v] });
      expect(gen.toBinary(outer)).toEqual(toBinary(AllTypesSchema, outer));
    }
  });

  // A run's length is reserved as the size of its element count and moved when it needs more:
  // runs of 126..130 bytes of 1-byte elements, and of 10-byte elements (negative int32) around
  // 128 and 16,384 bytes.
  const RUNS: [string, number, number][] = [
    ...[126, 127, 128, 129, 130].map((n): [string, number, number] => [`${n} one-byte elements`, n, 5]),
    ...[12, 13, 1638, 1639].map((n): [string, number, number] => [`${n} ten-byte elements`, n, -5]),
    ["100,000 elements (the output grows)", 100_000, -(2 ** 31)],
  ];
  test.each(RUNS)("run length: %s", (_name, n, x) => {
    const v = valueOf("rInt32", new Array<number>(n).fill(x));
    const want = toBinary(AllTypesSchema, v);
    expect(Buffer.compare(gen.toBinary(v), want)).toBe(0);
    expect(Buffer.compare(gen.encodeAll([v, v]).subarray(0, gen.encode(v).length), gen.encode(v))).toBe(0);
  });

  test("an empty list writes nothing", () => {
    for (const [field] of FIELDS) expect(gen.toBinary(valueOf(field, []))).toEqual(toBinary(AllTypesSchema, create(AllTypesSchema, { fString: "before" })));
  });
});

describe("an element that is not a number of the type's range: the conversion path's error, nothing written", () => {
  // [field, element, where in the list]
  const BAD: [Field, unknown, number][] = [
    ["rInt32", 1.5, 0],
    ["rInt32", 2 ** 31, 2],
    ["rInt32", -(2 ** 31) - 1, 1],
    ["rInt32", Number.NaN, 2],
    ["rInt32", Infinity, 0],
    ["rInt32", "5", 1],
    ["rInt32", 5n, 2],
    ["rInt32", null, 1],
    ["rUint32", -1, 0],
    ["rUint32", 2 ** 32, 2],
    ["rUint32", 0.5, 1],
    ["rSint32", 2 ** 31, 1],
    ["rSint32", true, 0],
    ["rEnum", 1.5, 2],
    ["rEnum", 2 ** 31, 0],
  ];
  test.each(BAD)("%s holding %s at %i", (field, bad, at) => {
    const list: unknown[] = [3, field === "rUint32" ? 4 : -4, 300];
    list[at] = bad;
    const name = FIELDS.find((f) => f[0] === field)![1];
    const want = thrown(() => DynamicMessage.create(All, { [name]: list }));
    const e = thrown(() => gen.toBinary(valueOf(field, list)));
    // The same class and text, with the path rooted at the message.
    expect((e as Error).constructor).toBe((want as Error).constructor);
    expect((e as Error).message).toBe((want as Error).message);
    const w = new FrameWriter();
    const ok = valueOf(field, [1, 2]);
    gen.serialize(ok, w);
    const before = w.view().slice();
    expect(thrown(() => gen.serialize(valueOf(field, list), w))).toEqual(e);
    expect(w.view()).toEqual(before);
    expect(thrown(() => gen.encodeAll([ok, valueOf(field, list), ok]))).toEqual(e);
    // The next write is clean.
    expect(gen.toBinary(ok)).toEqual(toBinary(AllTypesSchema, ok));
  });

  test("a hole is refused as create refuses it", () => {
    const list = [1, 2, 3];
    delete list[1];
    const want = thrown(() => DynamicMessage.create(All, { r_int32: list }));
    expect((thrown(() => gen.toBinary(valueOf("rInt32", list))) as Error).message).toBe((want as Error).message);
  });
});

test("an enum name after numbers is converted: the run is written again from its start", () => {
  for (const at of [0, 1, 2]) {
    const list: unknown[] = [-5, 2 ** 30, 7];
    list[at] = "COLOR_MIN";
    const numbers = list.map((x) => (x === "COLOR_MIN" ? -(2 ** 31) : x)) as number[];
    const want = toBinary(AllTypesSchema, valueOf("rEnum", numbers, { recursive: valueOf("rEnum", numbers) }));
    expect(gen.toBinary(valueOf("rEnum", list, { recursive: valueOf("rEnum", list) }))).toEqual(want);
  }
});

// Room is made for 4,096 elements at a time: runs around each block edge, with an element that
// needs conversion in a later block (the run is rewound across blocks).
describe("runs across blocks of room", () => {
  const mixed = (n: number) => Array.from({ length: n }, (_, i) => (i % 7 === 0 ? -(i + 1) : i % 5 === 0 ? 2 ** 30 + i : i & 127));
  test.each([4095, 4096, 4097, 8191, 8192, 8193, 12_289])("%i elements", (n) => {
    const v = valueOf("rEnum", mixed(n));
    expect(Buffer.compare(gen.toBinary(v), toBinary(AllTypesSchema, v))).toBe(0);
    for (const at of [0, 4095, 4096, n - 1]) {
      if (at >= n) continue;
      const list: unknown[] = mixed(n);
      list[at] = "COLOR_MAX";
      const numbers = mixed(n);
      numbers[at] = 2 ** 31 - 1;
      expect(Buffer.compare(gen.toBinary(valueOf("rEnum", list)), toBinary(AllTypesSchema, valueOf("rEnum", numbers)))).toBe(0);
    }
  });
});

test("a typed array still takes the typed path", () => {
  const v = valueOf("rInt32", Int32Array.of(1, -2, 2 ** 31 - 1) as unknown as number[]);
  expect(gen.toBinary(v)).toEqual(toBinary(AllTypesSchema, create(AllTypesSchema, { fString: "before", rInt32: [1, -2, 2 ** 31 - 1] })));
});
