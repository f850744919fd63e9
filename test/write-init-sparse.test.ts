// An init object sets a few fields of a wide type, possibly far apart. The direct walk visits an
// object's fields by index range, and for one whose keys are few for the range they span, the
// set fields alone, sorted (sparseInit in src/codec/generated-writer.ts): a loop over the range
// made 10,000 objects of the first and last fields of a 5,000-field type cost 121 µs each. Here:
// the bytes of that path are the dynamic writer's (field-number order whatever the key order and
// the declaration order), on the recursive walk (inline) and the frame stack (a recursive type),
// for key counts on both sides of the sort's two forms (32), with nested objects of the same type
// whose keys come in other orders, and with undefined, null and refused values among the keys.
import { describe, expect, test } from "vitest";
import type { DescMessage } from "@bufbuild/protobuf";
import { GeneratedMessageWriter } from "../src/codec/generated-writer.js";
import { MessageWriter } from "../src/codec/writer.js";
import { ProtobufType } from "../src/index.js";
import { hex } from "./support/differential.js";
import { L, T, messageOf } from "./support/descriptors.js";

const WIDTH = 600;

/** The fields and nested types of a message `name` of WIDTH fields, a oneof and Leaf fields (see wide). */
function wideBody(name: string, more: object[]) {
  const kinds = [
    { type: T.INT32, label: L.OPTIONAL },
    { type: T.STRING, label: L.OPTIONAL },
    { type: T.INT32, label: L.REPEATED },
    { type: T.BYTES, label: L.OPTIONAL },
    { type: T.DOUBLE, label: L.OPTIONAL },
    { type: T.MESSAGE, label: L.REPEATED },
  ];
  const field: object[] = [];
  for (let k = 1; k <= WIDTH; k++) {
    // A map's entry is its own nested type, named as protoc names it.
    const map = k % kinds.length === 5 ? { typeName: `.sparse.${name}.F${k}Entry` } : {};
    field.push({ name: `f${k}`, number: 1 + ((k * 7919) % WIDTH), ...kinds[k % kinds.length], ...map });
  }
  field.push(
    { name: "pa", number: 1001, type: T.STRING, label: L.OPTIONAL, oneofIndex: 0 },
    { name: "pb", number: 1002, type: T.INT32, label: L.OPTIONAL, oneofIndex: 0 },
    { name: "leaf", number: 1003, type: T.MESSAGE, label: L.OPTIONAL, typeName: ".sparse.Leaf" },
    { name: "leaves", number: 1004, type: T.MESSAGE, label: L.REPEATED, typeName: ".sparse.Leaf" },
    ...more,
  );
  const nestedType: object[] = [];
  for (let k = 5; k <= WIDTH; k += 6) nestedType.push(entry(`F${k}Entry`, { type: T.INT32 }));
  return { name, field, oneofDecl: [{ name: "pick" }], nestedType };
}

function entry(name: string, value: object) {
  return {
    name,
    field: [{ name: "key", number: 1, label: L.OPTIONAL, type: T.STRING }, { name: "value", number: 2, label: L.OPTIONAL, ...value }],
    options: { mapEntry: true },
  };
}

/**
 * Message `name` of package sparse: WIDTH fields f1..fWIDTH declared in an order that is not
 * their numbers' (field k is number 1 + (k * 7919) % WIDTH), of six kinds in turn, a oneof of two
 * members, a Leaf and a list of them. `recursive` adds a child, a list and a map of its own type
 * (the writer then takes the frame stack); otherwise the message holds `inner` and `inners` of
 * another wide type (the recursive walk then goes a level down into a wide type).
 */
function wide(name: string, recursive: boolean): DescMessage {
  const leaf = { name: "Leaf", field: [{ name: "n", number: 1, type: T.INT32, label: L.OPTIONAL }, { name: "s", number: 2, type: T.STRING, label: L.OPTIONAL }] };
  const types: object[] = [leaf];
  if (recursive) {
    const own = wideBody(name, [
      { name: "child", number: 1005, type: T.MESSAGE, label: L.OPTIONAL, typeName: `.sparse.${name}` },
      { name: "kids", number: 1006, type: T.MESSAGE, label: L.REPEATED, typeName: `.sparse.${name}` },
      { name: "named", number: 1007, type: T.MESSAGE, label: L.REPEATED, typeName: `.sparse.${name}.NamedEntry` },
    ]);
    own.nestedType.push(entry("NamedEntry", { type: T.MESSAGE, typeName: `.sparse.${name}` }));
    types.push(own);
  } else {
    types.push(wideBody("Inner", []));
    types.push(
      wideBody(name, [
        { name: "child", number: 1005, type: T.MESSAGE, label: L.OPTIONAL, typeName: ".sparse.Inner" },
        { name: "kids", number: 1006, type: T.MESSAGE, label: L.REPEATED, typeName: ".sparse.Inner" },
      ]),
    );
  }
  return messageOf([{ name: "sparse.proto", package: "sparse", syntax: "proto3", messageType: types }], `sparse.${name}`);
}

/** A deterministic generator (xorshift), so that a failure names its case. */
function rng(seed: number) {
  let x = seed | 1;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  return { next, int: (n: number) => Math.floor(next() * n) };
}

