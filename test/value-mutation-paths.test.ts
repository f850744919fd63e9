// Ways application code could reach a DynamicMessage's state after it was built, beyond what
// test/value-read-only.test.ts covers, and one crash of the plain-object write path found by the
// same differential runs. A value accepted once is written again unchecked (writer.ts: relay of
// its source bytes, trusted frames, trustedFields), so any of its state that changes afterwards
// is written as it is: an unknown occurrence rewritten into a known field's tag or a length past
// the end, a string key in an int32 map (a raw Node ERR_INVALID_ARG_TYPE from the write), a
// chain deeper than maxDepth that the same serializer then refuses to read. Each case: the value
// is written once, the application mutates what it holds, and the value writes as before.
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../src/index.js";
import { messageFromDir, registryFromDir } from "./support/buf.js";
import { L, T, messageOf } from "./support/descriptors.js";
import { thrown } from "./support/thrown.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const Leaf = registry.getMessage("alltypes.Leaf")!;
const Link = messageFromDir("fixtures/writer-levels", "levels.Link");
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const sers = (d: typeof All, maxDepth = 100) => [false, true].map((det) => ProtobufType.newBuilder(d).maxDepth(maxDepth).deterministic(det).build().createSerializer());

/** Two nested types without recursion (the generated writer's inline walk): Outer { Inner inner = 1; string s = 2 }. */
const Outer = messageOf(
  [
    {
      name: "inline.proto",
      package: "inl",
      syntax: "proto3",
      messageType: [
        { name: "Inner", field: [{ name: "a", jsonName: "a", number: 1, label: L.OPTIONAL, type: T.INT32 }, { name: "b", jsonName: "b", number: 2, label: L.OPTIONAL, type: T.INT32 }] },
        { name: "Outer", field: [{ name: "inner", jsonName: "inner", number: 1, label: L.OPTIONAL, type: T.MESSAGE, typeName: ".inl.Inner" }, { name: "s", jsonName: "s", number: 2, label: L.OPTIONAL, type: T.STRING }] },
      ],
    } as never,
  ],
  "inl.Outer",
);

// First in the file: the generated writer's pool starts empty here, so the writer below has never
// walked a nested init object at level 0 with buffered reads.
describe("a refused plain init object, after a nested one was read out of key order", () => {
  test("throws the refusal (was: TypeError reading 'fill' of undefined from the writer's cleanup, which replaced it)", () => {
    const ser = ProtobufType.of(Outer).createSerializer();
    // Level 0 in key order (read as its keys come), level 1 out of order (buffered at level 1 only).
    expect(hex(ser.toBinary({ inner: { b: 2, a: 1 } } as never))).toBe("0a0408011002");
    const shallow = ProtobufType.newBuilder(Outer).maxDepth(1).build().createSerializer();
    const e = thrown<CodecError>(() => shallow.toBinary({ inner: {} } as never));
    expect(e).toBeInstanceOf(CodecError);
    expect([e.code, e.message]).toEqual([
      "DEPTH_LIMIT_EXCEEDED",
      "cannot write inl.Outer: nesting depth 2 at inl.Outer.inner(1) exceeds maxDepth 1 (a map entry counts as a level); raise maxDepth or flatten the value",
    ]);
    expect(hex(ser.toBinary({ inner: { a: 1 }, s: "x" } as never))).toBe("0a0208011201" + "78");
  });
});

interface Case {
  /** The value and what mutates its state from outside; `desc` is its type. */
  readonly desc: typeof All;
  readonly make: () => { value: DynamicMessage; mutate: () => void };
}

const cases: [string, Case][] = [
  [
    "an occurrence passed to setUnknownFields, rewritten as field 1 with a length past the end",
    {
      desc: Leaf,
      make: () => {
        const occ = new Uint8Array([0x78, 0x01]); // field 15, varint 1
        return { value: DynamicMessage.newBuilder(Leaf).setUnknownFields(new Map([[15, [occ]]])).build(), mutate: () => occ.set([0x0a, 0x05]) };
      },
    },
  ],
  [
    "a decoded value's unknown occurrence as unknownFields hands it out (a view of its source bytes)",
    {
      desc: Leaf,
      make: () => {
        const value = ProtobufType.of(Leaf).createSerializer().fromBinary(new Uint8Array([0x0a, 0x01, 0x61, 0x78, 0x01]));
        return { value, mutate: () => value.unknownFields.get(15)![0]!.set([0x0a, 0x7f]) };
      },
    },
  ],
  [
    "a decoded value's unknown occurrence in a nested message",
    {
      desc: All,
      make: () => {
        const value = ProtobufType.of(All).createSerializer().fromBinary(new Uint8Array([0x8a, 0x01, 0x05, 0x0a, 0x01, 0x61, 0x78, 0x01]));
        return { value, mutate: () => (value.get("f_message") as DynamicMessage).unknownFields.get(15)![0]!.set([0x0a, 0x7f]) };
      },
    },
  ],
  [
    "a map field's Map through Map.prototype.set (its own set refuses)",
    {
      desc: All,
      make: () => {
        const value = DynamicMessage.create(All, { m_int32: new Map([[1, "a"]]), mv_message: { k: { name: "x" } } });
        return {
          value,
          mutate: () => {
            Map.prototype.set.call(value.get("m_int32"), "zz", 12345);
            Map.prototype.delete.call(value.get("mv_message"), "k");
          },
        };
      },
    },
  ],
  [
    "a list set on a builder as an Array subclass whose map and slice return itself, then pushed onto",
    {
      desc: Link,
      make: () => {
        class Kept extends Array<unknown> {
          override map(): never {
            return this as never;
          }
          override slice(): never {
            return this as never;
          }
        }
        const list = new Kept();
        list.push(DynamicMessage.create(Link, { id: 2 }));
        let deep = DynamicMessage.create(Link, { id: 1 });
        for (let i = 0; i < 10; i++) deep = DynamicMessage.create(Link, { next: deep });
        return { value: DynamicMessage.newBuilder(Link).set("list", list).build(), mutate: () => list.push(deep) };
      },
    },
  ],
];

describe.each(cases)("%s", (_, { desc, make }) => {
  test.each([100, 3])("does not change what the value writes (maxDepth %i)", (maxDepth) => {
    for (const ser of sers(desc, maxDepth)) {
      const { value, mutate } = make();
      const before = hex(ser.toBinary(value));
      try {
        mutate();
      } catch (e) {
        // Refusing the mutation outright is as good.
        expect(e).toBeInstanceOf(TypeError);
      }
      expect(hex(ser.toBinary(value))).toBe(before);
      expect(hex(ser.encodeAll([value]))).toBe(hex(ser.encodeAll([make().value])));
      // What it writes reads back as the value, within the serializer's own limits.
      expect(ser.fromBinary(ser.toBinary(value)).equals(value)).toBe(true);
      expect(value.equals(make().value)).toBe(true);
    }
  });
});
