// Errors that repeat part of their input keep it short: a 100,000-character map key, property
// name, type URL, number or field name appears as its quoted head and its length, never whole
// (an error that embeds a 1 MB key once or twice is a 1-2 MB log line). Each row puts the huge
// text where one entry point's error names it, and checks the error's type, code, the short form
// and the bound on the message and the path.
import { describe, expect, test } from "vitest";
import { create } from "@bufbuild/protobuf";
import { CodecError, DynamicMessage, ProtobufType, evaluateSchemaChange } from "../src/index.js";
import { MemoryStore, StateStoreError, valueState } from "../src/store/index.js";
import { keySegment, quoted, shortName } from "../src/descriptor/names.js";
import { registryFromDir } from "./support/buf.js";
import { OrderSchema } from "./fixtures/generated-es/gen/es_fixtures_pb.js";
import { thrown } from "./support/thrown.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const gen = ProtobufType.ofGenerated(OrderSchema).createSerializer();

const N = 100_000;
const BIG = "k".repeat(N);
/** The short form of BIG as the messages quote it. */
const SHORT = `"${"k".repeat(120)}"…(${N} chars)`;
/** Far below any message that holds BIG whole, above the longest of these messages. */
const MAX_MESSAGE = 1_200;

// [entry point, run, error class, code (or undefined), text the message holds]
const ROWS: [string, () => unknown, new (...a: never[]) => Error, string | undefined, string][] = [
  ["fromJsonString: unknown property", () => ser.fromJsonString(`{"${BIG}": 1}`), CodecError, "JSON_UNKNOWN_FIELD", `has property ${SHORT}, which names no field`],
  ["fromJson: unknown property", () => ser.fromJson({ [BIG]: 1 }), CodecError, "JSON_UNKNOWN_FIELD", `has property ${SHORT}, which names no field`],
  ["fromJsonString: a key twice in one object", () => ser.fromJsonString(`{"${BIG}": 1, "${BIG}": 2}`), CodecError, "JSON_SYNTAX", `the key ${SHORT} appears twice`],
  ["fromJson: two map keys of one value", () => ser.fromJson({ mInt64: { "1": "a", [`${"0".repeat(N - 1)}1`]: "b" } }), CodecError, "JSON_DUPLICATE_KEY", `map key "${"0".repeat(120)}"…(${N} chars) repeats`],
  ["fromJson: a map key in a path", () => ser.fromJson({ mvMessage: { [BIG]: { value: "x" } } }), CodecError, "JSON_INVALID_VALUE", `mv_message(95)[${SHORT}].value(2) expects int32`],
  ["fromJson: an Any's type URL", () => ser.fromJson({ wktAny: { "@type": `x/${BIG}` } }), CodecError, "JSON_ANY_TYPE_UNKNOWN", `of type "x/${"k".repeat(118)}"…(${N + 2} chars), which cannot be resolved without a registry; pass a registry that holds ${"k".repeat(120)}…(${N} chars) in`],
  ["fromJsonString: a number's digits", () => ser.fromJsonString(`{"fInt32": ${"9".repeat(N)}}`), CodecError, "JSON_INVALID_VALUE", `got number ${"9".repeat(120)}…(${N} chars)`],
  ["create: an unknown field name", () => DynamicMessage.create(All, { [BIG]: 1 }), TypeError, undefined, `alltypes.AllTypes has no field ${SHORT}; use a field name`],
  ["create: a huge bigint", () => DynamicMessage.create(All, { f_int64: 10n ** BigInt(N) }), RangeError, undefined, `got bigint 1${"0".repeat(119)}…(${N + 1} chars)n`],
  ["create: a map key", () => DynamicMessage.create(All, { mv_message: { [BIG]: 5 } }), TypeError, undefined, `field alltypes.AllTypes.mv_message(95)[${SHORT}] expects a DynamicMessage or a plain object`],
  ["encode from plain: a map key", () => ser.toBinary({ mv_message: { [BIG]: 5 } } as never), TypeError, undefined, `field alltypes.AllTypes.mv_message(95)[${SHORT}] expects a DynamicMessage or a plain object`],
  ["generated encode: a map key in a path", () => gen.toBinary(create(OrderSchema, { bySku: { [BIG]: null as never } })), CodecError, undefined, `by_sku(3)[${SHORT}]`],
  ["toJson: a FieldMask path", () => ser.toJson(DynamicMessage.create(All, { wkt_field_mask: { paths: [`a__${BIG}`] } })), CodecError, "JSON_NOT_REPRESENTABLE", `FieldMask with path "a__${"k".repeat(117)}"…(${N + 3} chars), whose`],
  ["toJson: an Any's type URL", () => ser.toJson(DynamicMessage.create(All, { wkt_any: { type_url: `x/${BIG}` } })), CodecError, "JSON_ANY_TYPE_UNKNOWN", `of type "x/${"k".repeat(118)}"…(${N + 2} chars), which`],
  ["settings: a string where a number goes", () => ProtobufType.newBuilder(All).maxMessageBytes(BIG as never).build(), RangeError, undefined, `got ${SHORT}`],
  ["evaluateSchemaChange: an unknown boundary", () => evaluateSchemaChange(All, All, { boundary: BIG as never }), TypeError, undefined, `got ${SHORT}`],
  ["MemoryStore: an undeclared state", () => MemoryStore.create({ s: valueState(ProtobufType.of(All)) }).state(BIG as never), StateStoreError, "STATE_NOT_DECLARED", `state ${SHORT} is not declared`],
  ["MemoryStore: an invalid state name", () => MemoryStore.create({ [BIG]: valueState(ProtobufType.of(All)) }), StateStoreError, "STATE_NAME_INVALID", `state name ${SHORT} is invalid`],
];

