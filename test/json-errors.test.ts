// ProtoJSON errors: each a CodecError with a stable code, the field path (`name(number)` per
// field, `[index]` / `["key"]` per element, as the binary writer names them), the character
// offset for syntax errors, and a lowercase message that names the type, the path and the rule
// and says what to do.
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { varint } from "./support/wire-scramble.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const Leaf = registry.getMessage("alltypes.Leaf")!;
const ser = ProtobufType.of(All).createSerializer();

const HEAD = "cannot read alltypes.AllTypes from JSON: ";
const FIX = "; fix the value or read with the schema that wrote it";

function caught(run: () => unknown): CodecError {
  try {
    run();
  } catch (e) {
    if (e instanceof CodecError) return e;
    throw e;
  }
  throw new Error("expected a CodecError");
}

// [JSON text, code, path, offset, message]
const READ: [string, string, string, number | undefined, string][] = [
  ['{"fInt32": "x"}', "JSON_INVALID_VALUE", "alltypes.AllTypes.f_int32(5)", undefined, `${HEAD}alltypes.AllTypes.f_int32(5) expects int32 (a number or a numeric string), got string "x"${FIX}`],
  ['{"fUint64": "-1"}', "JSON_INVALID_VALUE", "alltypes.AllTypes.f_uint64(4)", undefined, `${HEAD}alltypes.AllTypes.f_uint64(4) expects uint64 in 0..18446744073709551615, got string "-1"${FIX}`],
  ['{"fFloat": 1e39}', "JSON_INVALID_VALUE", "alltypes.AllTypes.f_float(2)", undefined, `${HEAD}alltypes.AllTypes.f_float(2) expects float in -3.4028234663852886e+38..3.4028234663852886e+38, got number 1e+39${FIX}`],
  ['{"fBytes": "A"}', "JSON_INVALID_VALUE", "alltypes.AllTypes.f_bytes(10)", undefined, `${HEAD}alltypes.AllTypes.f_bytes(10) expects bytes as base64 (standard or URL-safe alphabet, padding optional), got string "A": its length leaves a single character in the last group${FIX}`],
  ['{"fBytes": "AB$D"}', "JSON_INVALID_VALUE", "alltypes.AllTypes.f_bytes(10)", undefined, `${HEAD}alltypes.AllTypes.f_bytes(10) expects bytes as base64 (standard or URL-safe alphabet, padding optional), got string "AB$D": character "$" at index 2 is not in the base64 alphabets${FIX}`],
  // A space or newline that also spoils the length or the padding is named, not the length.
  ['{"fBytes": "AAAA AAAA"}', "JSON_INVALID_VALUE", "alltypes.AllTypes.f_bytes(10)", undefined, `${HEAD}alltypes.AllTypes.f_bytes(10) expects bytes as base64 (standard or URL-safe alphabet, padding optional), got string "AAAA AAAA": character " " at index 4 is not in the base64 alphabets${FIX}`],
  ['{"fBytes": "AAAA\\nAAAA"}', "JSON_INVALID_VALUE", "alltypes.AllTypes.f_bytes(10)", undefined, `${HEAD}alltypes.AllTypes.f_bytes(10) expects bytes as base64 (standard or URL-safe alphabet, padding optional), got string "AAAA\\nAAAA": character "\\n" at index 4 is not in the base64 alphabets${FIX}`],
  ['{"fBytes": "AAAA AAA="}', "JSON_INVALID_VALUE", "alltypes.AllTypes.f_bytes(10)", undefined, `${HEAD}alltypes.AllTypes.f_bytes(10) expects bytes as base64 (standard or URL-safe alphabet, padding optional), got string "AAAA AAA=": character " " at index 4 is not in the base64 alphabets${FIX}`],
  ['{"fEnum": "X"}', "JSON_INVALID_VALUE", "alltypes.AllTypes.f_enum(16)", undefined, `${HEAD}alltypes.AllTypes.f_enum(16) expects a value name of enum alltypes.Color, got string "X", which it does not declare; use a declared name or a number, or pass ignoreUnknownFields: true to serializer.fromJsonString(json, { … }) to skip unknown names (data loss)`],
  ['{"rInt32": [1, null]}', "JSON_INVALID_VALUE", "alltypes.AllTypes.r_int32(45)[1]", undefined, `${HEAD}alltypes.AllTypes.r_int32(45)[1] expects a value (list elements cannot be null), got null${FIX}`],
  ['{"children": [{}, {"mvMessage": {"k": {"value": "x"}}}]}', "JSON_INVALID_VALUE", 'alltypes.AllTypes.children(123)[1].mv_message(95)["k"].value(2)', undefined, `${HEAD}alltypes.AllTypes.children(123)[1].mv_message(95)["k"].value(2) expects int32 (a number or a numeric string), got string "x"${FIX}`],
  ['{"mvMessage": {"k": 5}}', "JSON_INVALID_VALUE", 'alltypes.AllTypes.mv_message(95)["k"]', undefined, `${HEAD}alltypes.AllTypes.mv_message(95)["k"] expects a JSON object for alltypes.Leaf, got number 5${FIX}`],
  ["[1]", "JSON_INVALID_VALUE", "alltypes.AllTypes", undefined, `${HEAD}alltypes.AllTypes expects a JSON object for alltypes.AllTypes, got an array${FIX}`],
  ['{"wktStruct": {"a": {"b": [1, 1e400]}}}', "JSON_INVALID_VALUE", 'alltypes.AllTypes.wkt_struct(144).fields(1)["a"].struct_value(5).fields(1)["b"].list_value(6).values(1)[1]', undefined, `${HEAD}alltypes.AllTypes.wkt_struct(144).fields(1)["a"].struct_value(5).fields(1)["b"].list_value(6).values(1)[1] expects a finite number in a google.protobuf.Value (JSON has no NaN or infinities), got number Infinity${FIX}`],
  ['{"wktFieldMask": "a_b"}', "JSON_INVALID_VALUE", "alltypes.AllTypes.wkt_field_mask(148)", undefined, `${HEAD}alltypes.AllTypes.wkt_field_mask(148) expects lowerCamelCase paths (no _) in a google.protobuf.FieldMask, got string "a_b"${FIX}`],
  ['{"wktAny": {"@type": "type.googleapis.com/google.protobuf.Duration"}}', "JSON_INVALID_VALUE", "alltypes.AllTypes.wkt_any(143)", undefined, `${HEAD}alltypes.AllTypes.wkt_any(143) expects a "value" property: an Any holding google.protobuf.Duration writes its content as {"@type": …, "value": …}, got an object${FIX}`],
  ['{"nested": {"inner": {"nope": 1}}}', "JSON_UNKNOWN_FIELD", "alltypes.AllTypes.nested(121).inner(2)", undefined, `${HEAD}alltypes.AllTypes.nested(121).inner(2) has property "nope", which names no field of alltypes.AllTypes.Nested; read with the schema that declares it, or pass ignoreUnknownFields: true to serializer.fromJsonString(json, { … }) to skip unknown properties (data loss: they are not kept or forwarded)`],
  ['{"cString": "a", "cInt64": "1"}', "JSON_ONEOF_SET_TWICE", "alltypes.AllTypes", undefined, `${HEAD}alltypes.AllTypes sets oneof choice twice, by properties of c_string and c_int64; set at most one member of a oneof`],
  ['{"fInt32": 1, "f_int32": 2}', "JSON_FIELD_SET_TWICE", "alltypes.AllTypes", undefined, `${HEAD}alltypes.AllTypes sets field f_int32 twice, as "f_int32" and as "fInt32"; give each field once`],
  ['{"mInt64": {"1": "a", "01": "b"}}', "JSON_DUPLICATE_KEY", "alltypes.AllTypes.m_int64(82)[1]", undefined, `${HEAD}alltypes.AllTypes.m_int64(82)[1]: map key "01" repeats a key of the same value; give each map key once`],
  ['{"wktAny": {"@type": "x/y.Z"}}', "JSON_ANY_TYPE_UNKNOWN", "alltypes.AllTypes.wkt_any(143)", undefined, `${HEAD}alltypes.AllTypes.wkt_any(143) is a google.protobuf.Any of type "x/y.Z", which the registry does not hold; pass a registry that holds y.Z in the options of serializer.fromJsonString(json, { … })`],
  ['{"a": 1, "a": 2}', "JSON_SYNTAX", "alltypes.AllTypes", 9, `${HEAD}the text is not valid JSON: the key "a" appears twice in one object at character 9 (JSON.parse would keep only the last); pass one JSON object`],
  ['{"fInt32": 1', "JSON_SYNTAX", "alltypes.AllTypes", 12, `${HEAD}the text is not valid JSON: expected , or } after an object member: the text ends at character 12; pass one JSON object`],
  ['{"fString": "a\u0001"}', "JSON_SYNTAX", "alltypes.AllTypes", 14, `${HEAD}the text is not valid JSON: a control character inside a string (escape it) at character 14; pass one JSON object`],
];

