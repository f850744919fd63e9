// The TypeScript reader (messages under the small-decode threshold) tests a string's bytes for
// ASCII four at a time, then one at a time (src/codec/small-reader.ts, string): a non-ASCII
// character or an invalid byte at any place of a string of any length up to a few blocks, and in
// the block tail, must be found. Every place of every length 1-40, with a 2-, 3- and 4-byte
// character and with each invalid lead byte, through both kinds, against @bufbuild/protobuf.
import { create, createFileRegistry, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { CodecError, ProtobufType } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";

const set = compileProtoText({
  "ascii.proto": `syntax = "proto3";
package ascii;
message S { string s = 1; uint32 n = 2; }`,
});
const S = createFileRegistry(fromBinary(FileDescriptorSetSchema, set)).getMessage("ascii.S") as DescMessage;
const dyn = ProtobufType.of(S).createSerializer();
const gen = ProtobufType.ofGenerated(S).createSerializer();

const CHARS = ["\u00e9", "\u20ac", "\u{1F600}", "\u007f"];
const valid: string[] = [];
for (let n = 1; n <= 40; n++) {
  for (let at = 0; at < n; at++) for (const c of CHARS) valid.push("a".repeat(at) + c + "b".repeat(n - at - 1));
}

/** Bytes of an S whose string is n bytes of ASCII with `bad` written at place `at`. */
function withByte(n: number, at: number, bad: number): Uint8Array {
  const body = new Uint8Array(n).fill(0x61);
  body[at] = bad;
  return new Uint8Array([0x0a, n, ...body, 0x10, 0x01]);
}

describe("strings with one non-ASCII character at every place read as protobuf-es reads them", () => {
  test("dynamic kind", () => {
    for (const s of valid) {
      const bytes = toBinary(S, create(S, { s, n: 1 } as never));
      expect(bytes.length).toBeLessThan(256); // the TypeScript reader's inputs
      expect(dyn.fromBinary(bytes).get("s")).toBe(s);
    }
  });
  test("generated kind", () => {
    for (const s of valid) {
      const bytes = toBinary(S, create(S, { s, n: 1 } as never));
      expect(gen.fromBinary(bytes)).toEqual(fromBinary(S, bytes));
    }
  });
});

// 0x80-0xbf: a continuation byte without a lead; 0xc0/0xc1: overlong leads; 0xf5-0xff: leads past
// U+10FFFF; 0xc3 then ASCII: a truncated sequence.
const BAD = [0x80, 0xbf, 0xc0, 0xc1, 0xc3, 0xf5, 0xff];
describe("an invalid byte at every place is refused", () => {
  test.each([["dynamic", dyn], ["generated", gen]] as const)("%s kind", (_kind, ser) => {
    for (let n = 1; n <= 40; n++) {
      for (let at = 0; at < n; at++) {
        for (const bad of BAD) {
          let err: unknown;
          try {
            ser.fromBinary(withByte(n, at, bad));
          } catch (e) {
            err = e;
          }
          expect(err).toBeInstanceOf(CodecError);
          expect((err as CodecError).code).toBe("INVALID_UTF8");
        }
      }
    }
  });
});
