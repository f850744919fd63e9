// A list in an init object is read once per element, and what is checked is what is stored or
// written. An element that is a getter (or a Proxy's) answers each read anew: the writer checked
// the list, then read it again to write it, so elements appended or changed by the second read
// were written unchecked (a FrameWriter committed a corrupt frame without an error; toBinary threw
// a bare RangeError), and DynamicMessage.create stored unchecked elements in an immutable value
// that then encoded to wrong bytes ("evil" in an int32 list as 0).
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { DynamicMessage, FrameWriter, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";

const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const gen = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();

/**
 * `valid` whose element `at` is a getter: the first read answers `valid[at]`, later reads append
 * `grow` elements of value `extra` and answer `changed`.
 */
function shifting(valid: unknown[], at: number, changed: unknown, extra: unknown, grow: number): unknown[] {
  const arr = [...valid];
  let reads = 0;
  Object.defineProperty(arr, at, {
    enumerable: true,
    configurable: true,
    get() {
      if (++reads === 1) return valid[at];
      for (let i = 0; i < grow; i++) arr.push(extra);
      return changed;
    },
  });
  return arr;
}

/** A Proxy over `valid` whose reads of index `at` after the first answer `changed`. */
function proxied(valid: unknown[], at: number, changed: unknown): unknown[] {
  let reads = 0;
  return new Proxy([...valid], {
    get(target, key, receiver) {
      if (key === String(at) && ++reads > 1) return changed;
      return Reflect.get(target, key, receiver);
    },
  });
}

// [field (proto name), its JSON name for the generated kind, valid elements, what a later read answers, an extra element]
const FIELDS: [string, string, unknown[], unknown, unknown][] = [
  ["r_uint32", "rUint32", [1, 2, 3], -1, 300],
  ["r_int32", "rInt32", [1, -2, 3], "evil", 2 ** 40],
  ["r_sint64", "rSint64", [1n, -2n, 3n], 3.7, 1n << 70n],
  ["r_double", "rDouble", [0.5, -1, 2], "x", 1],
  ["r_bool", "rBool", [true, false, true], 1, true],
  ["r_string", "rString", ["a", "b", "c"], 42, "\uD800"],
  ["r_bytes", "rBytes", [Uint8Array.of(1), Uint8Array.of(2), Uint8Array.of(3)], "notbytes", Uint8Array.of(9)],
  ["r_enum", "rEnum", [0, 1, 2], 1.5, 0],
];

/** What the list is read as when each element is read once: the valid elements. */
const expectedBytes = (field: string, valid: unknown[]) => ser.toBinary(DynamicMessage.create(All, { [field]: valid }));

describe("each element is read once, and what was checked is written", () => {
  test.each(FIELDS)("%s", (field, jsonName, short, changed, extra) => {
    // 3 elements, and 20 (a write copies a long numeric list into a typed array).
    for (const valid of [short, Array.from({ length: 20 }, (_, i) => short[i % 3])])
    for (const grow of [0, 2, 70_000]) {
      const want = expectedBytes(field, valid);
      // create: the value holds the elements as first read.
      const made = DynamicMessage.create(All, { [field]: shifting(valid, 2, changed, extra, grow) });
      expect(ser.toBinary(made)).toEqual(want);
      // Writes from plain data: toBinary, encode, encodeAll, a FrameWriter.
      expect(ser.toBinary({ [field]: shifting(valid, 2, changed, extra, grow) } as never)).toEqual(want);
      expect(ser.encode({ [field]: shifting(valid, 1, changed, extra, grow) } as never)).toEqual(ser.encode({ [field]: valid } as never));
      expect(ser.encodeAll([{ [field]: shifting(valid, 0, changed, extra, grow) }, { [field]: valid }] as never)).toEqual(ser.encodeAll([{ [field]: valid }, { [field]: valid }] as never));
      const fw = new FrameWriter();
      ser.serialize({ [field]: shifting(valid, 2, changed, extra, grow) } as never, fw);
      expect(fw.toUint8Array()).toEqual(ser.encode({ [field]: valid } as never));
      // Through a Proxy.
      expect(ser.toBinary({ [field]: proxied(valid, 1, changed) } as never)).toEqual(want);
      expect(ser.toBinary(DynamicMessage.create(All, { [field]: proxied(valid, 0, changed) }))).toEqual(want);
      // The generated kind's writer takes the same lists.
      const value = create(AllTypesSchema, { [jsonName]: [...valid] } as never);
      const shifted = create(AllTypesSchema);
      (shifted as Record<string, unknown>)[jsonName] = shifting(valid, 2, changed, extra, grow);
      expect(gen.toBinary(shifted)).toEqual(toBinary(AllTypesSchema, value));
    }
  });

  test("a nested message's list, and a list whose length shrinks on a later read", () => {
    const valid = [5, 6, 7];
    const want = ser.toBinary({ children: [{ r_int32: valid }] } as never);
    expect(ser.toBinary({ children: [{ r_int32: shifting(valid, 2, "evil", 1, 1000) }] } as never)).toEqual(want);
    let reads = 0;
    const shrinking = new Proxy([...valid], {
      get(target, key, receiver) {
        if (key === "length") return ++reads === 1 ? 3 : 1;
        return Reflect.get(target, key, receiver);
      },
    });
    // Whichever read of the length the copy used, the bytes are a list of checked elements.
    const got = ser.toBinary({ children: [{ r_int32: shrinking }] } as never);
    expect([want, ser.toBinary({ children: [{ r_int32: [5] }] } as never)]).toContainEqual(got);
  });
});

test("a value over the limit on the first read and under it on the second is MESSAGE_TOO_LARGE, not an internal error", () => {
  const small = ProtobufType.newBuilder(All).maxMessageBytes(100).build().createSerializer();
  // Over the limit for the serializer's direct write of init objects and for the dynamic writer
  // that writes again what it refuses; under it for that writer's sizing pass.
  let reads = 0;
  const init = {
    get f_string() {
      return ++reads <= 2 ? "x".repeat(200) : "y";
    },
  };
  let error: unknown;
  try {
    small.toBinary(init as never);
  } catch (e) {
    error = e;
  }
  expect(error).toMatchObject({
    name: "CodecError",
    code: "MESSAGE_TOO_LARGE",
    message:
      "cannot write alltypes.AllTypes: its encoded size exceeded maxMessageBytes 100 while it was written, but not when it was sized again: the value changed between two reads (a getter or a Proxy that answers differently); write plain data or a DynamicMessage",
  });
  // The direct walk, the dynamic writer, its sizing pass, then create (which takes the value: the
  // write's error stands).
  expect(reads).toBe(4);
  expect(small.toBinary({ f_string: "y" } as never)).toEqual(ser.toBinary({ f_string: "y" } as never));
});

