// An exception that the application's code throws during a write (a getter, a Proxy trap) is the
// caller's: every write method throws it as DynamicMessage.create (or protobuf-es) would, writes
// nothing and leaves a FrameWriter unchanged. The direct writer used to hand any failure to
// another writer that read the value again: a getter that threw once was read a second time and
// its second answer written (the error swallowed), and the generated kind called it a protokeel
// bug (INTERNAL_ERROR).
import { create } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { DynamicMessage, FrameWriter, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { thrown } from "./support/thrown.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";

const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const gen = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();

class Cancelled extends Error {}
const errors: [string, () => Error][] = [
  ["an Error subclass", () => new Cancelled("the application cancelled")],
  ["a TypeError", () => new TypeError("the application's type error")],
  ["a RangeError", () => new RangeError("the application's range error")],
  ["a plain Error", () => new Error("plain")],
];

/** [where the getter is, the init object with it, and the field whose getter throws on its first read]. */
function initWith(where: string, get: () => unknown): Record<string, unknown> {
  const holder: Record<string, unknown> = { f_int32: 5 };
  const getter = { enumerable: true, get };
  switch (where) {
    case "a bytes field":
      Object.defineProperty(holder, "f_bytes", getter);
      return holder;
    case "a nested message's string":
      return { f_string: "top", children: [{ f_int32: 1 }, Object.defineProperty({ f_int32: 2 }, "f_string", getter)] };
    case "a list element":
      return { r_int32: Object.defineProperty([1, 2, 3], 1, getter) };
    default:
      throw new Error(where);
  }
}
const places = ["a bytes field", "a nested message's string", "a list element"];
const answer: Record<string, unknown> = { "a bytes field": new Uint8Array([1, 2]), "a nested message's string": "late", "a list element": 7 };

describe("dynamic kind: a getter that throws once", () => {
  const cases = errors.flatMap(([name, make]) => places.map((where) => [name, where, make] as const));
  test.each(cases)("%s from %s: every write method throws it", (_name, where, make) => {
    const writes: [string, (v: never) => unknown][] = [
      ["toBinary", (v) => ser.toBinary(v)],
      ["encode", (v) => ser.encode(v)],
      ["encodeAll", (v) => ser.encodeAll([{ f_int32: 1 } as never, v])],
      ["create", (v) => DynamicMessage.create(All, v)],
    ];
    for (const [method, write] of writes) {
      const error = make();
      let calls = 0;
      const init = initWith(where, () => (++calls === 1 ? (() => { throw error; })() : answer[where]));
      expect(thrown(() => write(init as never)), method).toBe(error);
    }
    const writer = new FrameWriter();
    ser.serialize({ f_int32: 1 } as never, writer);
    const before = writer.view().slice();
    const error = make();
    let calls = 0;
    const init = initWith(where, () => (++calls === 1 ? (() => { throw error; })() : answer[where]));
    expect(thrown(() => ser.serialize(init as never, writer))).toBe(error);
    expect(writer.view()).toEqual(before);
  });

  test("a value check's error stands when a second read would pass (the value changed between reads)", () => {
    let calls = 0;
    const init = Object.defineProperty({}, "f_int32", { enumerable: true, get: () => (++calls === 1 ? "five" : 5) });
    const e = thrown<TypeError>(() => ser.toBinary(init as never));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe('field alltypes.AllTypes.f_int32(5) expects int32, got string "five"');
  });
});

describe("generated kind: a getter that throws once", () => {
  test.each(errors)("%s: thrown by every write method, never INTERNAL_ERROR", (_name, make) => {
    const writes: [string, (v: never) => unknown][] = [
      ["toBinary", (v) => gen.toBinary(v)],
      ["encode", (v) => gen.encode(v)],
      ["encodeAll", (v) => gen.encodeAll([v])],
      ["serialize", (v) => gen.serialize(v, new FrameWriter())],
    ];
    for (const [method, write] of writes) {
      const error = make();
      let calls = 0;
      const value = create(AllTypesSchema, { fInt32: 3 });
      Object.defineProperty(value, "fString", { enumerable: true, get: () => (++calls === 1 ? (() => { throw error; })() : "late") });
      expect(thrown(() => write(value as never)), method).toBe(error);
    }
  });
});
