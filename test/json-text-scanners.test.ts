// The ProtoJSON reader scans number, timestamp and duration texts with loops instead of regular
// expressions (V8 compiles a regular expression on first use and on tier-up, and compiled with
// little stack left it throws a SyntaxError of its own: test/adversarial/low-stack-no-regexp.test.ts).
// The regular expressions they replace are kept here as the oracle: each scanner must accept
// exactly what its expression matched and give the same parts.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { isJsonNumber, jsonNumberEnd, parseJsonText, JsonBigInteger } from "../src/json/parse.js";
import { parseDuration, parseTimestamp, snake } from "../src/json/wkt.js";

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const NUMBER_TEXT = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
const RFC3339 = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?(Z|[+-][0-9]{2}:[0-9]{2})$/;
const DURATION = /^(-)?([0-9]+)(?:\.([0-9]{1,9}))?s$/;

/** Where the sticky expression's match at i ends, or -1. */
function regexEnd(text: string, i: number): number {
  NUMBER.lastIndex = i;
  const m = NUMBER.exec(text);
  return m === null ? -1 : i + m[0].length;
}

// Texts made of the characters numbers, timestamps and durations are made of.
const NUMBERISH = fc.string({ unit: fc.constantFrom(..."0123456789-+.eE x"), maxLength: 14 });
const TIMEISH = fc.oneof(
  fc.string({ unit: fc.constantFrom(..."0123456789-+:.TZs"), maxLength: 36 }),
  // Mostly well-formed ones, with one character changed or cut at any place.
  fc
    .tuple(
      fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), fc.integer({ min: 0, max: 24 }),
      fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 }), fc.string({ unit: fc.constantFrom(..."0123456789"), maxLength: 11 }),
      fc.constantFrom("Z", "z", "+01:00", "-23:59", "+24:00", "-00:60", "+1:00", ""), fc.nat(40), fc.constantFrom("", "x", "0", ":"),
    )
    .map(([y, mo, d, h, mi, s, frac, zone, at, c]) => {
      const p = (n: number, w: number) => String(n).padStart(w, "0");
      const t = `${p(y, 4)}-${p(mo, 2)}-${p(d, 2)}T${p(h, 2)}:${p(mi, 2)}:${p(s, 2)}${frac === "" ? "" : `.${frac}`}${zone}`;
      return c === "" ? t : t.slice(0, at) + c + t.slice(at + 1);
    }),
);

describe("number literals", () => {
  test.each<[string, number, number]>([
    ["0", 0, 1],
    ["-0", 0, 2],
    ["12", 0, 2],
    ["01", 0, 1],
    ["1.", 0, 1],
    ["1.5", 0, 3],
    ["1.5e", 0, 3],
    ["1.5e+", 0, 3],
    ["1.5E-07", 0, 7],
    ["-", 0, -1],
    ["+1", 0, -1],
    [".5", 0, -1],
    ["[1,-2e3]", 3, 7],
    ["1e400", 0, 5],
  ])("%j from %i ends at %i", (text, at, end) => {
    expect(jsonNumberEnd(text, at)).toBe(end);
    expect(regexEnd(text, at)).toBe(end);
  });

  test("the scan ends where the sticky expression's match ends, at every position", () => {
    fc.assert(
      fc.property(NUMBERISH, (text) => {
        for (let i = 0; i <= text.length; i++) expect(jsonNumberEnd(text, i)).toBe(regexEnd(text, i));
        expect(isJsonNumber(text)).toBe(NUMBER_TEXT.test(text));
      }),
      { numRuns: 5000 },
    );
  });

  test.each<[string, unknown]>([
    ["9007199254740993", new JsonBigInteger("9007199254740993", 9007199254740992)],
    ["-9223372036854775808", new JsonBigInteger("-9223372036854775808", -9223372036854775808)],
    ["1e18", new JsonBigInteger("1000000000000000000", 1e18, true)],
    ["1.0e19", new JsonBigInteger("10000000000000000000", 1e19, true)],
    ["-12.5e17", new JsonBigInteger("-1250000000000000000", -12.5e17, true)],
    ["0.000123e22", new JsonBigInteger("1230000000000000000", 1.23e18, true)],
    ["00", undefined],
    ["1e400", Infinity],
    [`1${"0".repeat(400)}`, new JsonBigInteger(`1${"0".repeat(400)}`, Infinity)],
    ["9007199254740991", 9007199254740991],
    ["-0", -0],
    ["1.5", 1.5],
  ])("%s reads as %o", (text, value) => {
    if (value === undefined) expect(() => parseJsonText(text, 10)).toThrow("unexpected text after the JSON value at character 1");
    else expect(parseJsonText(text, 10)).toEqual(value);
  });
});

