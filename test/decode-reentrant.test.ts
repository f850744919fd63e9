// Application code that runs inside a decode: an index setter on Array.prototype (the readers
// append list elements with push, which reaches it), or an Object.prototype setter named like a
// field (the generated reader sets fields by assignment). When that code called protokeel again,
// the inner call overwrote the state of the read in progress (the tape, text area and input copy
// in the core's memory; the serializer's small reader): the outer decode returned wrong values,
// threw internal or engine errors; releaseMemory() left its views on the old memory. Now a decode
// or validate started while another reads its tape is a CodecError REENTRANT_DECODE (what the
// outer decode then throws, unless the code catches it), releaseMemory() there returns false, and
// the outer decode, whatever the code did, gives its own values or that error.
import { create, createFileRegistry, fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { afterEach, describe, expect, test } from "vitest";
import { CodecError, ProtobufType, releaseMemory } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";
import { setSmallDecodeThreshold } from "../src/codec/reader.js";

const reg = createFileRegistry(
  fromBinary(
    FileDescriptorSetSchema,
    compileProtoText({ "re.proto": 'syntax = "proto3"; package re; message Item { string sku = 1; repeated int32 n = 2; } message M { repeated Item items = 1; repeated string names = 2; optional string note = 3; }' }),
  ),
);
const M = reg.getMessage("re.M")!;
const dynamic = ProtobufType.of(M).createSerializer();
const generated = ProtobufType.ofGenerated(M).createSerializer();
const other = ProtobufType.of(M).createSerializer();

const value = (n: number) => create(M, { items: Array.from({ length: n }, (_, i) => ({ sku: "sku-" + i, n: [i, i + 1] })), names: ["a", "b".repeat(50)], note: "x" });
// Sizes for the small reader and for the core's tape.
const INPUTS: [string, Uint8Array][] = [
  ["a small message", toBinary(M, value(2))],
  ["a large message", toBinary(M, value(400))],
];

/** Installs `hook` as code that runs inside decodes, for one call. */
function during<T>(hook: () => void, call: () => T): T {
  let fired = 0;
  const arrayProto = Array.prototype as unknown as Record<string, unknown>;
  Object.defineProperty(arrayProto, "0", {
    configurable: true,
    set(this: unknown[], v: unknown) {
      if (fired++ < 3) hook();
      Object.defineProperty(this, "0", { value: v, writable: true, enumerable: true, configurable: true });
    },
  });
  Object.defineProperty(Object.prototype, "note", {
    configurable: true,
    set(this: object, v: unknown) {
      if (fired++ < 3) hook();
      Object.defineProperty(this, "note", { value: v, writable: true, enumerable: true, configurable: true });
    },
  });
  try {
    return call();
  } finally {
    delete arrayProto[0];
    delete (Object.prototype as Record<string, unknown>).note;
  }
}

afterEach(() => {
  delete (Array.prototype as unknown as Record<string, unknown>)[0];
  delete (Object.prototype as Record<string, unknown>).note;
});

const HOOKS: [string, (input: Uint8Array) => unknown][] = [
  ["the same serializer's fromBinary", (input) => dynamic.fromBinary(input).get("names")],
  ["another serializer's decodeAll", (input) => other.decodeAll(other.encodeAll([dynamic.fromBinary(input)]))],
  ["a generated fromBinary", (input) => generated.fromBinary(input)],
  ["validate", (input) => dynamic.validate(input)],
  // (While a tape is read it returns false and releases nothing; the small reader needs no core memory.)
  ["releaseMemory", () => releaseMemory()],
];

describe.each(INPUTS)("%s", (_size, input) => {
  const expected = toBinary(M, fromBinary(M, input));
  test.each(HOOKS)("code calling %s inside a decode: the outer value is right or the error is REENTRANT_DECODE", (_hook, hook) => {
    for (const read of [(): unknown => dynamic.fromBinary(input), (): unknown => generated.fromBinary(input)]) {
      const inner: unknown[] = [];
      let outer: unknown;
      try {
        outer = during(() => {
          try {
            hook(input);
          } catch (e) {
            inner.push(e);
          }
        }, read);
      } catch (e) {
        outer = e;
      }
      // Every inner failure is the typed refusal, never another error.
      for (const e of inner) expect(e, String(e)).toMatchObject({ code: "REENTRANT_DECODE" });
      expect(outer).not.toBeInstanceOf(Error);
      const bytes = outer instanceof Uint8Array ? outer : "get" in (outer as object) ? dynamic.toBinary(outer as never) : generated.toBinary(outer as never);
      expect(toBinary(M, fromBinary(M, bytes))).toEqual(expected);
    }
    // And the codec is right afterwards.
    expect(toBinary(M, fromBinary(M, dynamic.toBinary(dynamic.fromBinary(input))))).toEqual(expected);
  });

  test("an uncaught inner refusal is what the outer decode throws", () => {
    const e = (() => {
      try {
        // The generated kind builds every value as it reads (a large dynamic value is lazy).
        during(() => generated.fromBinary(input), () => generated.fromBinary(input));
      } catch (x) {
        return x;
      }
      return undefined;
    })();
    expect(e).toBeInstanceOf(CodecError);
    expect(e).toMatchObject({ code: "REENTRANT_DECODE" });
  });
});

test("releaseMemory() inside a decode that reads a tape releases nothing and returns false", () => {
  const released: boolean[] = [];
  // The tape path (the "small-decode" project reads every input with the TypeScript reader).
  const threshold = setSmallDecodeThreshold(0);
  let v: ReturnType<typeof generated.fromBinary>;
  try {
    v = during(() => void released.push(releaseMemory()), () => generated.fromBinary(INPUTS[1]![1]));
  } finally {
    setSmallDecodeThreshold(threshold);
  }
  expect(released.length).toBeGreaterThan(0);
  expect(released.every((r) => !r)).toBe(true);
  expect(toBinary(M, v)).toEqual(INPUTS[1]![1]);
});