describe("reading", () => {
  test.each(READ)("fromJsonString(%s)", (text, code, path, offset, message) => {
    const e = caught(() => ser.fromJsonString(text, { registry }));
    expect({ code: e.code, path: e.path, offset: e.offset, message: e.message }).toEqual({ code, path, offset, message });
  });

  test("fromJsonString of something other than a string", () => {
    const e = caught(() => ser.fromJsonString({} as unknown as string));
    expect([e.code, e.message]).toEqual(["NOT_JSON_TEXT", `${HEAD}serializer.fromJsonString expects a string, got object; pass parsed JSON to serializer.fromJson`]);
  });

  test("the value form names fromJson in its hints", () => {
    expect(caught(() => ser.fromJson({ nope: 1 })).message).toContain("pass ignoreUnknownFields: true to serializer.fromJson(json, { … })");
  });

  test("a message that JSON describes within limits but binary cannot hold", () => {
    const small = ProtobufType.newBuilder(All).maxMessageBytes(16).build().createSerializer();
    const e = caught(() => small.fromJson({ fString: "x".repeat(20) }));
    expect([e.code, e.message]).toEqual([
      "MESSAGE_TOO_LARGE",
      "cannot read alltypes.AllTypes from JSON: the message's encoded size 22 bytes exceeds maxMessageBytes 16; raise maxMessageBytes or write a smaller value",
    ]);
  });
});