/** What the regular-expression reader gave (the implementation this file's scanners replaced). */
function timestampByRegex(text: string): [number, number] | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m as unknown as string[];
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  const date = new Date(Date.UTC(Number(y), month - 1, day, Number(h), Number(mi), Number(s)));
  date.setUTCFullYear(Number(y));
  if (date.getUTCDate() !== day) return undefined;
  let seconds = date.getTime() / 1000;
  if (zone !== "Z") {
    const oh = Number(zone!.slice(1, 3));
    const om = Number(zone!.slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    seconds -= (zone!.startsWith("-") ? -1 : 1) * (oh * 3600 + om * 60);
  }
  if (seconds < -62135596800 || seconds > 253402300799) return undefined;
  return [seconds, frac === undefined ? 0 : Number(frac.padEnd(9, "0"))];
}

function durationByRegex(text: string): [number, number] | undefined {
  const m = DURATION.exec(text);
  if (m === null) return undefined;
  const seconds = Number(m[2]);
  if (seconds > 315576000000) return undefined;
  const nanos = m[3] === undefined ? 0 : Number(m[3].padEnd(9, "0"));
  return m[1] === "-" ? [seconds === 0 ? 0 : -seconds, -nanos] : [seconds, nanos];
}

describe("timestamps and durations", () => {
  test.each<[string, [number, number] | undefined]>([
    ["1970-01-01T00:00:00Z", [0, 0]],
    ["0001-01-01T00:00:00Z", [-62135596800, 0]],
    ["9999-12-31T23:59:59.999999999Z", [253402300799, 999999999]],
    ["2020-01-02T03:04:05.5+01:30", [1577928845, 500000000]],
    ["2020-02-29T00:00:00Z", [1582934400, 0]],
    ["2021-02-29T00:00:00Z", undefined],
    ["2020-01-01T00:00:00.1234567890Z", undefined],
    ["2020-01-01T00:00:00.Z", undefined],
    ["2020-01-01t00:00:00Z", undefined],
    ["2020-01-01T00:00:00z", undefined],
    ["2020-01-01T00:00:00+24:00", undefined],
    ["2020-01-01T00:00:00", undefined],
    ["0000-12-31T23:59:59Z", undefined],
    ["0001-01-01T00:00:00+00:01", undefined],
  ])("timestamp %s", (text, value) => {
    expect(parseTimestamp(text)).toEqual(value);
    expect(timestampByRegex(text)).toEqual(value);
  });

  test.each<[string, [number, number] | undefined]>([
    ["1s", [1, 0]],
    ["-1.5s", [-1, -500000000]],
    ["-0.000000001s", [0, -1]],
    ["0s", [0, 0]],
    ["315576000000.999999999s", [315576000000, 999999999]],
    ["315576000001s", undefined],
    ["1.s", undefined],
    ["1.0000000001s", undefined],
    ["+1s", undefined],
    ["s", undefined],
    ["-s", undefined],
    ["1", undefined],
    ["1ss", undefined],
  ])("duration %s", (text, value) => {
    expect(parseDuration(text)).toEqual(value);
    expect(durationByRegex(text)).toEqual(value);
  });

  test("the scanners read what the regular expressions read", () => {
    fc.assert(
      fc.property(TIMEISH, (text) => {
        expect(parseTimestamp(text)).toEqual(timestampByRegex(text));
        expect(parseDuration(text)).toEqual(durationByRegex(text));
      }),
      { numRuns: 20000 },
    );
  });
});

test.each([
  ["fooBar", "foo_bar"],
  ["fooBarBaz1", "foo_bar_baz1"],
  ["a", "a"],
  ["ABC", "_a_b_c"],
  ["é\u{1F600}X", "é\u{1F600}_x"],
])("snake(%j) is %j", (camel, out) => {
  expect(snake(camel)).toBe(out);
  expect(snake(camel)).toBe(camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
});
