// serializer.validate / validateAll: the validate-only read gives the same verdict and the same
// CodecError (code, offset, path, message) as fromBinary / decodeAll on the same bytes.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../src/index.js";
import { messageArb } from "./support/arbitrary-message.js";
import { registryFromDir } from "./support/buf.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const tight = ProtobufType.newBuilder(All).maxDepth(2).maxMessageBytes(64).build().createSerializer();

type Outcome = "ok" | { code: string; offset: number | undefined; path: string | undefined; message: string };

function outcome(f: () => unknown): Outcome {
  try {
    f();
    return "ok";
  } catch (e) {
    if (e instanceof CodecError) return { code: e.code, offset: e.offset, path: e.path, message: e.message };
    throw e;
  }
}

/** Asserts validate and decode agree on `bytes`; returns the shared outcome. */
function agree(s: typeof ser, bytes: Uint8Array): Outcome {
  const decoded = outcome(() => s.fromBinary(bytes));
  expect(outcome(() => s.validate(bytes))).toEqual(decoded);
  return decoded;
}

function agreeFrames(s: typeof ser, bytes: Uint8Array): Outcome {
  const decoded = outcome(() => s.decodeAll(bytes));
  expect(outcome(() => s.validateAll(bytes))).toEqual(decoded);
  return decoded;
}

const sampleBytes = fc.array(messageArb(All, 2), { minLength: 1, maxLength: 3 }).map((samples) => samples.map((s) => ser.toBinary(DynamicMessage.create(All, s.ours))));

describe("validate agrees with decode", () => {
  test("property: valid messages validate, bare and as frames, and return nothing", () => {
    fc.assert(
      fc.property(sampleBytes, (list) => {
        for (const b of list) {
          expect(ser.validate(b)).toBeUndefined();
          agree(tight, b);
        }
        const frames = ser.encodeAll(list.map((b) => ser.fromBinary(b)));
        expect(ser.validateAll(frames)).toBeUndefined();
        agreeFrames(tight, frames);
      }),
      { numRuns: 100 },
    );
  });

  test("every truncation of valid messages and frame buffers fails (or passes) the same way", () => {
    fc.assert(
      fc.property(sampleBytes, (list) => {
        const b = list[0]!;
        for (let n = 0; n < b.length; n++) agree(ser, b.subarray(0, n));
        const frames = ser.encodeAll(list.map((x) => ser.fromBinary(x)));
        for (let n = 0; n < frames.length; n++) agreeFrames(ser, frames.subarray(0, n));
      }),
      { numRuns: 6 },
    );
  });

  test("property: random bytes and mutated messages get the same error code, offset and path", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (b) => {
        agree(ser, b);
        agree(tight, b);
        agreeFrames(ser, b);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(sampleBytes, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), (list, edits) => {
        const b = list[0]!.slice();
        if (b.length === 0) return;
        for (const [at, v] of edits) b[at % b.length] = v;
        agree(ser, b);
        agree(tight, b);
      }),
      { numRuns: 500 },
    );
  });

  // AllTypes.f_string is field 9 (tag 0x4a) in the fixture.
  const str = (...bytes: number[]): Uint8Array => Uint8Array.from([0x4a, bytes.length, ...bytes]);
  test.each([
    ["lone continuation byte", str(0x61, 0x80), 3],
    ["overlong 2-byte form", str(0xc0, 0x80), 2],
    ["surrogate", str(0xed, 0xa0, 0x80), 2],
    ["above U+10FFFF", str(0xf4, 0x90, 0x80, 0x80), 2],
    ["truncated 3-byte sequence", str(0x61, 0xe2, 0x82), 3],
    ["bad byte after a long ASCII run", str(...Array(40).fill(0x61), 0xff), 42],
    ["bad byte after mixed text", str(...Array(20).fill(0x61), 0xc3, 0xa9, ...Array(20).fill(0x62), 0x80), 44],
    ["bad byte at the end of a 16-byte string", str(...Array(15).fill(0x61), 0xfe), 17],
  ])("invalid UTF-8 (%s) is refused with the decoder's error", (_name, bytes, offset) => {
    expect(agree(ser, bytes)).toMatchObject({ code: "INVALID_UTF8", offset });
  });

  // r_double is field 41 (packed tag 0xca 0x02), r_int64 field 43 (0xda 0x02).
  test.each([
    ["packed varint cut at the run's end", [0xda, 0x02, 2, 1, 0x80], "TRUNCATED", 4],
    ["packed varint of 11 bytes", [0xda, 0x02, 11, ...Array(10).fill(0xff), 1], "VARINT_TOO_LONG", 3],
    ["packed double run of 7 bytes", [0xca, 0x02, 7, 1, 2, 3, 4, 5, 6, 7], "PACKED_LENGTH_INVALID", 0],
    ["packed run past the end", [0xca, 0x02, 9, 1, 2, 3, 4, 5, 6, 7, 8], "LENGTH_PAST_END", 0],
  ])("malformed packed run (%s) is refused with the decoder's error", (_name, bytes, code, offset) => {
    expect(agree(ser, Uint8Array.from(bytes))).toMatchObject({ code, offset });
  });

  test("valid non-ASCII strings of every length class validate", () => {
    for (const s of ["é", "aé", "日本語テキスト", "a".repeat(15) + "é", "x".repeat(33) + "😀" + "y".repeat(17)]) {
      const b = ser.toBinary(DynamicMessage.create(All, { f_string: s }));
      expect(agree(ser, b)).toBe("ok");
    }
  });

  test("limits: too large, too deep, and non-bytes input", () => {
    expect(agree(tight, new Uint8Array(65))).toMatchObject({ code: "MESSAGE_TOO_LARGE" });
    expect(outcome(() => ser.validate("nope" as unknown as Uint8Array))).toMatchObject({ code: "NOT_BYTES" });
    expect(outcome(() => ser.validateAll(null as unknown as Uint8Array))).toMatchObject({ code: "NOT_BYTES" });
  });
});