describe("writing", () => {
  const withUnknown = DynamicMessage.create(All, {
    f_message: DynamicMessage.newBuilder(Leaf).setUnknownFields(new Map([[9, [new Uint8Array([0x48, 1])]]])).build(),
  });
  const W = "cannot write alltypes.AllTypes to JSON: ";

  test.each<[string, () => unknown, string, string, string]>([
    [
      "unknown fields",
      () => ser.toJson(withUnknown),
      "JSON_UNKNOWN_FIELDS",
      "alltypes.AllTypes.f_message(17)",
      `${W}alltypes.AllTypes.f_message(17) (alltypes.Leaf) holds unknown field 9, which ProtoJSON cannot represent (it names fields, and these have no name in this schema); write binary to keep them, read with the schema that declares them, or pass discardUnknownFields: true to serializer.toJson(value, { … }) to drop them (data loss)`,
    ],
    [
      "unknown fields through JSON.stringify",
      () => JSON.stringify(withUnknown),
      "JSON_UNKNOWN_FIELDS",
      "alltypes.AllTypes.f_message(17)",
      `${W}alltypes.AllTypes.f_message(17) (alltypes.Leaf) holds unknown field 9, which ProtoJSON cannot represent (it names fields, and these have no name in this schema); write binary to keep them, read with the schema that declares them, or pass discardUnknownFields: true to serializer.toJson(value, { … }) to drop them (data loss)`,
    ],
    [
      "unknown fields of many numbers: the first ten and how many more",
      () => ser.toJson(DynamicMessage.create(All, { f_message: DynamicMessage.newBuilder(Leaf).setUnknownFields(new Map(Array.from({ length: 100_000 }, (_, i) => [i + 9, [Uint8Array.from([...varint((i + 9) * 8), 1])]] as [number, Uint8Array[]]))).build() })),
      "JSON_UNKNOWN_FIELDS",
      "alltypes.AllTypes.f_message(17)",
      `${W}alltypes.AllTypes.f_message(17) (alltypes.Leaf) holds unknown fields 9, 10, 11, 12, 13, 14, 15, 16, 17, 18 and 99990 more, which ProtoJSON cannot represent (it names fields, and these have no name in this schema); write binary to keep them, read with the schema that declares them, or pass discardUnknownFields: true to serializer.toJson(value, { … }) to drop them (data loss)`,
    ],
    [
      "an Any without a registry",
      () => ser.toJson(DynamicMessage.create(All, { wkt_any: { type_url: "type.googleapis.com/acme.Y" } })),
      "JSON_ANY_TYPE_UNKNOWN",
      "alltypes.AllTypes.wkt_any(143)",
      `${W}alltypes.AllTypes.wkt_any(143) is a google.protobuf.Any of type "type.googleapis.com/acme.Y", which cannot be resolved without a registry; pass a registry that holds acme.Y in the options of serializer.toJson(value, { … })`,
    ],
    [
      "a Timestamp out of range",
      () => ser.toJsonString(DynamicMessage.create(All, { wkt_timestamp: { seconds: 1n << 40n } })),
      "JSON_NOT_REPRESENTABLE",
      "alltypes.AllTypes.wkt_timestamp(141)",
      `${W}alltypes.AllTypes.wkt_timestamp(141) is a google.protobuf.Timestamp that ProtoJSON cannot write: seconds 1099511627776 is outside 0001-01-01T00:00:00Z..9999-12-31T23:59:59Z`,
    ],
    [
      "a Duration whose signs differ",
      () => ser.toJson(DynamicMessage.create(All, { wkt_duration: { seconds: 1n, nanos: -1 } })),
      "JSON_NOT_REPRESENTABLE",
      "alltypes.AllTypes.wkt_duration(142)",
      `${W}alltypes.AllTypes.wkt_duration(142) is a google.protobuf.Duration that ProtoJSON cannot write: nanos -1 has another sign than seconds 1`,
    ],
    [
      "a Value with no kind",
      () => ser.toJson(DynamicMessage.create(All, { wkt_value: {} })),
      "JSON_NOT_REPRESENTABLE",
      "alltypes.AllTypes.wkt_value(145)",
      `${W}alltypes.AllTypes.wkt_value(145) is a google.protobuf.Value with no kind set, which ProtoJSON cannot write (null is null_value); set one of its fields`,
    ],
    [
      "a Value holding NaN",
      () => ser.toJson(DynamicMessage.create(All, { wkt_list_value: { values: [{ number_value: Number.NaN }] } })),
      "JSON_NOT_REPRESENTABLE",
      "alltypes.AllTypes.wkt_list_value(146).values(1)[0]",
      `${W}alltypes.AllTypes.wkt_list_value(146).values(1)[0] is a google.protobuf.Value holding number NaN, which JSON has no number for; hold it as string_value`,
    ],
    [
      "a FieldMask path without a JSON form",
      () => ser.toJson(DynamicMessage.create(All, { wkt_field_mask: { paths: ["a__b"] } })),
      "JSON_NOT_REPRESENTABLE",
      "alltypes.AllTypes.wkt_field_mask(148)",
      `${W}alltypes.AllTypes.wkt_field_mask(148) is a google.protobuf.FieldMask with path "a__b", whose lowerCamelCase form does not read back as the same path; use lower_snake_case field names`,
    ],
    [
      "an Any with bytes and no type",
      () => ser.toJson(DynamicMessage.create(All, { wkt_any: { value: new Uint8Array([1]) } })),
      "JSON_NOT_REPRESENTABLE",
      "alltypes.AllTypes.wkt_any(143)",
      `${W}alltypes.AllTypes.wkt_any(143) is a google.protobuf.Any with 1 value byte and no type_url; ProtoJSON cannot write bytes of no type: set type_url to the packed message's type, or keep this value in binary`,
    ],
  ])("%s", (_name, run, code, path, message) => {
    const e = caught(run);
    expect({ code: e.code, path: e.path, message: e.message }).toEqual({ code, path, message });
  });

  test("a value encode refuses is refused with encode's error", () => {
    const e = caught(() => ser.toJson(null as never));
    expect(e.code).toBe("NOT_A_DYNAMIC_MESSAGE");
  });

  test.each([
    [() => ser.toJson(DynamicMessage.create(All), { emitDefaultValues: 1 } as never), "serializer.toJson: option emitDefaultValues must be a boolean, got number"],
    [() => ser.toJson(DynamicMessage.create(All), "x" as never), "serializer.toJson: options must be an object"],
    [() => ser.toJsonString(DynamicMessage.create(All), { prettySpaces: 11 }), "serializer.toJsonString: option prettySpaces must be an integer in 0..10, got 11"],
    [() => ser.fromJson({}, { ignoreUnknownFields: "yes" } as never), "serializer.fromJson: option ignoreUnknownFields must be a boolean, got string"],
    [() => ser.fromJson({}, { registry: 5 } as never), "serializer.fromJson: option registry must be a registry with getMessage(typeName) or a list of message descriptors"],
    // A null entry was dereferenced: "Cannot read properties of null (reading 'kind')".
    [() => ser.fromJson({}, { registry: [null] } as never), "serializer.fromJson: option registry lists something that is not a message descriptor; pass DescMessage values or ProtobufType values"],
    [() => ser.toJson(DynamicMessage.create(All), { registry: [undefined] } as never), "serializer.toJson: option registry lists something that is not a message descriptor; pass DescMessage values or ProtobufType values"],
    // null was taken for 0, where null for any other option is refused.
    [() => ser.toJsonString(DynamicMessage.create(All), { prettySpaces: null } as never), "serializer.toJsonString: option prettySpaces must be an integer in 0..10, got null"],
  ])("bad options are TypeError or RangeError: %#", (run, message) => {
    expect(run).toThrow(message);
    expect(run).toThrow(expect.objectContaining({ name: expect.stringMatching(/^(TypeError|RangeError)$/) }));
  });
});