/** A value for field fk (its kind: k % 6). */
function valueOf(k: number, r: ReturnType<typeof rng>): unknown {
  switch (k % 6) {
    case 0:
      return r.int(3) === 0 ? -1 - r.int(1000) : 1 + r.int(1 << 20);
    case 1:
      return "s".repeat(1 + r.int(60)) + k;
    case 2:
      return Array.from({ length: 1 + r.int(5) }, () => r.int(300) - 100);
    case 3:
      return new Uint8Array([k & 255, 1, 2]);
    case 4:
      return k / 7;
    default:
      return { [`k${k}`]: k, [`j${k}`]: -k };
  }
}

/**
 * An init object of `keys` fields picked across the whole type, in a random key order, with
 * undefined and null among them, a oneof member, a Leaf; with `depth` > 0, a child and kids (and,
 * for a recursive type, a named map) of the same type or of Inner, whose keys come in other orders.
 */
function initOf(r: ReturnType<typeof rng>, keys: number, recursive: boolean, depth: number): Record<string, unknown> {
  const picked = new Set<number>([1, WIDTH]);
  while (picked.size < keys) picked.add(1 + r.int(WIDTH));
  const entries: [string, unknown][] = [...picked].map((k) => [`f${k}`, valueOf(k, r)]);
  entries.push(["leaf", { n: r.int(9), s: "leaf" }]);
  if (r.int(2) === 0) entries.push(r.int(2) === 0 ? ["pa", "member"] : ["pb", 7]);
  if (r.int(3) === 0) entries.push(["leaves", [{ n: 1 }, { s: "two" }]]);
  for (let i = 0; i < 3; i++) entries.push([`f${1 + r.int(WIDTH)}`, r.int(2) === 0 ? undefined : null]);
  if (depth > 0) {
    // Objects of the same type (recursive) or of Inner, with keys in orders of their own.
    const below = recursive ? depth - 1 : 0;
    entries.push(["child", initOf(r, 1 + r.int(40), recursive, below)]);
    entries.push(["kids", Array.from({ length: 1 + r.int(3) }, () => initOf(r, 1 + r.int(40), recursive, below))]);
    if (recursive && r.int(2) === 0) entries.push(["named", { a: initOf(r, 2 + r.int(5), true, below) }]);
  }
  // A later key wins in an object literal; the shuffle must not turn a value into a null.
  const seen = new Map<string, unknown>();
  for (const [k, v] of entries) if (!seen.has(k) || (v !== undefined && v !== null)) seen.set(k, v);
  const order = [...seen.keys()];
  for (let i = order.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const o: Record<string, unknown> = {};
  for (const k of order) o[k] = seen.get(k);
  return o;
}

for (const recursive of [false, true]) {
  const desc = wide(recursive ? "Tree" : "Flat", recursive);
  const type = ProtobufType.of(desc);
  const det = ProtobufType.newBuilder(desc).deterministic(true).build();
  const writers = [type, det].map((t) => ({ direct: new GeneratedMessageWriter(desc, t.settings, true), dynamic: new MessageWriter(desc, { settings: t.settings }) }));

  describe(`${desc.typeName}: ${WIDTH} fields, ${recursive ? "recursive (the frame stack)" : "holding another wide type (the recursive walk)"}`, () => {
    test.each([1, 2, 5, 20, 32, 33, 60, 120])("init objects of %i fields spread across the type: the dynamic writer's bytes", (keys) => {
      for (let seed = 1; seed <= 12; seed++) {
        const r = rng(seed * 1000 + keys);
        const init = initOf(r, keys, recursive, recursive ? 3 : 1);
        for (const w of writers) {
          const want = hex(w.dynamic.toBinary(init));
          // Written by the direct walk itself (GeneratedMessageWriter has no fallback).
          expect(hex(w.direct.toBinary(init)), `seed ${seed}`).toBe(want);
          expect(hex(w.direct.encodeFrame(init)), `seed ${seed}`).toBe(hex(w.dynamic.encodeFrame(init)));
        }
        // Through the serializer too, and in a batch (objects of one shape, then another).
        expect(hex(type.createSerializer().encodeAll([init, init, { f1: "one" }, init]))).toBe(hex(new Uint8Array([...[init, init, { f1: "one" }, init].flatMap((v) => [...writers[0]!.dynamic.encodeFrame(v)])])));
      }
    });

    test("a refused value after some fields are written: the error is create's, and the next write is clean", () => {
      const ser = type.createSerializer();
      // f6 is an int32 (kind 6 % 6 = 0).
      const bad = { f1: "one", [`f${WIDTH}`]: 2, f6: "not an int32" };
      expect(() => ser.toBinary(bad)).toThrow(/f6\(\d+\) expects int32, got string "not an int32"/);
      const good = { [`f${WIDTH}`]: 2, f1: "one" };
      expect(hex(ser.toBinary(good))).toBe(hex(writers[0]!.dynamic.toBinary(good)));
      // The direct walk alone: refused (REFUSED is its own), then the same writer writes cleanly.
      expect(() => writers[0]!.direct.toBinary(bad)).toThrow();
      expect(hex(writers[0]!.direct.toBinary(good))).toBe(hex(writers[0]!.dynamic.toBinary(good)));
    });
  });
}
