// Writing generated values (docs/design.md §8.1, §11): a protobuf-es object pairs with the paired
// declaration by its $typeName (objects carry no schema), every check is the dynamic kind's
// (unknown-field collisions and well-formedness, limits, depth) with its error, and a refused
// value leaves no byte behind.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { CodecError, FrameWriter, ProtobufType } from "../src/index.js";
import { InvoiceSchema, ItemSchema, NodeSchema, OrderLiteSchema, OrderSchema } from "./fixtures/generated-es/gen/es_fixtures_pb.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";

const ser = ProtobufType.ofGenerated(OrderSchema).createSerializer();
const small = ProtobufType.newGeneratedBuilder(OrderSchema).maxMessageBytes(10).build().createSerializer();
const shallow = ProtobufType.newGeneratedBuilder(NodeSchema).maxDepth(3).build().createSerializer();
const deepNode = create(NodeSchema, { next: { next: { next: { value: 1 } } } });
const order = () => create(OrderSchema);
const all = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();

/** The CodecError that `fn` throws. */
function codecError(fn: () => unknown): CodecError {
  try {
    fn();
  } catch (e) {
    if (e instanceof CodecError) return e;
    throw e;
  }
  throw new Error("expected a CodecError");
}

const REFUSED: [string, () => unknown, string, string, string][] = [
  ["null", () => ser.toBinary(null as never), "NOT_A_GENERATED_MESSAGE", "esfix.Order",
    "cannot write esfix.Order: expected a protobuf-es message esfix.Order at esfix.Order, got null; build it with create(OrderSchema, init)"],
  ["undefined", () => ser.encode(undefined as never), "NOT_A_GENERATED_MESSAGE", "esfix.Order",
    "cannot write esfix.Order: expected a protobuf-es message esfix.Order at esfix.Order, got undefined; build it with create(OrderSchema, init)"],
  ["a plain object without $typeName", () => ser.toBinary({ id: 1n } as never), "NOT_A_GENERATED_MESSAGE", "esfix.Order",
    "cannot write esfix.Order: expected a protobuf-es message esfix.Order at esfix.Order, got an object without a $typeName; build it with create(OrderSchema, init)"],
  ["another generated schema at the root", () => ser.toBinary(create(InvoiceSchema, { id: 1n }) as never), "INCOMPATIBLE_VALUE_DESCRIPTOR", "esfix.Order",
    "cannot write esfix.Order: value at esfix.Order is a protobuf-es message of esfix.Invoice, which the paired declaration esfix.Order does not accept: full name changed from esfix.Invoice to esfix.Order (MESSAGE_NAME_CHANGED at esfix.Order); build the value with create(OrderSchema, init)"],
  ["another generated schema in a list", () => ser.toBinary({ ...order(), items: [create(ItemSchema), create(InvoiceSchema) as never] }), "INCOMPATIBLE_VALUE_DESCRIPTOR", "esfix.Order.items(2)[1]",
    "cannot write esfix.Order: value at esfix.Order.items(2)[1] is a protobuf-es message of esfix.Invoice, which the paired declaration esfix.Item does not accept: full name changed from esfix.Invoice to esfix.Item (MESSAGE_NAME_CHANGED at esfix.Item); build the value with create(ItemSchema, init)"],
  ["another generated schema in a map", () => ser.toBinary({ ...order(), bySku: { k: create(InvoiceSchema) as never } }), "INCOMPATIBLE_VALUE_DESCRIPTOR", 'esfix.Order.by_sku(3)["k"]',
    'cannot write esfix.Order: value at esfix.Order.by_sku(3)["k"] is a protobuf-es message of esfix.Invoice, which the paired declaration esfix.Item does not accept: full name changed from esfix.Invoice to esfix.Item (MESSAGE_NAME_CHANGED at esfix.Item); build the value with create(ItemSchema, init)'],
  ["a property the schema does not declare, holding data", () => ser.toBinary({ ...order(), legacy: 5 } as never), "GENERATED_FIELD_NOT_DECLARED", "esfix.Order",
    'cannot write esfix.Order: value at esfix.Order has property "legacy" holding number 5, which esfix.Order does not declare (an object of another version of the schema?); the write would drop it, so remove it or write with a serializer of the schema that declares it'],
  // A oneof case that names no member of its oneof (a member an earlier version had, or one of
  // another oneof) was dropped without an error, as protobuf-es' toBinary drops it.
  ["a oneof case the oneof does not declare", () => all.toBinary({ ...create(AllTypesSchema), choice: { case: "legacyMember", value: 5 } } as never), "GENERATED_FIELD_NOT_DECLARED", "alltypes.AllTypes",
    `cannot write alltypes.AllTypes: value at alltypes.AllTypes has oneof choice set to case "legacyMember", which is not a member of alltypes.AllTypes's oneof choice (an object of another version of the schema?); the write would drop it, so set a declared member or write with a serializer of the schema that declares it`],
  ["a oneof case of another oneof, nested", () => all.encode(create(AllTypesSchema, { children: [Object.assign(create(AllTypesSchema), { choice: { case: "ocBool", value: true } }) as never] })), "GENERATED_FIELD_NOT_DECLARED", "alltypes.AllTypes.children(123)[0]",
    `cannot write alltypes.AllTypes: value at alltypes.AllTypes.children(123)[0] has oneof choice set to case "ocBool", which is not a member of alltypes.AllTypes's oneof choice (an object of another version of the schema?); the write would drop it, so set a declared member or write with a serializer of the schema that declares it`],
  ["a oneof case that is not a string", () => all.encodeAll([create(AllTypesSchema), { ...create(AllTypesSchema), otherChoice: { case: 111, value: true } } as never]), "GENERATED_FIELD_NOT_DECLARED", "alltypes.AllTypes",
    `cannot write alltypes.AllTypes: value at alltypes.AllTypes has oneof otherChoice set to case number 111, which is not a member of alltypes.AllTypes's oneof otherChoice (an object of another version of the schema?); the write would drop it, so set a declared member or write with a serializer of the schema that declares it`],
  ["a oneof held as a bare value", () => all.toBinary({ ...create(AllTypesSchema), choice: "cString" } as never), "GENERATED_VALUE_INVALID", "alltypes.AllTypes",
    'cannot write alltypes.AllTypes: oneof choice at alltypes.AllTypes is held as { case, value } by protobuf-es, got string "cString"; set { case: "<member>", value }'],
  ["an unknown field colliding with a declared one", () => ser.toBinary({ ...order(), $unknown: [{ no: 6, wireType: 2, data: new Uint8Array([1, 65]) }] }), "UNKNOWN_FIELD_COLLISION", "esfix.Order",
    "cannot write esfix.Order: unknown field 6 at esfix.Order collides with field esfix.Order.note(6) of the paired declaration; remove the unknown field before writing"],
  ["a malformed unknown field", () => ser.toBinary({ ...order(), $unknown: [{ no: 9, wireType: 0, data: new Uint8Array([0x80]) }] }), "UNKNOWN_FIELD_MALFORMED", "esfix.Order",
    "cannot write esfix.Order: unknown field 9 at esfix.Order is not one well-formed encoded field: the varint is truncated; each occurrence must be a tag followed by its payload"],
  ["an unknown field number above the range", () => ser.toBinary({ ...order(), $unknown: [{ no: 536870912, wireType: 0, data: new Uint8Array([1]) }] }), "UNKNOWN_FIELD_NUMBER_INVALID", "esfix.Order",
    "cannot write esfix.Order: unknown field number 536870912 at esfix.Order is outside 1..536870911; remove it"],
  // An unknown field number past ~2.2e307 made the tag's varint Infinity's, which never ends: the
  // process died (a V8 "invalid size" abort no catch could stop).
  ...[0, -1, 2 ** 32, 1e300, Number.MAX_VALUE].map((no): [string, () => unknown, string, string, string] => [
    `an unknown field number of ${no}`,
    () => ser.toBinary({ ...order(), $unknown: [{ no, wireType: 0, data: new Uint8Array([1]) }] }),
    "UNKNOWN_FIELD_NUMBER_INVALID",
    "esfix.Order",
    `cannot write esfix.Order: unknown field number ${no} at esfix.Order is outside 1..536870911; remove it`,
  ]),
  ["$unknown not in protobuf-es' form", () => ser.toBinary({ ...order(), $unknown: [{ no: "x" }] } as never), "GENERATED_UNKNOWN_INVALID", "esfix.Order",
    "cannot write esfix.Order: $unknown at esfix.Order holds an object, not { no, wireType, data: Uint8Array }; keep the $unknown that protobuf-es or protokeel gave"],
  ["a value over maxMessageBytes", () => small.toBinary(create(OrderSchema, { items: [{ sku: "abcdefghijk" }] })), "MESSAGE_TOO_LARGE", "esfix.Order",
    "cannot write esfix.Order: encoded size 15 bytes exceeds maxMessageBytes 10; raise maxMessageBytes or write a smaller value"],
  ["a value deeper than maxDepth", () => shallow.toBinary(deepNode), "DEPTH_LIMIT_EXCEEDED", "esfix.Node.next(2).next(2).next(2)",
    "cannot write esfix.Node: nesting depth 4 at esfix.Node.next(2).next(2).next(2) exceeds maxDepth 3 (a map entry counts as a level); raise maxDepth or flatten the value"],
];