describe("what the messages call a value", () => {
  // A lone surrogate was described by a placeholder quoted as if it were the input (got string "a
  // string with a lone surrogate"), and an integer past every range (1e400, 400 digits, read as
  // Infinity) as a non-integer.
  test.each([
    ['{"fString": "a\\ud800"}', "alltypes.AllTypes.f_string(9) expects a well-formed string (strings are written as UTF-8), with no lone surrogate, got a string with a lone surrogate"],
    ['{"mString": {"\\udc00": "v"}}', "alltypes.AllTypes.m_string(92) expects map keys that are well-formed strings, got a key with a lone surrogate"],
    ['{"fInt32": 1e400}', "alltypes.AllTypes.f_int32(5) expects int32 in -2147483648..2147483647, got number Infinity"],
    [`{"fUint32": ${"9".repeat(400)}}`, "alltypes.AllTypes.f_uint32(11) expects uint32 in 0..4294967295, got number 9999"],
  ])("%s", (text, start) => {
    let e: unknown;
    try {
      ser.fromJsonString(text);
    } catch (x) {
      e = x;
    }
    expect((e as CodecError).code).toBe("JSON_INVALID_VALUE");
    expect((e as CodecError).message.startsWith(HEAD + start)).toBe(true);
    expect((e as CodecError).message).not.toMatch(/got string "a (string|key) with a lone surrogate"|expects an integer/);
  });
});
