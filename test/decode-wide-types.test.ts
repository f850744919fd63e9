// Wide types: a message of thousands of fields, a oneof of thousands of members, thousands of
// oneofs (proto3 `optional` fields are one-member oneofs). A wide type's values hold only the
// fields they set (src/message/values.ts) and every loop over "all fields" visits those only, so
// these tests pin that every path still sees the same value: bytes in field-number order (the
// declaration order below is not the number order), @bufbuild/protobuf reading them alike,
// last-member-wins across thousands of members, equality, JSON both ways, toObject's keys,
// whichOneof and builders. (Growth with N is swept by stress/families/values-wide-types.mjs.)
import { equals, fromBinary, toJson, type DescMessage } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType, type DynamicInit, type ProtobufSerializer } from "../src/index.js";
import { L, T, messageOf } from "./support/descriptors.js";
import { parseRecords } from "./support/wire-scramble.js";

const MEMBERS = 1_200; // pick: m1..m1200, numbers 1..1200
const OPTIONALS = 300; // o1..o300, proto3 optional int64, numbers 2001..2300
const ONEOFS = 1_100; // p1..p1100, each alone in oneof q<i>, strings, numbers 3001..4100

function wideDesc(): DescMessage {
  const field: object[] = [
    // Declared first, numbered last: declaration order is not number order.
    { name: "kids", number: 5005, label: L.REPEATED, type: T.MESSAGE, typeName: ".wide.Wide" },
    { name: "child", number: 5004, label: L.OPTIONAL, type: T.MESSAGE, typeName: ".wide.Wide" },
    { name: "s", number: 5001, label: L.OPTIONAL, type: T.STRING },
    { name: "r", number: 5002, label: L.REPEATED, type: T.INT32 },
    { name: "mp", number: 5003, label: L.REPEATED, type: T.MESSAGE, typeName: ".wide.Wide.MpEntry" },
  ];
  const oneofDecl: object[] = [{ name: "pick" }];
  for (let i = ONEOFS; i >= 1; i--) {
    field.push({ name: `p${i}`, number: 3000 + i, label: L.OPTIONAL, type: T.STRING, oneofIndex: oneofDecl.length });
    oneofDecl.push({ name: `q${i}` });
  }
  for (let i = 1; i <= MEMBERS; i++) field.push({ name: `m${i}`, number: i, label: L.OPTIONAL, type: T.INT32, oneofIndex: 0 });
  for (let i = 1; i <= OPTIONALS; i++) {
    field.push({ name: `o${i}`, number: 2000 + i, label: L.OPTIONAL, type: T.INT64, oneofIndex: oneofDecl.length, proto3Optional: true });
    oneofDecl.push({ name: `_o${i}` });
  }
  const entry = {
    name: "MpEntry",
    field: [
      { name: "key", number: 1, label: L.OPTIONAL, type: T.STRING },
      { name: "value", number: 2, label: L.OPTIONAL, type: T.INT32 },
    ],
    options: { mapEntry: true },
  };
  // json_name as protoc and buf fill it in (a descriptor without it has JSON names "").
  for (const f of [...field, ...entry.field] as { name: string; jsonName?: string }[]) f.jsonName = f.name;
  return messageOf([{ name: "wide.proto", package: "wide", syntax: "proto3", messageType: [{ name: "Wide", field, oneofDecl, nestedType: [entry] }] } as never], "wide.Wide");
}

const desc = wideDesc();
const type = ProtobufType.newBuilder(desc).maxDepth(8).build();
const ser = type.createSerializer();
const det = ProtobufType.newBuilder(desc).maxDepth(8).deterministic(true).build().createSerializer();