describe("refused values, with the dynamic kind's codes where the rule is shared", () => {
  test.each(REFUSED)("%s", (_name, fn, code, path, message) => {
    const e = codecError(fn);
    expect(e.code).toBe(code);
    expect(e.path).toBe(path);
    expect(e.message).toBe(message);
  });

  test("a refused value leaves a FrameWriter unchanged, and encodeAll returns nothing", () => {
    const w = new FrameWriter();
    ser.serialize(create(OrderSchema, { id: 1n }), w);
    const before = w.view().slice();
    expect(() => ser.serialize(create(InvoiceSchema) as never, w)).toThrow(CodecError);
    expect(() => ser.serialize({ ...order(), $unknown: [{ no: 6, wireType: 0, data: new Uint8Array([1]) }] }, w)).toThrow(CodecError);
    expect(w.view()).toEqual(before);
    expect(() => ser.encodeAll([order(), create(InvoiceSchema) as never])).toThrow(CodecError);
  });

  test("field values are checked with DynamicMessage.create's rules and errors", () => {
    expect(() => ser.toBinary(create(OrderSchema, { id: "x" as never }))).toThrow(new TypeError('field esfix.Order.id(1) expects int64 (bigint or integer number), got string "x"'));
    expect(() => ser.toBinary(create(OrderSchema, { items: [{ qty: 2 ** 40 }] }))).toThrow(new RangeError("field esfix.Order.items(2)[0].qty(2) expects int32 in -2147483648..2147483647, got number 1099511627776"));
  });
});

