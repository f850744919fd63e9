// Packed runs of fixed-width elements (double, float, fixed32, sfixed32, fixed64, sfixed64) are
// written through a typed array once a run has 8 elements (wire.ts packedFixed): from a typed
// array by one copy, from a JS array by an assignment loop whatever the array's internal
// representation (V8 keeps an array that once held a non-number as generic elements, on which
// TypedArray.prototype.set is ~40x slower). Every form, on both sides of the 8-element
// threshold, must write exactly what @bufbuild/protobuf writes.
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** Special values of each element type, cycled to fill a run. */
const VALUES = {
  r_double: [-0, 0.1, NaN, Infinity, -Infinity, 5e-324, Number.MAX_VALUE, -1.5, 2 ** 53, 7],
  // float: values that round to float32 (0.1), the largest float, a float32 subnormal
  r_float: [-0, 0.1, NaN, Infinity, -Infinity, 1.401298464324817e-45, 3.4028234663852886e38, -1.5, 16777217, 7],
  r_fixed32: [0, 1, 4294967295, 2147483648, 255, 65536, 7, 3000000000],
  r_sfixed32: [0, -1, 2147483647, -2147483648, 255, -65536, 7],
  r_fixed64: [0n, 1n, 2n ** 64n - 1n, 2n ** 63n, 255n, 7n],
  r_sfixed64: [0n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 255n, -7n],
} as const;

const TYPED: Record<keyof typeof VALUES, (v: unknown[]) => ArrayLike<unknown>> = {
  r_double: (v) => Float64Array.from(v as number[]),
  r_float: (v) => Float32Array.from(v as number[]),
  r_fixed32: (v) => Uint32Array.from(v as number[]),
  r_sfixed32: (v) => Int32Array.from(v as number[]),
  r_fixed64: (v) => BigUint64Array.from(v as bigint[]),
  r_sfixed64: (v) => BigInt64Array.from(v as bigint[]),
};

function run(field: keyof typeof VALUES, n: number): unknown[] {
  const src = VALUES[field] as readonly unknown[];
  return Array.from({ length: n }, (_, i) => src[i % src.length]);
}

/** The same elements in an array V8 holds as generic elements (it held a string first). */
function generic(values: unknown[]): unknown[] {
  const a: unknown[] = ["not a number"];
  a.pop();
  for (const v of values) a.push(v);
  return a;
}

const FORMS: [string, (v: unknown[], field: keyof typeof VALUES) => ArrayLike<unknown>][] = [
  ["a plain array", (v) => v.slice()],
  ["an array of generic elements", (v) => generic(v)],
  ["a typed array", (v, field) => TYPED[field](v)],
];

const CASES = Object.keys(VALUES).flatMap((field) =>
  [1, 7, 8, 9, 64, 1000].flatMap((n) => FORMS.map(([form, make]) => ({ field: field as keyof typeof VALUES, n, form, make }))),
);

describe("packed fixed-width runs write what @bufbuild/protobuf writes", () => {
  test.each(CASES)("$field, $n elements, from $form", ({ field, n, make }) => {
    const values = run(field, n);
    const localName = All.fields.find((f) => f.name === field)!.localName;
    const expected = hex(toBinary(All, create(All, { [localName]: values })));
    // From a plain init object (written directly), and from a built value.
    expect(hex(ser.toBinary({ [field]: make(values, field) }))).toBe(expected);
    expect(hex(ser.toBinary(DynamicMessage.create(All, { [field]: make(values, field) })))).toBe(expected);
  });
});
