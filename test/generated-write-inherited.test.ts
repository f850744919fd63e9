// Inherited keys of protobuf-es message objects, as protobuf-es' toBinary reads them: a field with
// explicit presence (a singular message, an `optional` scalar) only as an own property, other
// fields through the prototype chain too (an Object.create of a message); and with
// Object.prototype polluted, before the write or by a getter during it, no inherited key at all.
// The generated writer wrote an inherited `optional` field, and after a getter's pollution the
// objects it read later took the polluted property as their field.
import { create, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { pollute, polluting } from "./support/pollute.js";

polluting();

/** Fresh descriptors per test: what a type learned of its objects' key order lives with it. */
function types(): { mid: DescMessage; top: DescMessage; leaf: DescMessage } {
  const r = registryFromDir("fixtures/key-order");
  return { mid: r.getMessage("keyorder.Mid")!, top: r.getMessage("keyorder.Top")!, leaf: r.getMessage("keyorder.Leaf")! };
}
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** Both writes of each value (a fresh type's first, and once settled), toBinary and encodeAll, as protobuf-es writes it. */
function writesAsEs(desc: DescMessage, make: () => object): void {
  const ser = ProtobufType.ofGenerated(desc).createSerializer();
  for (let round = 0; round < 2; round++) {
    const expected = hex(toBinary(desc, make() as never));
    expect(hex(ser.toBinary(make() as never)), `toBinary, round ${round}`).toBe(expected);
    const frames = ser.encodeAll([make() as never]);
    expect(hex(frames.subarray(1)), `encodeAll, round ${round}`).toBe(expected);
  }
}

describe("an object whose prototype is a message (Object.create)", () => {
  test.each([
    ["implicit fields inherited, explicit ones inherited", (t: ReturnType<typeof types>) => Object.create(create(t.mid, { a: "base", n: 3, opt: "o", leaf: create(t.leaf, { s: "l" }) }))],
    ["an own implicit field over inherited ones", (t: ReturnType<typeof types>) => Object.assign(Object.create(create(t.mid, { a: "base", n: 3, opt: "o" })), { a: "own" })],
    ["own explicit fields over inherited ones", (t: ReturnType<typeof types>) => Object.assign(Object.create(create(t.mid, { opt: "inherited", leaf: create(t.leaf, { s: "inherited" }) })), { opt: "own", leaf: create(t.leaf, { s: "own" }) })],
    ["a oneof inherited", (t: ReturnType<typeof types>) => Object.create(create(t.mid, { pick: { case: "pStr", value: "p" } }))],
    ["nested in a list of a plain message", (t: ReturnType<typeof types>) => create(t.top, { mids: [Object.create(create(t.mid, { a: "x", opt: "o" }))], tail: "t" })],
  ])("%s: the bytes protobuf-es writes", (_, make) => {
    const t = types();
    const desc = make(t).$typeName === "keyorder.Top" ? t.top : t.mid;
    writesAsEs(desc, () => make(t));
  });

  test("an inherited $unknown is not written (protobuf-es reads it through the chain; data of no own property is not the message's)", () => {
    const t = types();
    const base = Object.assign(create(t.mid, { a: "x" }), { $unknown: [{ no: 99, wireType: 0, data: new Uint8Array([1]) }] });
    const ser = ProtobufType.ofGenerated(t.mid).createSerializer();
    expect(hex(ser.toBinary(Object.create(base)))).toBe(hex(toBinary(t.mid, create(t.mid, { a: "x" }))));
  });
});

describe("Object.prototype polluted", () => {
  test.each(["opt", "leaf", "a", "$unknown"])("before the write, with %s: no inherited key is written", (name) => {
    const t = types();
    // made before the pollution: protobuf-es' create reads its init object's inherited keys too
    const values = [0, 1].map(() => create(t.top, { mids: [create(t.mid, { a: "x", n: 2 })], mid: create(t.mid, { n: 1 }) }));
    const clean = hex(toBinary(t.top, values[0]!));
    pollute(name, name === "leaf" ? create(t.leaf, { s: "EVIL" }) : name === "$unknown" ? [{ no: 99, wireType: 0, data: new Uint8Array([1]) }] : "EVIL");
    const ser = ProtobufType.ofGenerated(t.top).createSerializer();
    for (const v of values) expect(hex(ser.toBinary(v))).toBe(clean);
  });

  test.each([
    ["by a getter of the root's last field", 0],
    ["by a getter of the first list element", 1],
  ])("during the write, %s: objects read after it take no inherited key", (_, where) => {
    const t = types();
    /** A Top whose `where`-th object pollutes `opt` when its `a` is read. */
    const make = (): object => {
      const mids = [create(t.mid, { a: "m0", n: 1 }), create(t.mid, { a: "m1", n: 2 })];
      const top = create(t.top, { mids, tail: "t" });
      const holder = where === 0 ? top : mids[0]!;
      const key = where === 0 ? "tail" : "a";
      const value = (holder as Record<string, unknown>)[key];
      Object.defineProperty(holder, key, {
        enumerable: true,
        configurable: true,
        get() {
          if (!Object.hasOwn(Object.prototype, "opt")) pollute("opt", "EVIL");
          return value;
        },
      });
      return top;
    };
    const clean = hex(toBinary(t.top, create(t.top, { mids: [create(t.mid, { a: "m0", n: 1 }), create(t.mid, { a: "m1", n: 2 })], tail: "t" })));
    const ser = ProtobufType.ofGenerated(t.top).createSerializer();
    const unpollute = () => delete (Object.prototype as Record<string, unknown>).opt;
    for (let round = 0; round < 2; round++) {
      expect(hex(ser.toBinary(make() as never)), `round ${round}`).toBe(clean);
      expect(Object.hasOwn(Object.prototype, "opt"), "the getter ran").toBe(true);
      unpollute();
      expect(hex(ser.encodeAll([make() as never]).subarray(1)), `encodeAll, round ${round}`).toBe(clean);
      unpollute();
    }
  });

  test.each<[string, () => unknown, number]>([
    ["a value of the wrong type", () => 5, 67_108_864],
    ["an object that is no message", () => ({ nope: 1 }), 67_108_864],
    ["a string past maxMessageBytes", () => "x".repeat(30_000), 1000],
  ])("during the write, with %s: written as its own keys say, not failed on the polluted one", (_, polluting, maxMessageBytes) => {
    const t = types();
    const ser = ProtobufType.newGeneratedBuilder(t.top).maxMessageBytes(maxMessageBytes).build().createSerializer();
    const clean = hex(toBinary(t.top, create(t.top, { mids: [create(t.mid, { a: "m0", n: 1 }), create(t.mid, { a: "m1", n: 2 })], tail: "t" })));
    for (const name of ["opt", "leaf"]) {
      const make = (): object => {
        const mids = [create(t.mid, { a: "m0", n: 1 }), create(t.mid, { a: "m1", n: 2 })];
        Object.defineProperty(mids[0], "a", {
          enumerable: true,
          configurable: true,
          get() {
            if (!Object.hasOwn(Object.prototype, name)) pollute(name, polluting());
            return "m0";
          },
        });
        return create(t.top, { mids, tail: "t" });
      };
      expect(hex(ser.toBinary(make() as never)), name).toBe(clean);
      delete (Object.prototype as Record<string, unknown>)[name];
      expect(hex(ser.encodeAll([make() as never]).subarray(1)), `${name}, encodeAll`).toBe(clean);
      delete (Object.prototype as Record<string, unknown>)[name];
    }
  });

  test("before the write, a value's own fault is the one named, not a polluted field it does not have", () => {
    const t = types();
    const ser = ProtobufType.ofGenerated(t.top).createSerializer();
    const value = create(t.top, { mids: [create(t.mid, { a: "x" })] });
    (value as Record<string, unknown>).tail = 5;
    pollute("opt", 5);
    expect(() => ser.toBinary(value)).toThrow(new TypeError("field keyorder.Top.tail(3) expects string, got number 5"));
  });
});
