// How the generated kind builds protobuf-es objects (src/codec/generated-reader.ts): the core's tape
// reader sets each field on its object as it is read, with the zero values create() would have set
// before it; the small reader makes each message once from its values by slot (`build`). Neither
// is protobuf-es' create() followed by a store per field read. What that must keep, on both paths:
// - the objects are protobuf-es' own: the same properties (no property holding undefined), in the
//   same order, with the same values (toStrictEqual and the key order of every object);
// - a later occurrence of a singular message field merges into the earlier one (plain messages,
//   wrappers, Struct, oneof members), and a oneof keeps only its last member read;
// - nothing of one message leaks into the next: the decoder's per-depth scratch is empty after
//   every decode, whatever the previous message held at that depth, and after a failed one.
import { create, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";
import { afterAll, describe, expect, test } from "vitest";
import { CodecError, ProtobufType } from "../src/index.js";
import { setSmallDecodeThreshold } from "../src/codec/reader.js";
import { messageArb } from "./support/arbitrary-message.js";
import { check } from "./support/property.js";
import { keyOrder } from "./support/key-order.js";
import { rng, scramble, varint } from "./support/wire-scramble.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";
import { OrderSchema } from "./fixtures/generated-es/gen/es_fixtures_pb.js";

const PATHS: [string, number][] = [
  ["the core's tape", 0],
  ["the small reader", 1 << 20],
];
const initial = setSmallDecodeThreshold(setSmallDecodeThreshold(0));
afterAll(() => void setSmallDecodeThreshold(initial));

function expectSame(ours: unknown, theirs: unknown): void {
  expect(ours).toStrictEqual(theirs);
  expect(keyOrder(ours)).toEqual(keyOrder(theirs));
}

const tag = (no: number, wt: number) => varint(no * 8 + wt);
const len = (no: number, body: number[]) => [...tag(no, 2), ...varint(body.length), ...body];
const ascii = (s: string) => [...new TextEncoder().encode(s)];
const leaf = (name: string | undefined, value?: number) => [...(name === undefined ? [] : len(1, ascii(name))), ...(value === undefined ? [] : [...tag(2, 0), ...varint(value)])];
const structOf = (key: string, n: number) => len(1, [...len(1, ascii(key)), ...len(2, [...tag(2, 1), ...new Uint8Array(new Float64Array([n]).buffer)])]);
const structText = (key: string, text: string) => len(1, [...len(1, ascii(key)), ...len(2, len(3, ascii(text)))]);

// AllTypes field numbers used below (test/fixtures/all-types/all_types.proto).
const F_MESSAGE = 17;
const O_MESSAGE = 37;
const MV_MESSAGE = 95;
const C_MESSAGE = 101;
const C_STRING = 104;
const OC_BOOL = 111;
const OC_DOUBLE = 112;
const R_INT32 = 45;
const U_INT32 = 65;
const M_STRING = 92;
const RECURSIVE = 122;
const CHILDREN = 123;
const WKT_STRUCT = 144;
const WKT_INT32 = 149;
const WKT_STRING = 156;

const MERGES: [string, number[]][] = [
  ["a singular message twice merges", [...len(F_MESSAGE, leaf("a")), ...len(F_MESSAGE, leaf(undefined, 2))]],
  ["the second occurrence overrides a field of the first", [...len(F_MESSAGE, leaf("a", 1)), ...len(F_MESSAGE, leaf("b"))]],
  ["an optional message twice merges", [...len(O_MESSAGE, leaf("a")), ...len(O_MESSAGE, leaf(undefined, 3))]],
  ["a wrapper twice (held unboxed) merges", [...len(WKT_INT32, [...tag(1, 0), 5]), ...len(WKT_INT32, [])]],
  ["a wrapper twice, the second sets it", [...len(WKT_STRING, []), ...len(WKT_STRING, len(1, ascii("x")))]],
  ["a Struct twice (held as a JsonObject) merges its keys", [...len(WKT_STRUCT, structOf("a", 1)), ...len(WKT_STRUCT, structOf("b", 2)), ...len(WKT_STRUCT, structOf("a", 3))]],
  ["a oneof message member twice merges", [...len(C_MESSAGE, leaf("a")), ...len(C_MESSAGE, leaf(undefined, 4))]],
  ["a oneof member, another, then the first again: only the last is kept", [...len(C_MESSAGE, leaf("a")), ...len(C_STRING, ascii("s")), ...len(C_MESSAGE, leaf(undefined, 5))]],
  ["two oneofs, each switching members", [...tag(OC_BOOL, 0), 1, ...len(C_STRING, ascii("s")), ...tag(OC_DOUBLE, 1), 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, ...len(C_MESSAGE, leaf("z"))]],
  ["merges two levels down, unknown fields of the first occurrence kept", [...len(RECURSIVE, [...len(F_MESSAGE, leaf("a")), ...tag(999, 0), 7]), ...len(RECURSIVE, [...len(F_MESSAGE, leaf(undefined, 9)), ...tag(998, 0), 8])]],
  ["a list element is never merged", [...len(CHILDREN, len(F_MESSAGE, leaf("a"))), ...len(CHILDREN, len(F_MESSAGE, leaf(undefined, 1)))]],
  ["a map entry without its value, and one whose message value occurs twice", [...len(MV_MESSAGE, len(1, ascii("k"))), ...len(MV_MESSAGE, [...len(1, ascii("m")), ...len(2, leaf("a")), ...len(2, leaf(undefined, 6))])]],
  ["a map entry without its key", [...len(MV_MESSAGE, len(2, leaf("v")))]],
  ["a singular message after a list of the same type", [...len(CHILDREN, []), ...len(RECURSIVE, []), ...len(RECURSIVE, len(F_MESSAGE, leaf("r")))]],
  // Merges inside a message that is itself merged into (its object is read into in place).
  ["a Struct merges across occurrences of its parent", [...len(RECURSIVE, len(WKT_STRUCT, structOf("a", 1))), ...len(RECURSIVE, len(WKT_STRUCT, structOf("b", 2))), ...len(RECURSIVE, len(WKT_STRUCT, structOf("a", 3)))]],
  ["a Struct whose key is $typeName, merged", [...len(RECURSIVE, len(WKT_STRUCT, structText("$typeName", "google.protobuf.Struct"))), ...len(RECURSIVE, len(WKT_STRUCT, structText("fields", "x")))]],
  ["a oneof member merges across occurrences of its parent, then switches", [...len(RECURSIVE, len(C_MESSAGE, leaf("a"))), ...len(RECURSIVE, len(C_MESSAGE, leaf(undefined, 2))), ...len(RECURSIVE, len(C_STRING, ascii("s"))), ...len(RECURSIVE, len(C_MESSAGE, leaf("z")))]],
  ["wrappers merge across occurrences of their parent", [...len(RECURSIVE, len(WKT_INT32, [...tag(1, 0), 5])), ...len(RECURSIVE, len(WKT_INT32, [])), ...len(RECURSIVE, len(WKT_STRING, len(1, ascii("x"))))]],
  [
    "lists, packed runs, maps and unknown fields extend across occurrences of their parent",
    [
      ...len(RECURSIVE, [...len(R_INT32, [1, 2]), ...len(CHILDREN, len(F_MESSAGE, leaf("c1"))), ...len(M_STRING, [...len(1, ascii("k")), ...len(2, ascii("v"))]), ...tag(999, 0), 1]),
      ...len(RECURSIVE, [...len(R_INT32, [3]), ...tag(R_INT32, 0), 4, ...tag(U_INT32, 0), 5, ...len(CHILDREN, len(F_MESSAGE, leaf("c2"))), ...len(M_STRING, [...len(1, ascii("k2")), ...len(2, ascii("v2"))]), ...tag(998, 0), 2]),
      ...len(RECURSIVE, [...len(M_STRING, [...len(1, ascii("k")), ...len(2, ascii("v3"))]), ...len(F_MESSAGE, leaf("f"))]),
    ],
  ],
];

describe.each(PATHS)("through %s", (_path, threshold) => {
  const ser = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();

  test("protobuf-es' bytes decode to protobuf-es' objects: same values, same key order", () => {
    setSmallDecodeThreshold(threshold);
    check("generated-build-canonical", 150, messageArb(AllTypesSchema, 3), (s) => {
      const bytes = toBinary(AllTypesSchema, create(AllTypesSchema, s.es as never));
      expectSame(ser.fromBinary(bytes), fromBinary(AllTypesSchema, bytes));
    });
  });

  // protobuf-es adds a field with explicit presence (a message, a proto3 optional) when it reads
  // it, after create's properties: in wire order. The tape reader sets fields as they are read and
  // keeps that order; the small reader collects values by slot and adds them in declaration order
  // (the same values, a different key order when such fields arrive out of order).
  test("any legal encoding of protobuf-es' bytes (fields out of order, split, merged) decodes as protobuf-es reads it", () => {
    setSmallDecodeThreshold(threshold);
    let seed = 1;
    check("generated-build-scrambled", 120, messageArb(AllTypesSchema, 3), (s) => {
      const bytes = scramble(AllTypesSchema, toBinary(AllTypesSchema, create(AllTypesSchema, s.es as never)), rng(seed++));
      if (threshold === 0) expectSame(ser.fromBinary(bytes), fromBinary(AllTypesSchema, bytes));
      else expect(ser.fromBinary(bytes)).toStrictEqual(fromBinary(AllTypesSchema, bytes));
    });
  });

  test.each(MERGES)("%s", (_name, wire) => {
    setSmallDecodeThreshold(threshold);
    const bytes = new Uint8Array(wire);
    const v = ser.fromBinary(bytes);
    expectSame(v, fromBinary(AllTypesSchema, bytes));
    // And the value writes what protobuf-es writes of its own reading.
    expect(ser.toBinary(v)).toEqual(toBinary(AllTypesSchema, fromBinary(AllTypesSchema, bytes)));
  });

  test("one message's values never reach the next (decodes in a row, and after failures)", () => {
    setSmallDecodeThreshold(threshold);
    const broken = [new Uint8Array([...len(RECURSIVE, len(F_MESSAGE, leaf("a"))), 0x28, 0x80]), new Uint8Array([...len(RECURSIVE, leaf("x")), 0xff])];
    check("generated-build-in-a-row", 60, fc.array(messageArb(AllTypesSchema, 3), { minLength: 2, maxLength: 5 }), fc.nat(), (samples, pick) => {
      const all = samples.map((s) => toBinary(AllTypesSchema, create(AllTypesSchema, s.es as never)));
      for (const bytes of all) {
        expectSame(ser.fromBinary(bytes), fromBinary(AllTypesSchema, bytes));
        expect(() => ser.fromBinary(broken[pick % 2]!)).toThrow(CodecError);
      }
      const frames = all.map((b) => ser.encode(fromBinary(AllTypesSchema, b)));
      const batch = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
      frames.reduce((at, f) => (batch.set(f, at), at + f.length), 0);
      const values = ser.decodeAll(batch);
      values.forEach((v, i) => expectSame(v, fromBinary(AllTypesSchema, all[i]!)));
      // An empty message after all of them is the zero message, as protobuf-es makes it.
      expectSame(ser.fromBinary(new Uint8Array(0)), create(AllTypesSchema));
    });
  });
});

describe("types with few fields", () => {
  const cases: [string, DescMessage, Uint8Array][] = [
    ["Order: a oneof, an optional field, a map of messages", OrderSchema, toBinary(OrderSchema, create(OrderSchema, { id: 7n, note: "n", payment: { case: "voucher", value: { sku: "v", qty: 2 } }, bySku: { a: { sku: "a" } } }))],
    ["Order: nothing set", OrderSchema, new Uint8Array(0)],
  ];
  test.each(cases)("%s", (_name, desc, bytes) => {
    for (const [, threshold] of PATHS) {
      setSmallDecodeThreshold(threshold);
      expectSame(ProtobufType.ofGenerated(desc).createSerializer().fromBinary(bytes), fromBinary(desc, bytes));
    }
  });
});
