// ProtoJSON against @bufbuild/protobuf (which passes the protobuf conformance suite): on the
// all-types fixture and on random messages, in both directions and for both the value and the
// text forms, protokeel writes the JSON @bufbuild/protobuf writes and reads what it reads.
import { create, fromBinary, fromJson, fromJsonString, toBinary, toJson, toJsonString, type JsonValue } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { messageArb } from "./support/arbitrary-message.js";
import { registryFromDir } from "./support/buf.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();

// @bufbuild/protobuf's create() takes JSON for Struct, Value and ListValue and the arbitrary gives
// Any random bytes: those types are checked by the hand-written values and edge cases below.
const NOT_RANDOM = ["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue", "google.protobuf.Any"];
// Random seconds are mostly outside ProtoJSON's ranges: checked apart, where both must refuse.
const RANGED = ["google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask"];

const OPTIONS = [
  ["defaults", {}, {}],
  ["emitDefaultValues", { emitDefaultValues: true }, { alwaysEmitImplicit: true }],
  ["enumAsInteger", { enumAsInteger: true }, { enumAsInteger: true }],
  ["useProtoFieldName", { useProtoFieldName: true }, { useProtoFieldName: true }],
] as const;

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}

/** The content of a protokeel value as @bufbuild/protobuf's canonical bytes. */
function esBytesOf(msg: DynamicMessage): string {
  return hex(toBinary(All, fromBinary(All, ser.toBinary(msg)), { writeUnknownFields: false }));
}