describe("accepted values", () => {
  test("an object of an earlier schema version that carries only a removed field's zero is written", () => {
    // protobuf-es' create() of a version that still declared `legacy` sets it to its zero.
    const v = { ...create(OrderSchema, { id: 7n }), legacy: 0, legacyList: [], legacyMap: {}, legacyOneof: { case: undefined } };
    expect(fromBinary(OrderSchema, ser.toBinary(v as never))).toEqual(create(OrderSchema, { id: 7n }));
    // The same object could be of a later version whose `legacy` is an optional field set to 0
    // (present): the writer cannot tell, and writes it without (README "Generated messages").
    expect(ser.toBinary(v as never)).toEqual(ser.toBinary(create(OrderSchema, { id: 7n })));
  });

  test.each<[string, unknown]>([
    ["undefined", undefined],
    ["null", null],
    ["{ case: undefined }", { case: undefined }],
    ["{ case: undefined, value } (protobuf-es writes no member)", { case: undefined, value: "stale" }],
    ["an empty string", ""],
    ["0", 0],
  ])("a oneof held as %s is unset", (_name, choice) => {
    const v = { ...create(AllTypesSchema, { fInt32: 3 }), choice };
    expect(all.toBinary(v as never)).toEqual(toBinary(AllTypesSchema, create(AllTypesSchema, { fInt32: 3 })));
  });

  test("unknown fields in $unknown are written after the known fields", () => {
    const v = { ...create(OrderSchema, { id: 1n }), $unknown: [{ no: 9, wireType: 0, data: new Uint8Array([5]) }] };
    expect(ser.toBinary(v)).toEqual(new Uint8Array([0x08, 0x01, 0x48, 0x05]));
  });

  test("deterministic mode writes map entries in key order, unknown fields last", () => {
    const det = ProtobufType.newGeneratedBuilder(OrderSchema).deterministic(true).build().createSerializer();
    const v = create(OrderSchema, { bySku: { b: { qty: 2 }, a: { qty: 1 } } });
    const sorted = create(OrderSchema, { bySku: { a: { qty: 1 }, b: { qty: 2 } } });
    expect(det.toBinary(v)).toEqual(toBinary(OrderSchema, sorted));
  });

  test("a value over maxDepth of another serializer is read and written within the limit", () => {
    const bytes = toBinary(NodeSchema, create(NodeSchema, { next: { next: { value: 1 } } }));
    expect(shallow.toBinary(shallow.fromBinary(bytes))).toEqual(bytes);
  });

  test("OrderLite (Order without field 6) writes Order's objects only by $typeName: refused", () => {
    const lite = ProtobufType.ofGenerated(OrderLiteSchema).createSerializer();
    expect(codecError(() => lite.toBinary(create(OrderSchema) as never)).code).toBe("INCOMPATIBLE_VALUE_DESCRIPTOR");
  });
});

