// Decimal text for 64-bit fields of any length (ProtoJSON numbers and strings, map keys, create's
// strings): past 20 significant digits the value is outside every 64-bit range and is refused
// without converting the text (BigInt() of a million digits took 113 ms, of ten million seconds),
// with the same error as any other out-of-range value; leading zeros do not count ("01" is read).
import { describe, expect, test } from "vitest";
import { decimalBigInt } from "../src/message/coerce.js";
import { CodecError, DynamicMessage, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";

const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const INT64 = "int64 in -9223372036854775808..9223372036854775807";
const UINT64 = "uint64 in 0..18446744073709551615";

describe("decimalBigInt", () => {
  test.each<[string, bigint]>([
    ["0", 0n],
    ["-0", 0n],
    ["18446744073709551615", 2n ** 64n - 1n],
    ["99999999999999999999", 99999999999999999999n], // 20 digits: converted, the caller judges it
    ["-99999999999999999999", -99999999999999999999n],
    [`${"0".repeat(100_000)}9223372036854775807`, 2n ** 63n - 1n],
    [`-${"0".repeat(100_000)}1`, -1n],
    ["100000000000000000000", 2n ** 64n], // 21 digits: stands as 2^64
    ["-100000000000000000000", -(2n ** 64n)],
    ["1".repeat(1_000_000), 2n ** 64n],
  ])("%#: the text's value, or ±2^64 past 20 significant digits", (text, value) => {
    expect(decimalBigInt(text)).toBe(value);
  });
});

function jsonError(text: string): string {
  try {
    ser.fromJsonString(text);
  } catch (e) {
    if (e instanceof CodecError) return `${e.code}: ${e.message}`;
    throw e;
  }
  throw new Error("accepted");
}

/** How a JSON error shows a long string: its first 40 characters. */
const head = (digits: string) => `"${digits.slice(0, 40)}…"`;

describe("ProtoJSON", () => {
  const million = "7".repeat(1_000_000);
  test.each<[string, string, string]>([
    ["an int64 number of a million digits", `{"fInt64": ${million}}`, `f_int64(3) expects ${INT64}, got number 7777777777777777`],
    ["an int64 string of a million digits", `{"fInt64": "${million}"}`, `f_int64(3) expects ${INT64}, got string ${head(million)}`],
    ["a negative uint64 string of a million digits", `{"fUint64": "-${million}"}`, `f_uint64(4) expects ${UINT64}, got string ${head(`-${million}`)}`],
    ["a 64-bit map key of a million digits", `{"mInt64": {"${million}": "x"}}`, `m_int64(82)`],
  ])("%s is JSON_INVALID_VALUE", (_name, text, part) => {
    const e = jsonError(text);
    expect(e).toMatch(/^JSON_INVALID_VALUE: cannot read alltypes\.AllTypes from JSON: alltypes\.AllTypes\./);
    expect(e).toContain(part);
    expect(e.length).toBeLessThan(1200);
  });

  test.each<[string, string, bigint]>([
    ["int64 max after 100,000 leading zeros, as a string", `{"fInt64": "${"0".repeat(100_000)}9223372036854775807"}`, 2n ** 63n - 1n],
    ["uint64 max as a number", '{"fUint64": 18446744073709551615}', 2n ** 64n - 1n],
    ["int64 min as a number", '{"fInt64": -9223372036854775808}', -(2n ** 63n)],
  ])("%s reads", (_name, text, value) => {
    const v = ser.fromJsonString(text);
    expect(v.get(text.includes("fUint64") ? "f_uint64" : "f_int64")).toBe(value);
  });

  test.each([
    ['{"fUint64": 18446744073709551616}', UINT64],
    ['{"fInt64": "-9223372036854775809"}', INT64],
    ['{"fUint64": "100000000000000000000"}', UINT64],
  ])("%s, just outside, is refused as before", (text, range) => {
    expect(jsonError(text)).toContain(`expects ${range}`);
  });
});

describe("DynamicMessage.create", () => {
  const million = "3".repeat(1_000_000);
  test("a 64-bit decimal string of a million digits (jstype = JS_STRING) is a RangeError naming the range", () => {
    expect(() => DynamicMessage.create(All, { js_string_int64: million })).toThrow(RangeError);
    expect(() => DynamicMessage.create(All, { js_string_uint64s: ["1", million] })).toThrow(RangeError);
    expect(DynamicMessage.create(All, { js_string_int64: `-${"0".repeat(100_000)}42` }).get("js_string_int64")).toBe("-42");
  });

  test("a 64-bit map key of a million digits is a RangeError; in range after leading zeros it reads", () => {
    expect(() => DynamicMessage.create(All, { m_uint64: { [million]: "x" } })).toThrow(RangeError);
    const v = DynamicMessage.create(All, { m_uint64: { [`${"0".repeat(100_000)}18446744073709551615`]: "x" } });
    expect([...(v.get("m_uint64") as Map<bigint, string>).keys()]).toEqual([2n ** 64n - 1n]);
  });
});
