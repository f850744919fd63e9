// Map fields whose values are messages, read into generated values by both read paths: the
// TypeScript reader (bare messages under 256 bytes) and the tape reader (from 256 bytes, where a
// map entry is a frame without a message object and its value message closes into the entry).
// Each input is compared with protobuf-es' own fromBinary, and relayed to protobuf-es' bytes.
import { create, equals, fromBinary, toBinary } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";

const gen = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();

type Init = Parameters<typeof create<typeof AllTypesSchema>>[1];
// Padding that puts a message past the small reader's 256 bytes.
const PAD = "p".repeat(300);

const CASES: [string, Init][] = [
  ["one entry, a value with fields", { mvMessage: { a: { name: "leaf", value: -3 } } }],
  ["an entry whose value is empty", { mvMessage: { "": {} } }],
  ["many entries", { mvMessage: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, { name: `n${i}`, value: i }])) }],
  ["entries in a nested message's list of leaves and a map", { nested: { a: 1, leaves: [{ name: "x" }], inner: { a: 2 } }, mvMessage: { b: { value: 7 } } }],
  ["with other maps around it", { mString: { s: "t" }, mvMessage: { c: { name: "c" } }, mvEnum: { e: 1 }, mvSint64: { z: -5n } }],
];

function withPadding(init: Init, padded: boolean): Init {
  return padded ? { ...init, fString: PAD } : init;
}

describe("map values that are messages, on both read paths", () => {
  for (const padded of [false, true]) {
    test.each(CASES)(`%s (${padded ? "tape reader" : "small reader"})`, (_name, init) => {
      const bytes = toBinary(AllTypesSchema, create(AllTypesSchema, withPadding(init, padded)));
      expect(bytes.length >= 256).toBe(padded);
      const want = fromBinary(AllTypesSchema, bytes);
      const got = gen.fromBinary(bytes);
      expect(equals(AllTypesSchema, got, want)).toBe(true);
      expect(got).toStrictEqual(want);
      expect(gen.toBinary(got)).toEqual(toBinary(AllTypesSchema, want));
    });
  }

  test("a map entry whose value comes twice: the second occurrence merges into the first, as protobuf-es reads it", () => {
    // mv_message (95) entry: key "k" (field 1), value (field 2) given twice, each a Leaf, padded.
    const leaf1 = [0x0a, 0x01, 0x61]; // name "a"
    const leaf2 = [0x10, 0x05]; // value 5
    const entry = [0x0a, 0x01, 0x6b, 0x12, leaf1.length, ...leaf1, 0x12, leaf2.length, ...leaf2];
    const pad = new TextEncoder().encode(PAD);
    const bytes = Uint8Array.from([0xfa, 0x05, entry.length, ...entry, 0x4a, 0xac, 0x02, ...pad]);
    expect(bytes.length).toBeGreaterThanOrEqual(256);
    const want = fromBinary(AllTypesSchema, bytes);
    expect(want.mvMessage.k).toMatchObject({ name: "a", value: 5 });
    expect(gen.fromBinary(bytes)).toStrictEqual(want);
  });
});