describe("depth: values are converted and read without JS recursion", () => {
  test("a chain of 10,000 messages writes and reads back with maxDepth 10,000", () => {
    const deep = ProtobufType.newGeneratedBuilder(NodeSchema).maxDepth(10_000).build().createSerializer();
    let v = create(NodeSchema, { value: 0 });
    for (let i = 1; i < 10_000; i++) {
      const n = create(NodeSchema, { value: i });
      n.next = v;
      v = n;
    }
    const back = deep.fromBinary(deep.toBinary(v));
    let n = 0;
    for (let c: typeof back | undefined = back; c !== undefined; c = c.next) n++;
    expect(n).toBe(10_000);
    expect(back.next?.next?.value).toBe(9_997);
  });

  test("a cyclic object ends at maxDepth with the writer's depth error", () => {
    const v = create(NodeSchema, { value: 1 });
    v.next = v;
    const e = codecError(() => shallow.toBinary(v));
    expect([e.code, e.path, e.message]).toEqual([
      "DEPTH_LIMIT_EXCEEDED",
      "esfix.Node.next(2).next(2).next(2)",
      "cannot write esfix.Node: nesting depth 4 at esfix.Node.next(2).next(2).next(2) exceeds maxDepth 3 (a map entry counts as a level); raise maxDepth or flatten the value",
    ]);
  });
});

// The writer visits only the range of fields a value sets (src/codec/generated-writer.ts, props):
// values that set the first, the last, one oneof member, both ends or nothing of a wide type, on
// the frame path (AllTypes is recursive) and the inline one (Leaf), write what protobuf-es writes.
describe("values that set a few fields of a wide type write what protobuf-es writes", () => {
  const CASES: [string, () => ReturnType<typeof create<typeof AllTypesSchema>>][] = [
    ["nothing", () => create(AllTypesSchema)],
    ["the first field", () => create(AllTypesSchema, { fDouble: 1.5 })],
    ["the last field", () => create(AllTypesSchema, { children: [create(AllTypesSchema, { choice: { case: "cInt64", value: 3n } })] })],
    ["one oneof member", () => create(AllTypesSchema, { choice: { case: "cMessage", value: { name: "m" } } })],
    ["the last oneof's member", () => create(AllTypesSchema, { otherChoice: { case: "ocDouble", value: 2 } })],
    ["both ends", () => create(AllTypesSchema, { fDouble: -1, children: [create(AllTypesSchema)], recursive: { fString: "r" } })],
    ["an own property holding undefined past the set ones", () => Object.assign(create(AllTypesSchema, { fInt32: 4 }), { recursive: undefined })],
    ["a message list of values that set one field each", () =>
      create(AllTypesSchema, { rMessage: [{ name: "a" }, { value: 2 }, {}], children: [create(AllTypesSchema, { otherChoice: { case: "ocBool", value: true } }), create(AllTypesSchema, { fBytes: new Uint8Array([1]) })] })],
  ];
  test.each(CASES)("%s", (_name, make) => {
    const v = make();
    const expected = toBinary(AllTypesSchema, v);
    expect(all.toBinary(v)).toEqual(expected);
    expect(all.toBinary(all.fromBinary(expected))).toEqual(expected);
  });
});

// The writer remembers each oneof's last case and its member (props' memo before the map lookup):
// values that switch members in turn, in both oneofs, nested, and a case string that is not a
// member of its oneof (protobuf-es' toBinary writes no member for it either) write as protobuf-es.
test("values that switch oneof members in turn write what protobuf-es writes, in a row and in a batch", () => {
  const values = [
    create(AllTypesSchema, { choice: { case: "cString", value: "a" } }),
    create(AllTypesSchema, { choice: { case: "cInt64", value: -3n }, otherChoice: { case: "ocBool", value: true } }),
    create(AllTypesSchema, { choice: { case: "cMessage", value: { name: "m" } }, otherChoice: { case: "ocDouble", value: 0.5 } }),
    create(AllTypesSchema, { choice: { case: "cString", value: "b" }, children: [create(AllTypesSchema, { choice: { case: "cBytes", value: new Uint8Array([7]) } })] }),
    create(AllTypesSchema, { choice: { case: "cEnum", value: 2 } }),
    create(AllTypesSchema, { choice: { case: "cString", value: "c" }, otherChoice: { case: "ocBool", value: true } }),
    create(AllTypesSchema, { fInt32: 1, otherChoice: { case: "ocDouble", value: -1 } }),
  ];
  const expected = values.map((v) => toBinary(AllTypesSchema, v));
  for (const order of [values.keys(), [...values.keys()].reverse(), [0, 0, 5, 5, 1, 3, 1, 6, 5, 6]]) {
    for (const i of order) expect(all.toBinary(values[i]!)).toEqual(expected[i]);
  }
  const back = all.decodeAll(all.encodeAll([...values, ...values]));
  expect(back.map((v) => toBinary(AllTypesSchema, v))).toEqual([...expected, ...expected]);
});