const CASES: [string, DynamicInit][] = [
  ["nothing set", {}],
  ["the first member", { m1: 5 }],
  ["the last member", { [`m${MEMBERS}`]: -1 }],
  ["a member past V8's 1,024 gap", { m1100: 7 }],
  ["optionals at both ends, one zero", { o1: 0n, [`o${OPTIONALS}`]: -9n, o150: 3n }],
  ["one-member oneofs, empty string set", { p1: "", [`p${ONEOFS}`]: "last", p600: "mid" }],
  ["implicit fields", { s: "text", r: [1, -2, 3], mp: { a: 1, b: 0 } }],
  ["every kind at once", { m600: 1, o2: 2n, p3: "3", s: "s", r: [4], mp: { k: 5 } }],
  ["nested wide values", { m2: 1, child: { [`m${MEMBERS}`]: 2, child: { p9: "deep" } }, kids: [{ o7: 7n }, {}, { m1: 1, s: "k" }] }],
];

/** The toObject keys a value of `desc` shows: set fields and implicit ones, in declaration order. */
function shownKeys(m: DynamicMessage): string[] {
  return m.descriptor.fields
    .filter((f) => m.has(f.name) || (f.fieldKind === "scalar" && f.presence === 2) || f.fieldKind === "list" || f.fieldKind === "map")
    .map((f) => f.name);
}

/** Every path on one value of `desc` (written by `ser`, `det` its deterministic twin). */
function checkValue(desc: DescMessage, ser: ProtobufSerializer, det: ProtobufSerializer, init: DynamicInit): void {
  const m = DynamicMessage.create(desc, init);
  const bytes = ser.toBinary(m);
  // Field-number order, whatever the declaration order; the plain init writes the same bytes.
  const numbers = parseRecords(bytes).map((r) => r.no);
  expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  expect(ser.toBinary(init)).toEqual(bytes);
  expect(det.toBinary(m)).toEqual(bytes);
  // @bufbuild/protobuf reads the same content, and writes JSON alike.
  const es = fromBinary(desc, bytes);
  expect(ser.toJson(m)).toEqual(toJson(desc, es));
  // Read back (TypeScript reader below 256 bytes, the core above), equal, written alike.
  const back = ser.fromBinary(bytes);
  expect(back.equals(m)).toBe(true);
  expect(det.toBinary(back)).toEqual(bytes);
  expect(ser.fromJson(ser.toJson(m)).equals(m)).toBe(true);
  expect(equals(desc, fromBinary(desc, det.toBinary(ser.fromJson(toJson(desc, es)))), es)).toBe(true);
  expect(Object.keys(m.toObject())).toEqual(shownKeys(m));
  expect(m.toBuilder().build().equals(m)).toBe(true);
}

describe("wide types: every path sees the set fields of a wide value", () => {
  test.each(CASES)("%s", (_, init) => checkValue(desc, ser, det, init));

  // Around the width where values start holding only their set fields (values.ts WIDE = 1,024).
  test.each([1_000, 1_023, 1_024, 1_025, 1_100])("%i fields, set at both ends and in the middle", (n) => {
    const field = Array.from({ length: n }, (_, j) => ({
      name: `f${j + 1}`, jsonName: `f${j + 1}`, number: n - j, label: L.OPTIONAL, type: j % 2 === 0 ? T.INT32 : T.STRING,
      ...(j % 3 === 0 ? { oneofIndex: 0 } : {}),
    }));
    const d = messageOf([{ name: "n.proto", package: "n", syntax: "proto3", messageType: [{ name: "N", field, oneofDecl: [{ name: "o" }] }] } as never], "n.N");
    const s = ProtobufType.of(d).createSerializer();
    const sd = ProtobufType.newBuilder(d).deterministic(true).build().createSerializer();
    const v = (j: number) => (j % 2 === 0 ? j + 1 : `v${j}`);
    for (const js of [[0], [n - 1], [1, Math.floor(n / 2), n - 2], [2, 4, 5, n - 1]]) {
      checkValue(d, s, sd, Object.fromEntries(js.map((j) => [`f${j + 1}`, v(j)])));
    }
  });

  test("values of a wide type with the same number of set fields, or the same fields, differ when their content does", () => {
    const a = DynamicMessage.create(desc, { m5: 1, p7: "x" });
    const same = ser.fromBinary(ser.toBinary(a));
    const rows: [DynamicInit, boolean][] = [
      [{ m5: 1, p7: "x" }, true],
      [{ m6: 1, p7: "x" }, false],
      [{ m5: 2, p7: "x" }, false],
      [{ m5: 1, p8: "x" }, false],
      [{ m5: 1, p7: "x", o1: 0n }, false],
      [{ m5: 1 }, false],
    ];
    for (const [init, equal] of rows) {
      const b = DynamicMessage.create(desc, init);
      expect([a.equals(b), b.equals(a), same.equals(b)]).toEqual([equal, equal, equal]);
    }
  });
});

