// Hardening item 2: strings round-trip exactly. A leading U+FEFF was dropped from strings (and map
// keys) over 64 UTF-8 bytes, where the reader hands them to TextDecoder, whose default strips a
// byte-order mark. Every length around every internal threshold (the walker's 16/32-byte vector
// paths and 256-byte copy, the reader's 64-byte JS decoder, the writer's 43-unit one-byte length
// and 128-unit encodeInto, varint lengths at 127/128 and 16383/16384), with BOM, NUL, astral and
// 2/3-byte characters, both directions against @bufbuild/protobuf, eager and lazy.
import { create, createFileRegistry, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../../src/index.js";
import { compileProtoText } from "../support/buf.js";

const set = compileProtoText({
  "strings.proto": `syntax = "proto3";
package adv;
message Strings {
  string s = 1;
  repeated string rs = 2;
  map<string, string> m = 3;
  optional string o = 4;
  Strings child = 5;
}`,
});
const Strings = createFileRegistry(fromBinary(FileDescriptorSetSchema, set)).getMessage("adv.Strings") as DescMessage;
const ser = ProtobufType.of(Strings).createSerializer();

const THRESHOLDS = [16, 32, 43, 64, 128, 256, 16384];
const lengths = new Set<number>([0, 1, 2, 3, 4, 127, 128, 129, 16383]);
for (const t of THRESHOLDS) for (let d = -4; d <= 4; d++) if (t + d >= 0) lengths.add(t + d);

const FILL = ["a", "\u00e9", "\u20ac", "\u{1F600}", "\0"];
const LEADS = ["\uFEFF", "\0", "\u{10FFFF}", "", "\uFEFF\uFEFF"];

/** A string whose UTF-8 form is about `bytes` long, starting with `lead`, filled with `fill`. */
function make(lead: string, fill: string, bytes: number): string {
  let s = lead;
  while (Buffer.byteLength(s) + Buffer.byteLength(fill) <= bytes) s += fill;
  while (Buffer.byteLength(s) < bytes) s += "a";
  return s;
}

const cases: string[] = [];
for (const lead of LEADS) for (const fill of FILL) for (const n of lengths) cases.push(make(lead, fill, n));

describe("strings round-trip exactly (BOM, NUL, astral, every length around each threshold)", () => {
  test("a leading U+FEFF survives in strings longer than 64 bytes (the reported case)", () => {
    const s = `\uFEFF${"x".repeat(100)}`;
    const back = ser.fromBinary(ser.toBinary(DynamicMessage.create(Strings, { s, m: { [s]: s } })));
    expect(back.get("s")).toBe(s);
    expect([...(back.get("m") as Map<string, string>).keys()]).toEqual([s]);
  });

  test.each([["eager", 1], ["lazy", 40]])("protokeel reads @bufbuild/protobuf's bytes (%s)", (_mode, pad) => {
    for (const s of cases) {
      // Padding past 4 KiB takes the lazy path (validated, read on first access).
      const rs = Array.from({ length: pad }, (_, i) => (i % 2 === 0 ? s : `${i}${s}`));
      const bytes = toBinary(Strings, create(Strings, { s, rs, m: { [s]: s }, o: s, child: { s } } as never));
      const back = ser.fromBinary(bytes);
      expect(back.get("s")).toBe(s);
      expect(back.get("o")).toBe(s);
      expect(back.get("rs")).toEqual(rs);
      expect([...(back.get("m") as Map<string, string>).entries()]).toEqual([[s, s]]);
      expect((back.get("child") as DynamicMessage).get("s")).toBe(s);
    }
  });

  test("@bufbuild/protobuf reads protokeel's bytes, bare and framed", () => {
    for (const s of cases) {
      const v = DynamicMessage.create(Strings, { s, rs: [s, s], m: { [s]: s }, o: s, child: { s } });
      const theirs = fromBinary(Strings, ser.toBinary(v)) as unknown as { s: string; rs: string[]; m: Record<string, string>; o: string };
      expect(theirs.s).toBe(s);
      expect(theirs.o).toBe(s);
      expect(theirs.rs).toEqual([s, s]);
      expect(Object.entries(theirs.m)).toEqual([[s, s]]);
      expect(ser.decode(ser.encode(v)).equals(v)).toBe(true);
    }
  });

  test("decodeAll reads many frames of every case", () => {
    const values = cases.map((s) => DynamicMessage.create(Strings, { s, m: { [s]: s } }));
    const back = ser.decodeAll(ser.encodeAll(values));
    expect(back.map((v) => v.get("s"))).toEqual(cases);
    back.forEach((v, i) => expect(v.equals(values[i])).toBe(true));
  });
});

describe("the generated kind: the same strings, both directions against @bufbuild/protobuf", () => {
  const gen = ProtobufType.ofGenerated(Strings).createSerializer();

  test("protokeel writes protobuf-es' bytes and reads them back to protobuf-es' value", () => {
    for (const s of cases) {
      const value = create(Strings, { s, rs: [s, `1${s}`], m: { [s]: s }, o: s, child: { s } } as never);
      const bytes = toBinary(Strings, value);
      expect(Buffer.compare(gen.toBinary(value), bytes)).toBe(0);
      expect(gen.fromBinary(bytes)).toEqual(fromBinary(Strings, bytes));
    }
    const values = cases.map((s) => create(Strings, { s } as never));
    expect(gen.decodeAll(gen.encodeAll(values))).toEqual(values);
  });

  // The direct writer finds lone surrogates in strings under 128 units as it writes them and checks
  // longer ones first: every length around both paths, the surrogate first, last and alone.
  const lone = [...lengths].filter((n) => n > 0 && n < 300).flatMap((n) => [`\uD800${"a".repeat(n - 1)}`, `${"é".repeat(n - 1)}\uDFFF`]);
  test("a lone surrogate is refused as DynamicMessage.create refuses it, in every field shape", () => {
    for (const s of lone) {
      for (const init of [{ s }, { o: s }, { rs: ["ok", s] }, { m: { k: s } }, { m: { [s]: "v" } }, { child: { s } }]) {
        const value = create(Strings, init as never);
        let expected: unknown;
        try {
          DynamicMessage.create(Strings, init);
        } catch (e) {
          expected = e;
        }
        expect(expected).toBeInstanceOf(RangeError);
        expect(() => gen.toBinary(value)).toThrow(expected as Error);
      }
    }
  });
});
