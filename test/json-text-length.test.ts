// toJsonString of a value whose text would be longer than the longest JavaScript string: a
// CodecError (JSON_TEXT_TOO_LONG) that says which limit and what to do, not JSON.stringify's bare
// RangeError "Invalid string length", and found by counting (without building the text first).
// Pretty printing is where it happens to small input: each line repeats depth x prettySpaces.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../src/index.js";
import { escapedLength, MAX_JSON_TEXT, PARTS_PER_JOIN, stringifyJson } from "../src/json/stringify.js";
import { registryFromDir } from "./support/buf.js";

const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.newBuilder(All).maxDepth(1000).build().createSerializer();

/** `depth` nested messages (children[0] each), the innermost holding `init`. */
function chain(depth: number, init: Record<string, unknown>): DynamicMessage {
  let v: Record<string, unknown> = init;
  for (let d = 1; d < depth; d++) v = { children: [v] };
  return DynamicMessage.create(All, v);
}

const TOO_LONG = (spaces: number): string =>
  `cannot write alltypes.AllTypes to JSON: its JSON text indented by ${spaces} is longer than 536,870,888 characters, the longest string JavaScript runtimes hold (V8's limit); write it as binary, use toJson for the value, or indent less (each line repeats its depth times prettySpaces)`;

describe("stringifyJson counts what it writes", () => {
  const VALUES: [string, unknown][] = [
    ["a scalar", 5],
    ["an escaped string", 'a"\\\n\u0001\u2028'],
    ["empty containers", { a: [], b: {}, c: [{}] }],
    ["nested lists and objects", { a: [1, [2, [3, { b: [true, false, null] }]]], "k\"ey": "v" }],
    ["a deep chain", Array.from({ length: 50 }).reduce<unknown>((acc) => ({ x: [acc, 1] }), "leaf")],
    // Strings whose escaped form is up to 6 times their length: counted as written.
    ["strings of escapes", { "\u0000\b\u001f": "\u0001\u0002\t\"\\\ud800x\udc00\ud83d\ude00".repeat(20), k: ["\u0007".repeat(30)] }],
  ];
  test.each(VALUES)("%s: the exact limit writes it, one less does not", (_name, value) => {
    for (const indent of [0, 1, 2, 10]) {
      const text = JSON.stringify(value, null, indent);
      expect(stringifyJson(value, indent, text.length)).toBe(text);
      expect(stringifyJson(value, indent, text.length - 1)).toBeUndefined();
      expect(stringifyJson(value, indent)).toBe(text);
    }
  });
});

// The parts are joined a batch at a time: one array of every part (two per list element) passed
// V8's largest array for a list of 90 million zeros, which aborts the process.
test("text of many more parts than one join takes is the whole text", () => {
  const value = { v: Array.from({ length: 2 * PARTS_PER_JOIN + 7 }, (_, i) => i % 3), z: -0 };
  for (const indent of [0, 2]) {
    const text = stringifyJson(value, indent)!;
    expect(text).toBe(JSON.stringify(value, null, indent).replace(/"z":( ?)0/, '"z":$1-0'));
    expect(stringifyJson(value, indent, text.length - 1)).toBeUndefined();
  }
});

test("escapedLength is JSON.stringify's length, lone surrogates and controls included", () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.oneof(fc.constantFrom("\"", "\\", "\b", "\t", "\n", "\f", "\r", "\u0000", "\u001f", "\u007f", "\u2028", "\ud800", "\udfff"), fc.constant("\ud83d\ude00"), fc.string({ unit: "binary", maxLength: 1 })), maxLength: 40 }), (s) => {
      expect(escapedLength(s)).toBe(JSON.stringify(s).length);
    }),
    { numRuns: 20_000 },
  );
});

// A string whose escaped form is past the limit is found by counting, so stringifyJson throws no
// RangeError of its own: toJsonString took every RangeError from it for JSON_TEXT_TOO_LONG, also
// the engine's stack overflow when called with the stack nearly full (Bun: a 36-character message
// refused as "longer than 536,870,888 characters").
describe("a string past the limit is counted, not built", () => {
  test.each<[string, string]>([
    ["six characters per control character", "\u0001".repeat(100)],
    ["six per lone surrogate", "\ud800".repeat(100)],
    ["two per quote", '"'.repeat(100)],
  ])("%s: undefined one short of its text, the text at it", (_name, str) => {
    for (const value of [str, { [str]: 1 }, [1, str]]) {
      const text = JSON.stringify(value);
      expect(stringifyJson(value, 0, text.length - 1)).toBeUndefined();
      expect(stringifyJson(value, 0, text.length)).toBe(text);
    }
  });
});

describe("toJsonString past the longest string", () => {
  // [name, depth, innermost init, prettySpaces]: 150 levels is where JSON.stringify would write
  // it (≤ 400 JSON levels), 450 where the explicit-stack writer does.
  const ROWS: [string, number, Record<string, unknown>, number][] = [
    ["150 levels, 300,000 packed ints", 150, { r_int32: new Int32Array(300_000) }, 10],
    ["450 levels, 150,000 packed ints", 450, { r_int32: new Int32Array(150_000) }, 10],
    ["900 levels, 60,000 packed ints", 900, { r_int32: new Int32Array(60_000) }, 5],
  ];
  test.each(ROWS)("%s", (_name, depth, init, spaces) => {
    const value = chain(depth, init);
    let error: unknown;
    const before = process.memoryUsage().rss;
    try {
      ser.toJsonString(value, { prettySpaces: spaces });
    } catch (e) {
      error = e;
    }
    // Counted, not built: far below the 537 MB a built text would take (measured: under 10 MB).
    expect(process.memoryUsage().rss - before).toBeLessThan(200e6);
    expect(error).toBeInstanceOf(CodecError);
    expect((error as CodecError).code).toBe("JSON_TEXT_TOO_LONG");
    expect((error as CodecError).path).toBe("alltypes.AllTypes");
    expect((error as CodecError).message).toBe(TOO_LONG(spaces));
    // The same value compact is short, and the serializer goes on.
    expect(ser.toJsonString(value).length).toBeLessThan(MAX_JSON_TEXT);
    expect(ser.toJsonString(chain(3, { f_int32: 7 }), { prettySpaces: 2 })).toBe(JSON.stringify(ser.toJson(chain(3, { f_int32: 7 })), null, 2));
  });

  // Many bytes on few lines: the estimate sends it to the counting writer, which writes it whole.
  test.each([
    ["a 1 MB string 150 levels deep", chain(150, { f_string: "x".repeat(1_000_000) }), 10],
    ["a 300 KB bytes field 100 levels deep", chain(100, { f_bytes: new Uint8Array(300_000).fill(7) }), 4],
    ["30,000 ints 20 levels deep", chain(20, { r_int32: Array.from({ length: 30_000 }, (_, i) => i - 15_000) }), 3],
  ] as const)("%s writes what JSON.stringify writes", (_name, value, spaces) => {
    expect(ser.toJsonString(value, { prettySpaces: spaces })).toBe(JSON.stringify(ser.toJson(value), null, spaces));
  });
});
