// The writers' UTF-8 encoding of strings under 128 units (WireWriter.utf8: ASCII four units per
// step while they last, then one by one; the length byte reserved before the payload, moved up
// when the length takes two): a character of every UTF-8 width, a surrogate pair and
// a lone surrogate at every position of strings around every length the loop steps over (4), the
// one-byte length (43 units) and TextEncoder's threshold (128), on both kinds; longer strings
// where their length's room changes size. The bytes are
// TextEncoder's (a lone surrogate: create's RangeError, on both kinds).
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { ItemSchema } from "./fixtures/generated-es/gen/es_fixtures_pb.js";
import { thrown } from "./support/thrown.js";

const dynamic = ProtobufType.of(ItemSchema).createSerializer();
const generated = ProtobufType.ofGenerated(ItemSchema).createSerializer();

const LENGTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 41, 42, 43, 44, 45, 126, 127, 128, 129];
const LONG = [130, 5461, 5462, 5463, 16383, 16384, 16385, 699050, 699051];
/** Characters by UTF-8 width: 2 bytes, 3 bytes, 4 (a surrogate pair, two units), and one past the ASCII range's end. */
const WIDE = [["U+0080", "\u0080"], ["U+07FF", "\u07ff"], ["U+0800", "\u0800"], ["U+FEFF", "\ufeff"], ["U+FFFF", "\uffff"], ["U+1F600", "\u{1f600}"]] as const;

/**
 * Strings of `n` units: ASCII with `c` at each position (and ASCII alone), and `c` throughout
 * (from 43 units on, more than 127 UTF-8 bytes: a length of two bytes under 128 units).
 */
function strings(n: number, c: string): string[] {
  const out = ["abcdefghijklmnopqrstuvwxyz0123456789".repeat(4).padEnd(n, "~").slice(0, n)];
  for (let at = 0; at + c.length <= n; at++) out.push(out[0]!.slice(0, at) + c + out[0]!.slice(at + c.length));
  if (c.length <= n) out.push(c.repeat(Math.floor(n / c.length)).padEnd(n, "a"));
  return out;
}

describe("strings under 128 units, a wide character at every position", () => {
  test.each(WIDE.flatMap(([name, c]) => LENGTHS.map((n) => [name, n, c] as const)))("%s in %i units: both kinds write protobuf-es' bytes", (_, n, c) => {
    for (const sku of strings(n, c)) {
      const expected = toBinary(ItemSchema, create(ItemSchema, { sku }));
      expect(generated.toBinary(create(ItemSchema, { sku }))).toEqual(expected);
      expect(dynamic.toBinary(DynamicMessage.create(ItemSchema, { sku }))).toEqual(expected);
      expect(dynamic.toBinary({ sku })).toEqual(expected);
    }
  });

  // From 128 units: TextEncoder after room for the longest length (3 bytes a unit), moved down to
  // the actual length's size. Around where that room grows (3n past 2^14 and 2^21) and where the
  // actual length does (2^14 bytes): a character at the start, at the end, throughout.
  test.each(WIDE.flatMap(([name, c]) => LONG.map((n) => [name, n, c] as const)))("%s in %i units: both kinds write protobuf-es' bytes", (_, n, c) => {
    const ascii = "abcdefghijklmnopqrstuvwxyz0123456789".repeat(Math.ceil(n / 36)).slice(0, n);
    for (const sku of [ascii, c + ascii.slice(c.length), ascii.slice(c.length) + c, c.repeat(Math.floor(n / c.length)).padEnd(n, "a")]) {
      const expected = Buffer.from(toBinary(ItemSchema, create(ItemSchema, { sku })));
      // Buffer.equals: vitest's toEqual walks megabytes element by element.
      expect(expected.equals(generated.toBinary(create(ItemSchema, { sku }))), "generated").toBe(true);
      expect(expected.equals(dynamic.toBinary({ sku })), "dynamic").toBe(true);
    }
  });

  test.each(LENGTHS)("a lone surrogate at any position of %i units is refused by both kinds", (n) => {
    for (const lone of ["\ud800", "\udfff"]) {
      for (const sku of strings(n, lone).slice(1)) {
        for (const write of [() => generated.toBinary(create(ItemSchema, { sku })), () => dynamic.toBinary({ sku })]) {
          const err = thrown(write);
          expect(err).toBeInstanceOf(RangeError);
          expect((err as RangeError).message).toBe("field esfix.Item.sku(1) expects a well-formed string, got one with a lone surrogate; strings are written as UTF-8");
        }
      }
    }
  });
});