describe("errors quote huge input by its head and length", () => {
  test.each(ROWS)("%s", (_name, run, kind, code, holds) => {
    const e = thrown(run);
    expect(e).toBeInstanceOf(kind);
    if (code !== undefined) expect((e as CodecError).code).toBe(code);
    expect(e.message).toContain(holds);
    expect(e.message.length).toBeLessThan(MAX_MESSAGE);
    const path = (e as CodecError).path;
    if (typeof path === "string") expect(path.length).toBeLessThan(MAX_MESSAGE);
    const state = (e as StateStoreError & { state?: string }).state;
    if (typeof state === "string") expect(state.length).toBeLessThan(MAX_MESSAGE);
  });
});

describe("the short forms", () => {
  const pair = "\u{1F600}";
  // [input, shortName, quoted, keySegment]
  const CASES: [string, string, string, string][] = [
    ["", "", '""', '[""]'],
    ["k".repeat(200), "k".repeat(200), `"${"k".repeat(200)}"`, `["${"k".repeat(200)}"]`],
    ["k".repeat(201), `${"k".repeat(120)}…(201 chars)`, `"${"k".repeat(120)}"…(201 chars)`, `["${"k".repeat(120)}"…(201 chars)]`],
    ['"'.repeat(201), `${'"'.repeat(120)}…(201 chars)`, `"${'\\"'.repeat(120)}"…(201 chars)`, `["${'\\"'.repeat(120)}"…(201 chars)]`],
    // A cut never splits a surrogate pair: the head ends before a pair that straddles char 120.
    [`${"k".repeat(119)}${pair.repeat(50)}`, `${"k".repeat(119)}…(219 chars)`, `"${"k".repeat(119)}"…(219 chars)`, `["${"k".repeat(119)}"…(219 chars)]`],
    [`${"k".repeat(118)}${pair.repeat(50)}`, `${"k".repeat(118)}${pair}…(218 chars)`, `"${"k".repeat(118)}${pair}"…(218 chars)`, `["${"k".repeat(118)}${pair}"…(218 chars)]`],
  ];
  test.each(CASES)("%#", (input, short, q, seg) => {
    expect(shortName(input)).toBe(short);
    expect(quoted(input)).toBe(q);
    expect(keySegment(input)).toBe(seg);
  });
  test("non-string keys and no key", () => {
    expect(keySegment(undefined)).toBe("");
    expect(keySegment(7)).toBe("[7]");
    expect(keySegment(-(2n ** 63n))).toBe("[-9223372036854775808]");
    expect(keySegment(true)).toBe("[true]");
  });
});
