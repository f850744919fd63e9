// fromJson of parsed values (not text): a JavaScript number JSON text cannot hold (NaN, ±Infinity)
// in every numeric field shape. Integer fields refuse each with JSON_INVALID_VALUE, as
// @bufbuild/protobuf's fromJson refuses them; NaN failed every range comparison and was stored in
// 32-bit fields, then written as a ten-byte varint of 0 (a repeated one threw INTERNAL_ERROR).
// Floating-point fields refuse them as numbers too (their JSON is the strings "NaN", "Infinity").
import { fromJson } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { CodecError, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { thrown } from "./support/thrown.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const HEAD = "cannot read alltypes.AllTypes from JSON: ";
const FIX = "; fix the value or read with the schema that wrote it";

/** [JSON field name, path of its value, the rule named] per field shape of a 32-bit integer kind. */
const INT32_FIELDS: [string, (v: number) => unknown, string, string][] = [
  ["fInt32", (v) => v, "alltypes.AllTypes.f_int32(5)", "int32"],
  ["fUint32", (v) => v, "alltypes.AllTypes.f_uint32(11)", "uint32"],
  ["fSint32", (v) => v, "alltypes.AllTypes.f_sint32(14)", "sint32"],
  ["fFixed32", (v) => v, "alltypes.AllTypes.f_fixed32(7)", "fixed32"],
  ["fSfixed32", (v) => v, "alltypes.AllTypes.f_sfixed32(12)", "sfixed32"],
  ["oInt32", (v) => v, "alltypes.AllTypes.o_int32(25)", "int32"],
  ["rInt32", (v) => [1, v, 2], "alltypes.AllTypes.r_int32(45)[1]", "int32"],
  ["uUint32", (v) => [v], "alltypes.AllTypes.u_uint32(71)[0]", "uint32"],
  ["wktInt32", (v) => v, "alltypes.AllTypes.wkt_int32(149)", "int32"],
  ["wktUint32", (v) => v, "alltypes.AllTypes.wkt_uint32(151)", "uint32"],
];

/** The CodecError `run` throws. */
function caught(run: () => unknown): CodecError {
  const e = thrown(run);
  expect(e).toBeInstanceOf(CodecError);
  return e as CodecError;
}

describe("fromJson of parsed numbers JSON cannot hold", () => {
  test.each(INT32_FIELDS.flatMap(([name, wrap, path, kind]) => [NaN, Infinity, -Infinity].map((v) => [name, v, wrap, path, kind] as const)))(
    "%s = %s is refused, as protobuf-es refuses it",
    (name, v, wrap, path, kind) => {
      const json = { [name]: wrap(v) };
      expect(() => fromJson(All, json as never)).toThrow();
      const e = caught(() => ser.fromJson(json));
      expect(e.code).toBe("JSON_INVALID_VALUE");
      expect(e.path).toBe(path);
      const rule = Number.isNaN(v) ? `an integer (${kind})` : `${kind} in ${kind.startsWith("u") || kind === "fixed32" ? "0..4294967295" : "-2147483648..2147483647"}`;
      expect(e.message).toBe(`${HEAD}${path} expects ${rule}, got number ${v}${FIX}`);
    },
  );

  test.each([
    ["fDouble", "alltypes.AllTypes.f_double(1)", "double"],
    ["fFloat", "alltypes.AllTypes.f_float(2)", "float"],
    ["rDouble", "alltypes.AllTypes.r_double(41)[0]", "double"],
  ] as const)("%s refuses NaN and infinities as numbers (their JSON is a string)", (name, path, kind) => {
    for (const v of [NaN, Infinity, -Infinity]) {
      const e = caught(() => ser.fromJson({ [name]: name.startsWith("r") ? [v] : v }));
      expect(e.code).toBe("JSON_INVALID_VALUE");
      expect(e.message).toBe(`${HEAD}${path} expects a finite ${kind} (write infinities and NaN as the strings "Infinity", "-Infinity", "NaN"), got number ${v}${FIX}`);
    }
  });

  test('"NaN" as a string is a double\'s NaN', () => {
    expect(ser.fromJson({ fDouble: "NaN" }).get("f_double")).toBeNaN();
  });

  test("a refused value leaves the serializer reading correctly", () => {
    expect(() => ser.fromJson({ fInt32: NaN })).toThrow(CodecError);
    expect(ser.toBinary(ser.fromJson({ fInt32: 5 }))).toEqual(new Uint8Array([0x28, 5]));
  });
});