function outcome<T>(run: () => T): { ok: true; value: T } | { ok: false; error: string } {
  try {
    return { ok: true, value: run() };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** A value with every field shape of the fixture set, well-known types in range. */
const FULL = {
  f_double: 1.5, f_float: -2.25, f_int64: -9223372036854775808n, f_uint64: 18446744073709551615n, f_int32: -2147483648,
  f_fixed64: 18446744073709551615n, f_fixed32: 4294967295, f_bool: true, f_string: "héllo 😀", f_bytes: new Uint8Array([0, 255, 251]),
  f_uint32: 4294967295, f_sfixed32: 2147483647, f_sfixed64: 9223372036854775807n, f_sint32: -1, f_sint64: -1n, f_enum: 2,
  f_message: { name: "leaf", value: 3 },
  o_double: 0, o_float: 0, o_int64: 0n, o_uint64: 0n, o_int32: 0, o_fixed64: 0n, o_fixed32: 0, o_bool: false, o_string: "",
  o_bytes: new Uint8Array(0), o_uint32: 0, o_sfixed32: 0, o_sfixed64: 0n, o_sint32: 0, o_sint64: 0n, o_enum: 0, o_message: {},
  r_double: [Number.NaN, Infinity, -Infinity, -0, 1e-300], r_float: [Math.fround(1e-45), Math.fround(3.4e38)], r_int64: [1n, -1n],
  r_uint64: [0n, 2n ** 64n - 1n], r_int32: [0, -1], r_fixed64: [1n], r_fixed32: [1], r_bool: [true, false], r_string: ["", "a"],
  r_bytes: [new Uint8Array(0), new Uint8Array([1])], r_uint32: [1], r_sfixed32: [-1], r_sfixed64: [-1n], r_sint32: [-5], r_sint64: [-5n],
  r_enum: [0, 1, 99, -1], r_message: [{ name: "a" }, {}],
  u_double: [1.25], u_int64: [3n], u_enum: [2],
  m_int32: { "-1": "a", "2": "b" }, m_int64: { "-9223372036854775808": "min" }, m_uint32: { "4294967295": "max" },
  m_uint64: { "18446744073709551615": "max" }, m_sint32: { "-3": "c" }, m_sint64: { "-3": "c" }, m_fixed32: { "7": "d" },
  m_fixed64: { "7": "d" }, m_sfixed32: { "-7": "e" }, m_sfixed64: { "-7": "e" }, m_bool: { true: "t", false: "f" },
  m_string: { "": "empty", "__proto__": "kept", "日本": "語" }, mv_bytes: { k: new Uint8Array([9]) }, mv_enum: { k: 1, u: 42 },
  mv_message: { k: { name: "v" } }, mv_double: { nan: Number.NaN, inf: -Infinity }, mv_sint64: { k: -9n },
  c_message: { name: "chosen" }, oc_double: -0,
  nested: { a: 1, inner: { a: 2 }, outer: { f_int32: 5 }, leaves: [{ value: 1 }] }, recursive: { f_string: "r", recursive: {} },
  children: [{ f_bool: true }, {}],
  js_string_int64: "-42", js_string_uint64s: ["18446744073709551615", "0"],
  wkt_timestamp: { seconds: -62135596800n, nanos: 0 }, wkt_duration: { seconds: -1n, nanos: -500000000 },
  wkt_any: { type_url: "type.googleapis.com/alltypes.Leaf", value: new Uint8Array([0x0a, 0x01, 0x78]) },
  wkt_struct: { fields: { n: { number_value: 1.5 }, s: { string_value: "x" }, b: { bool_value: false }, z: { null_value: 0 },
    l: { list_value: { values: [{ number_value: 1 }, { struct_value: { fields: { deep: { list_value: {} } } } }] } }, e: { struct_value: {} } } },
  wkt_value: { list_value: { values: [{ null_value: 0 }, { string_value: "v" }] } }, wkt_list_value: { values: [{ bool_value: true }] },
  wkt_empty: {}, wkt_field_mask: { paths: ["f_int32", "nested.inner", "a1b"] },
  wkt_int32: { value: 0 }, wkt_int64: { value: -1n }, wkt_uint32: { value: 4294967295 }, wkt_uint64: { value: 18446744073709551615n },
  wkt_float: { value: Math.fround(0.1) }, wkt_double: { value: Number.NaN }, wkt_bool: { value: true }, wkt_string: { value: "w" },
  wkt_bytes: { value: new Uint8Array([1, 2]) }, f_max_number: "max",
};

describe("the all-types fixture", () => {
  const value = DynamicMessage.create(All, FULL);
  const es = fromBinary(All, ser.toBinary(value));

  test.each(OPTIONS)("toJson with %s equals @bufbuild/protobuf's", (_name, ours, theirs) => {
    expect(ser.toJson(value, { ...ours, registry })).toEqual(toJson(All, es, { ...theirs, registry }));
  });

  test.each(OPTIONS)("each library reads the other's JSON (%s) as the same content", (_name, ours, theirs) => {
    const theirJson = toJson(All, es, { ...theirs, registry });
    expect(esBytesOf(ser.fromJson(theirJson, { registry }))).toBe(hex(toBinary(All, es)));
    const back = fromJson(All, ser.toJson(value, { ...ours, registry }) as JsonValue, { registry });
    expect(hex(toBinary(All, back))).toBe(hex(toBinary(All, es)));
  });

  test("the text forms read across libraries; protokeel keeps the sign of -0, JSON.stringify does not", () => {
    const ours = ser.toJsonString(value, { registry });
    const theirs = toJsonString(All, es, { registry });
    expect(ours).toContain('"ocDouble":-0');
    expect(theirs).toContain('"ocDouble":0');
    expect(JSON.parse(ours)).toEqual(toJson(All, es, { registry }));
    expect(ser.fromJsonString(ours, { registry }).equals(value)).toBe(true);
    expect(hex(toBinary(All, fromJsonString(All, ours, { registry })))).toBe(hex(toBinary(All, es)));
    expect(ser.fromJsonString(theirs, { registry }).equals(ser.fromJson(JSON.parse(theirs), { registry }))).toBe(true);
  });

  test("pretty text is the same JSON", () => {
    const pretty = ser.toJsonString(value, { registry, prettySpaces: 2 });
    expect(pretty.split("\n").length).toBeGreaterThan(100);
    expect(JSON.parse(pretty)).toEqual(JSON.parse(ser.toJsonString(value, { registry })));
  });
});

describe("random messages", () => {
  test.each([
    [1, 300],
    [2, 80],
  ])("agree with @bufbuild/protobuf in both directions (nesting %i, %i messages)", (depth, numRuns) => {
    fc.assert(
      fc.property(messageArb(All, depth, { skipTypes: [...NOT_RANDOM, ...RANGED] }), fc.constantFrom(...OPTIONS), (s, [, ours, theirs]) => {
        const msg = DynamicMessage.create(All, s.ours);
        const es = create(All, s.es as never);
        const theirJson = toJson(All, es, theirs);
        expect(ser.toJson(msg, ours)).toEqual(theirJson);
        expect(ser.fromJson(theirJson).equals(msg)).toBe(true);
        expect(hex(toBinary(All, fromJson(All, ser.toJson(msg, ours) as JsonValue)))).toBe(hex(toBinary(All, es)));
        // Text: each library reads the other's; bufbuild's text has lost the sign of -0 (JSON.stringify).
        expect(hex(toBinary(All, fromJsonString(All, ser.toJsonString(msg, ours))))).toBe(hex(toBinary(All, es)));
        const theirText = toJsonString(All, es, theirs);
        expect(ser.fromJsonString(theirText).equals(ser.fromJson(JSON.parse(theirText)))).toBe(true);
      }),
      { numRuns },
    );
  });

  test("well-known types with random content: both libraries write the same JSON or both refuse", () => {
    const wkts = All.fields.filter((f) => f.message !== undefined && RANGED.includes(f.message.typeName)).map((f) => f.name);
    const others = All.fields.filter((f) => !wkts.includes(f.name)).map((f) => f.message?.typeName).filter((t): t is string => t !== undefined && t.startsWith("google."));
    let written = 0;
    fc.assert(
      fc.property(messageArb(All, 1, { skipTypes: [...NOT_RANDOM, ...others.filter((t) => !RANGED.includes(t))] }), (s) => {
        const init = Object.fromEntries(Object.entries(s.ours).filter(([k]) => wkts.includes(k)));
        const msg = DynamicMessage.create(All, init);
        const es = fromBinary(All, ser.toBinary(msg));
        const ours = outcome(() => ser.toJson(msg));
        const theirs = outcome(() => toJson(All, es));
        // A deliberate difference: a FieldMask path that is empty or holds a comma has no JSON form
        // that reads back as it; protokeel refuses it, @bufbuild/protobuf writes lossy text.
        const paths = (init.wkt_field_mask as { paths?: string[] } | undefined)?.paths ?? [];
        if (paths.some((p) => p === "" || p.includes(","))) {
          expect(ours.ok).toBe(false);
          return;
        }
        expect(ours.ok).toBe(theirs.ok);
        if (ours.ok && theirs.ok) {
          written++;
          expect(ours.value).toEqual(theirs.value);
          // Both read it back alike (a FieldMask path "" has no JSON form of its own and is lost by both).
          expect(esBytesOf(ser.fromJson(theirs.value))).toBe(hex(toBinary(All, fromJson(All, theirs.value))));
        }
      }),
      { numRuns: 400 },
    );
    expect(written).toBeGreaterThan(20);
  });

  test("timestamps and durations in range agree to the nanosecond", () => {
    const Ts = All.fields.find((f) => f.name === "wkt_timestamp")!.message!;
    const seconds = fc.integer({ min: -62135596800, max: 253402300799 });
    const nanos = fc.integer({ min: 0, max: 999_999_999 });
    fc.assert(
      fc.property(seconds, nanos, fc.integer({ min: -315576000000, max: 315576000000 }), nanos, (ts, tn, ds, dn) => {
        const msg = DynamicMessage.create(All, {
          wkt_timestamp: { seconds: BigInt(ts), nanos: tn },
          wkt_duration: { seconds: BigInt(ds), nanos: ds < 0 ? -dn || 0 : dn },
        });
        const json = toJson(All, fromBinary(All, ser.toBinary(msg)));
        expect(ser.toJson(msg)).toEqual(json);
        expect(ser.fromJson(json).equals(msg)).toBe(true);
      }),
      { numRuns: 500 },
    );
    expect(Ts.typeName).toBe("google.protobuf.Timestamp");
  });
});