describe("wide types: the last member read wins among thousands", () => {
  // m5, then m1200, then m7 (last): one member set. p-oneofs and optionals keep their own.
  const parts = (pad: string): DynamicInit[] => [{ m5: 5, p1: "a" }, { [`m${MEMBERS}`]: 1, s: pad }, { m7: 7, o3: 3n, p1: "b" }];
  test.each([
    ["small input (the TypeScript reader)", ""],
    ["large input (the core)", "x".repeat(400)],
  ])("%s", (_, pad) => {
    const bytes = new Uint8Array(parts(pad).flatMap((p) => [...ser.toBinary(p)]));
    const m = ser.fromBinary(bytes);
    const expected = DynamicMessage.create(desc, { m7: 7, o3: 3n, p1: "b", s: pad });
    expect(m.equals(expected)).toBe(true);
    expect(expected.equals(m)).toBe(true);
    expect(m.whichOneof("pick")).toBe("m7");
    expect(m.whichOneof("q1")).toBe("p1");
    expect(m.whichOneof(`q${ONEOFS}`)).toBeUndefined();
    expect(m.has("o3") && !m.has("o4")).toBe(true);
    // A relay writes the bytes it read; deterministic output writes the value.
    expect(ser.toBinary(m)).toEqual(bytes);
    expect(det.toBinary(m)).toEqual(ser.toBinary(expected));
    expect(Object.keys(m.toObject())).toEqual(shownKeys(expected));
    expect(ser.toJson(m)).toEqual(toJson(desc, fromBinary(desc, bytes)));
  });
});

describe("wide types: builders", () => {
  test("setting a member clears the one set, across thousands of members; clear and add keep the rest", () => {
    const m = DynamicMessage.create(desc, { m3: 3, r: [1], mp: { a: 1 } });
    const b = m.toBuilder().set(`m${MEMBERS}`, 9).add("r", 2).put("mp", "b", 2);
    const one = b.build();
    expect(one.whichOneof("pick")).toBe(`m${MEMBERS}`);
    expect(one.has("m3")).toBe(false);
    const two = b.set("m1", 1).clear("r").build();
    expect(ser.toBinary(two)).toEqual(ser.toBinary({ m1: 1, mp: { a: 1, b: 2 } }));
    expect(ser.toBinary(one)).toEqual(ser.toBinary({ [`m${MEMBERS}`]: 9, r: [1, 2], mp: { a: 1, b: 2 } }));
    // The value the builder started from is untouched.
    expect(ser.toBinary(m)).toEqual(ser.toBinary({ m3: 3, r: [1], mp: { a: 1 } }));
    const fresh = DynamicMessage.newBuilder(desc).set("p1100", "z").set("o300", 1n).build();
    expect(fresh.equals(DynamicMessage.create(desc, { p1100: "z", o300: 1n }))).toBe(true);
  });

  test("a oneof named twice in one init object is refused, on create and on write from plain data", () => {
    const init = { m1: 1, [`m${MEMBERS}`]: 2 };
    const message = `oneof wide.Wide.pick has two members set: "m1" and "m${MEMBERS}"; set at most one`;
    expect(() => DynamicMessage.create(desc, init)).toThrow(message);
    expect(() => ser.toBinary(init)).toThrow(message);
  });
});
