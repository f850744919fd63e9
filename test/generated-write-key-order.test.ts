// The generated writer writes a protobuf-es object's fields as its keys are read while they come
// in field-number order, and writes a type by field number from values read first once one of its
// objects lists a field after a higher one (a field with explicit presence set after create: its
// key comes last). The write in progress is then taken back and the object written again: the
// bytes must be protobuf-es' own wherever in the output that happens (after long lengths, inside a
// list, inside a batch), for that value and every later one, and the value is read at most twice.
import { create, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";

interface Schemas {
  top: DescMessage;
  mid: DescMessage;
  leaf: DescMessage;
}

/** Fresh descriptors per case: what a type learned of key order lives with its descriptor. */
function schemas(): Schemas {
  const r = registryFromDir("fixtures/key-order");
  return { top: r.getMessage("keyorder.Top")!, mid: r.getMessage("keyorder.Mid")!, leaf: r.getMessage("keyorder.Leaf")! };
}

type Obj = MessageShape<DescMessage>;
const long = "x".repeat(200);

/**
 * `create(desc)` with `fields` set on it afterwards, as protobuf-es' fromBinary sets fields read:
 * a field with explicit presence (a message, `optional`) is a key added after all of create's.
 */
const built = (desc: DescMessage, fields: object): Obj => Object.assign(create(desc), fields);

/** Mid objects: in field order, or with `leaf` (2) listed after `leaves` (3, written first, with a long length) and `n` (6). */
const inOrder = (s: Schemas, a = "in"): Obj => built(s.mid, { a, leaves: [create(s.leaf, { s: "l1", b: new Uint8Array([1, 2]) })], n: 3, opt: "o" });
const outOfOrder = (s: Schemas, a = "out"): Obj =>
  built(s.mid, { a, leaves: [create(s.leaf, { s: long })], n: 7, leaf: create(s.leaf, { s: long, b: new Uint8Array(3) }) });
const oneofLeaf = (s: Schemas): Obj => built(s.mid, { a: "p", pick: { case: "pLeaf", value: create(s.leaf, { s: "in the oneof" }) }, n: 1 });
const top = (s: Schemas, fields: object): Obj => built(s.top, fields);

const CASES: [string, (s: Schemas) => { desc: DescMessage; values: Obj[] }][] = [
  ["Mid in order only", (s) => ({ desc: s.mid, values: [inOrder(s), inOrder(s, "again"), oneofLeaf(s)] })],
  ["Mid out of order first", (s) => ({ desc: s.mid, values: [outOfOrder(s), inOrder(s), outOfOrder(s, "b")] })],
  ["Mid in order, then out of order, then in order", (s) => ({ desc: s.mid, values: [inOrder(s), outOfOrder(s), inOrder(s), oneofLeaf(s)] })],
  ["a list of Mid: the second element out of order", (s) => ({ desc: s.top, values: [top(s, { mids: [inOrder(s), outOfOrder(s), inOrder(s)], tail: "t" })] })],
  ["Top out of order after long elements (mid set after tail)", (s) => ({
    desc: s.top,
    values: [top(s, { mids: [inOrder(s, long), inOrder(s, long)], tail: long, mid: inOrder(s) }), top(s, { mids: [inOrder(s)], tail: "t" })],
  })],
  ["Top and Mid both out of order, nested", (s) => ({
    desc: s.top,
    values: [top(s, { mids: [outOfOrder(s, long)], tail: "t", mid: outOfOrder(s) }), top(s, { mid: inOrder(s) })],
  })],
  ["an object built by assignment in reverse order", (s) => {
    const o = { $typeName: "keyorder.Mid" } as Record<string, unknown>;
    o.opt = "o";
    o.n = 5;
    o.pick = { case: "pStr", value: "p" };
    o.leaves = [];
    o.leaf = create(s.leaf, { s: "l" });
    o.a = "a";
    return { desc: s.mid, values: [o as Obj, inOrder(s)] };
  }],
];

/** True when `o` or a message it holds lists a field after one of a higher number (its type's). */
function outOfOrderKeys(o: unknown): boolean {
  if (o === null || typeof o !== "object" || o instanceof Uint8Array) return false;
  if (Array.isArray(o)) return o.some(outOfOrderKeys);
  const m = o as Record<string, unknown>;
  if (typeof m.$typeName === "string") {
    const r = registryFromDir("fixtures/key-order").getMessage(m.$typeName)!;
    const numbers = Object.keys(m).flatMap((k) => r.members.filter((f) => f.localName === k).map((f) => (f.kind === "oneof" ? f.fields[0]!.number : f.number)));
    if (numbers.some((n, i) => i > 0 && n < numbers[i - 1]!)) return true;
  }
  return Object.values(m).some(outOfOrderKeys);
}

/** The frames protobuf-es would write for `values`: each length-prefixed. */
function frames(desc: DescMessage, values: Obj[]): Uint8Array {
  const parts: number[] = [];
  for (const v of values) {
    const b = toBinary(desc, v);
    let n = b.length;
    while (n > 0x7f) {
      parts.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    parts.push(n, ...b);
  }
  return new Uint8Array(parts);
}

describe("generated write of objects whose keys are out of field order", () => {
  test.each(CASES)("%s: toBinary, one by one", (_, make) => {
    const { desc, values } = make(schemas());
    const ser = ProtobufType.ofGenerated(desc).createSerializer();
    expect(values.some(outOfOrderKeys), "a case whose name says out of order holds such a value").toBe(/out of order|reverse/.test(_));
    for (const v of values) expect(ser.toBinary(v)).toEqual(toBinary(desc, v));
  });

  test.each(CASES)("%s: encodeAll, in one output", (_, make) => {
    const { desc, values } = make(schemas());
    const ser = ProtobufType.ofGenerated(desc).createSerializer();
    expect(ser.encodeAll(values)).toEqual(frames(desc, values));
    // and again, once the types have settled how they are written
    expect(ser.encodeAll(values)).toEqual(frames(desc, values));
  });

  test("a type declared out of number order is written by number from its first object: each property read once", () => {
    const r = registryFromDir("fixtures/key-order");
    const desc = r.getMessage("keyorder.Reversed")!;
    const ser = ProtobufType.ofGenerated(desc).createSerializer();
    let reads = 0;
    const o = create(desc, { z: "zz", a: 1, leaf: { s: "l" } } as never) as Record<string, unknown>;
    expect(Object.keys(o).slice(1, 3)).toEqual(["z", "a"]);
    Object.defineProperty(o, "z", { enumerable: true, configurable: true, get: () => (reads++, "zz") });
    expect(ser.toBinary(o as never)).toEqual(toBinary(desc, create(desc, { z: "zz", a: 1, leaf: { s: "l" } } as never)));
    expect(reads).toBe(1);
  });

  test("the first key out of order is read once (its order is known before its value is read)", () => {
    const s = schemas();
    const ser = ProtobufType.ofGenerated(s.mid).createSerializer();
    let leafReads = 0;
    const o = built(s.mid, { a: "a", n: 2 }) as Record<string, unknown>;
    Object.defineProperty(o, "leaf", { enumerable: true, configurable: true, get: () => (leafReads++, create(s.leaf, { s: "l" })) });
    expect(ser.toBinary(o as never)).toEqual(toBinary(s.mid, built(s.mid, { a: "a", n: 2, leaf: create(s.leaf, { s: "l" }) })));
    expect(leafReads).toBe(1);
  });

  test("a value taken back is read twice at most, and its second reading is the one written", () => {
    const s = schemas();
    const ser = ProtobufType.ofGenerated(s.mid).createSerializer();
    let reads = 0;
    // A lone surrogate on the first reading only: the write taken back must not remember it.
    const o = {
      $typeName: "keyorder.Mid",
      get a() {
        reads++;
        return reads === 1 ? "\ud800" : "clean";
      },
      n: 2,
      leaf: create(s.leaf, { s: "l" }),
    };
    const bytes = ser.toBinary(o as never);
    expect(reads).toBe(2);
    expect(bytes).toEqual(toBinary(s.mid, create(s.mid, { a: "clean", n: 2, leaf: { s: "l" } } as never)));
  });
});
