import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { messageFromDir, registryFromDir } from "./support/buf.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const Leaf = registry.getMessage("alltypes.Leaf")!;
const JsNumber = registry.getMessage("alltypes.JsNumber")!;

describe("defaults of absent fields", () => {
  test.each([
    ["f_double", 0],
    ["f_float", 0],
    ["f_int64", 0n],
    ["f_uint64", 0n],
    ["f_int32", 0],
    ["f_fixed64", 0n],
    ["f_fixed32", 0],
    ["f_bool", false],
    ["f_string", ""],
    ["f_bytes", new Uint8Array(0)],
    ["f_uint32", 0],
    ["f_sfixed32", 0],
    ["f_sfixed64", 0n],
    ["f_sint32", 0],
    ["f_sint64", 0n],
    ["f_enum", 0],
    ["f_message", undefined],
    ["o_int32", undefined],
    ["o_string", undefined],
    ["o_message", undefined],
    ["r_int32", []],
    ["r_message", []],
    ["m_string", new Map()],
    ["c_message", undefined],
    ["c_enum", undefined],
    ["js_string_int64", "0"],
    ["js_string_uint64s", []],
  ])("%s reads as %o", (name, expected) => {
    const m = DynamicMessage.create(All, {});
    expect(m.get(name)).toEqual(expected);
    expect(m.has(name)).toBe(false);
  });

  test("JS_NUMBER 64-bit fields read as numbers", () => {
    const m = DynamicMessage.create(JsNumber, { n: 5n, ns: [1, -2n] });
    expect(m.get("n")).toBe(5);
    expect(m.get("ns")).toEqual([1, -2]);
    expect(DynamicMessage.create(JsNumber).get("n")).toBe(0);
  });
});

describe("presence as proto3 defines it", () => {
  test.each([
    // [field, value, has]
    ["f_int32", 0, false],
    ["f_int32", 1, true],
    ["f_int64", 0n, false],
    ["f_string", "", false],
    ["f_string", "0", true],
    ["f_bool", false, false],
    ["f_bytes", new Uint8Array(0), false],
    ["f_enum", 0, false],
    ["f_enum", -1, true],
    ["f_double", 0, false],
    ["f_double", -0, true],
    ["js_string_int64", "0", false],
    ["js_string_int64", 0n, false],
    ["o_int32", 0, true],
    ["o_string", "", true],
    ["o_bool", false, true],
    ["o_enum", 0, true],
    ["o_bytes", new Uint8Array(0), true],
    ["f_message", {}, true],
    ["c_enum", 0, true],
    ["c_bytes", new Uint8Array(0), true],
    ["r_int32", [], false],
    ["r_int32", [0], true],
    ["m_int32", {}, false],
    ["m_int32", { 0: "" }, true],
  ])("%s = %o → has %s", (name, value, has) => {
    const m = DynamicMessage.create(All, { [name]: value });
    expect(m.has(name)).toBe(has);
    expect(DynamicMessage.newBuilder(All).set(name, value).build().has(name)).toBe(has);
  });
});

describe("create stores every kind", () => {
  const leaf = DynamicMessage.create(Leaf, { name: "x", value: 3 });
  test.each([
    ["f_double", 1.5, 1.5],
    ["f_double", Number.NaN, Number.NaN],
    ["f_double", -Infinity, -Infinity],
    ["f_float", 0.1, Math.fround(0.1)],
    ["f_int64", -(2n ** 63n), -(2n ** 63n)],
    ["f_int64", 42, 42n],
    ["f_uint64", 2n ** 64n - 1n, 2n ** 64n - 1n],
    ["f_int32", -2147483648, -2147483648],
    ["f_uint32", 4294967295, 4294967295],
    ["f_fixed32", 4294967295, 4294967295],
    ["f_sint64", 2n ** 63n - 1n, 2n ** 63n - 1n],
    ["f_string", "héllo 😀", "héllo 😀"],
    ["f_enum", "COLOR_GREEN", 2],
    ["f_enum", 99, 99],
    ["f_enum", -2147483648, -2147483648],
    ["js_string_int64", -5n, "-5"],
    ["js_string_int64", "123", "123"],
    ["js_string_uint64s", [1n, "2", 3], ["1", "2", "3"]],
    ["r_sint64", [1, 2n], [1n, 2n]],
    ["r_float", [0.1], [Math.fround(0.1)]],
    ["r_enum", ["COLOR_RED", -1], [1, -1]],
  ])("%s = %o reads %o", (name, value, expected) => {
    expect(DynamicMessage.create(All, { [name]: value }).get(name)).toEqual(expected);
  });

  test("nested messages from plain objects and DynamicMessage values", () => {
    const m = DynamicMessage.create(All, { f_message: { name: "a" }, r_message: [leaf, { value: 2 }] });
    const f = m.get("f_message") as DynamicMessage;
    expect(f).toBeInstanceOf(DynamicMessage);
    expect(f.descriptor).toBe(Leaf);
    expect(f.get("name")).toBe("a");
    const r = m.get("r_message") as DynamicMessage[];
    expect(r[0]).toBe(leaf);
    expect(r[1]!.get("value")).toBe(2);
  });

  test("a Uint8Array is kept without copying", () => {
    const b = new Uint8Array([1, 2, 3]);
    expect(DynamicMessage.create(All, { f_bytes: b }).get("f_bytes")).toBe(b);
    expect(DynamicMessage.newBuilder(All).set("c_bytes", b).build().get("c_bytes")).toBe(b);
  });

  test("repeated values are copies of the input", () => {
    const arr = [1, 2];
    const m = DynamicMessage.create(All, { r_int32: arr });
    arr.push(3);
    expect(m.get("r_int32")).toEqual([1, 2]);
  });
});

describe("maps with every key type", () => {
  test.each([
    ["m_int32", { "-1": "a", 7: "b" }, new Map([[-1, "a"], [7, "b"]])],
    ["m_int64", { "-9223372036854775808": "a" }, new Map([[-(2n ** 63n), "a"]])],
    ["m_uint32", { 4294967295: "a" }, new Map([[4294967295, "a"]])],
    ["m_uint64", { "18446744073709551615": "a" }, new Map([[2n ** 64n - 1n, "a"]])],
    ["m_sint32", { "-5": "a" }, new Map([[-5, "a"]])],
    ["m_sint64", { "-5": "a" }, new Map([[-5n, "a"]])],
    ["m_fixed32", { 5: "a" }, new Map([[5, "a"]])],
    ["m_fixed64", { 5: "a" }, new Map([[5n, "a"]])],
    ["m_sfixed32", { "-5": "a" }, new Map([[-5, "a"]])],
    ["m_sfixed64", { "-5": "a" }, new Map([[-5n, "a"]])],
    ["m_bool", { true: "t", false: "f" }, new Map([[true, "t"], [false, "f"]])],
    ["m_string", { "": "empty", k: "v" }, new Map([["", "empty"], ["k", "v"]])],
  ])("%s from a plain object", (name, init, expected) => {
    const m = DynamicMessage.create(All, { [name]: init });
    expect(m.get(name)).toEqual(expected);
    expect(DynamicMessage.create(All, { [name]: expected }).equals(m)).toBe(true);
    expect(m.toObject()[name]).toEqual(Object.fromEntries([...expected].map(([k, v]) => [String(k), v])));
  });

  test("map values of every kind", () => {
    const m = DynamicMessage.create(All, {
      mv_bytes: { a: new Uint8Array([1]) },
      mv_enum: { a: "COLOR_RED" },
      mv_message: { a: { name: "n" } },
      mv_double: { a: Number.NaN },
      mv_sint64: { a: -1 },
    });
    expect((m.get("mv_message") as Map<string, DynamicMessage>).get("a")!.get("name")).toBe("n");
    expect(m.get("mv_enum")).toEqual(new Map([["a", 1]]));
    expect(m.get("mv_sint64")).toEqual(new Map([["a", -1n]]));
    expect(m.toObject().mv_message).toEqual({ a: { name: "n", value: 0 } });
  });

  test("builder put and add", () => {
    const m = DynamicMessage.newBuilder(All)
      .put("m_int64", "5", "x")
      .put("m_int64", 6n, "y")
      .add("r_string", "a")
      .add("r_string", "b")
      .build();
    expect(m.get("m_int64")).toEqual(new Map([[5n, "x"], [6n, "y"]]));
    expect(m.get("r_string")).toEqual(["a", "b"]);
  });
});

describe("oneofs", () => {
  test("builder set clears the other members", () => {
    const b = DynamicMessage.newBuilder(All).set("c_string", "s").set("c_enum", 2);
    const m = b.build();
    expect(m.has("c_string")).toBe(false);
    expect(m.get("c_enum")).toBe(2);
    expect(m.whichOneof("choice")).toBe("c_enum");
    expect(b.clear("c_enum").build().whichOneof("choice")).toBeUndefined();
  });

  test("create with one member per oneof", () => {
    const m = DynamicMessage.create(All, { c_message: { name: "x" }, oc_double: 0 });
    expect(m.whichOneof("choice")).toBe("c_message");
    expect(m.whichOneof("other_choice")).toBe("oc_double");
  });
});

describe("builder snapshots", () => {
  test("build does not share lists or maps with the builder", () => {
    const b = DynamicMessage.newBuilder(All).add("r_int32", 1).put("m_string", "a", "b");
    const first = b.build();
    b.add("r_int32", 2).put("m_string", "c", "d");
    expect(first.get("r_int32")).toEqual([1]);
    expect((first.get("m_string") as Map<string, string>).size).toBe(1);
    expect(b.build().get("r_int32")).toEqual([1, 2]);
  });

  test("toBuilder starts from the value", () => {
    const m = DynamicMessage.create(All, { f_int32: 5, r_int32: [1] });
    const n = m.toBuilder().add("r_int32", 2).build();
    expect(m.get("r_int32")).toEqual([1]);
    expect(n.get("r_int32")).toEqual([1, 2]);
    expect(n.get("f_int32")).toBe(5);
  });

  test("unknown fields are kept in stored order per number", () => {
    const a = new Uint8Array([0xa8, 0x1f, 0x01]); // field 501, varint 1
    const b = new Uint8Array([0xa8, 0x1f, 0x02]);
    const m = DynamicMessage.newBuilder(Leaf).setUnknownFields(new Map([[501, [a, b]]])).build();
    expect(m.unknownFields.get(501)).toEqual([a, b]);
    // Copies, not the caller's arrays: a value written once writes its occurrences again unchecked
    // (test/value-mutation-paths.test.ts).
    expect(m.unknownFields.get(501)![0]).not.toBe(a);
  });
});

describe("getDefaultInstance", () => {
  test("is cached per descriptor instance and has nothing set", () => {
    const d = DynamicMessage.getDefaultInstance(All);
    expect(DynamicMessage.getDefaultInstance(All)).toBe(d);
    expect(d.equals(DynamicMessage.create(All, {}))).toBe(true);
    const other = messageFromDir("fixtures/all-types", "alltypes.AllTypes");
    expect(DynamicMessage.getDefaultInstance(other)).not.toBe(d);
  });
});

describe("getField", () => {
  test("resolves fields of the same instance", () => {
    const m = DynamicMessage.create(All, { f_int32: 3 });
    expect(m.getField(All.fields.find((f) => f.name === "f_int32")!)).toBe(3);
  });

  test("rejects a field of another descriptor instance", () => {
    const other = messageFromDir("fixtures/all-types", "alltypes.AllTypes");
    const m = DynamicMessage.create(All, { f_int32: 3 });
    expect(() => m.getField(other.fields[0]!)).toThrow(
      new TypeError(
        "getField: field alltypes.AllTypes.f_double does not belong to this alltypes.AllTypes descriptor instance; resolve fields through the value (msg.descriptor.fields)",
      ),
    );
  });
});

describe("equals", () => {
  const other = messageFromDir("fixtures/all-types", "alltypes.AllTypes");
  test.each([
    ["equal content", { f_int32: 1, r_string: ["a"] }, { f_int32: 1, r_string: ["a"] }, true],
    ["NaN equals NaN", { f_double: Number.NaN }, { f_double: Number.NaN }, true],
    ["-0 vs 0 differ in presence", { f_double: -0 }, { f_double: 0 }, false],
    ["optional -0 equals 0", { o_double: -0 }, { o_double: 0 }, true],
    ["bytes by content", { f_bytes: new Uint8Array([1]) }, { f_bytes: new Uint8Array([1]) }, true],
    ["bytes differ", { f_bytes: new Uint8Array([1]) }, { f_bytes: new Uint8Array([2]) }, false],
    ["map order ignored", { m_string: { a: "1", b: "2" } }, { m_string: new Map([["b", "2"], ["a", "1"]]) }, true],
    ["nested", { f_message: { name: "x" } }, { f_message: { name: "x" } }, true],
    ["nested differs", { f_message: { name: "x" } }, { f_message: { name: "y" } }, false],
    ["explicit zero vs absent", { o_int32: 0 }, {}, false],
    ["list order matters", { r_int32: [1, 2] }, { r_int32: [2, 1] }, false],
  ])("%s", (_name, a, b, eq) => {
    expect(DynamicMessage.create(All, a).equals(DynamicMessage.create(All, b))).toBe(eq);
  });

  test("another descriptor instance is never equal", () => {
    expect(DynamicMessage.create(All, { f_int32: 1 }).equals(DynamicMessage.create(other, { f_int32: 1 }))).toBe(false);
  });

  test("unknown fields take part", () => {
    const u = new Map([[501, [new Uint8Array([0xa8, 0x1f, 0x01])]]]);
    const a = DynamicMessage.newBuilder(Leaf).setUnknownFields(u).build();
    expect(a.equals(DynamicMessage.create(Leaf, {}))).toBe(false);
    expect(a.equals(DynamicMessage.newBuilder(Leaf).setUnknownFields(u).build())).toBe(true);
  });
});

describe("an integer -0 is the zero", () => {
  // The wire has no integer -0: kept as -0, an implicit field held it as set, wrote 08 00 and read
  // back unequal. A float's -0 is its own value (protobuf writes it).
  const ser = ProtobufType.of(All).createSerializer();
  test.each(["f_int32", "f_uint32", "f_sint32", "f_sfixed32", "f_fixed32", "f_enum"])("%s", (name) => {
    const built = DynamicMessage.create(All, { [name]: -0 });
    expect(built.has(name)).toBe(false);
    expect(Object.is(built.get(name), 0)).toBe(true);
    expect(DynamicMessage.newBuilder(All).set(name, -0).build().has(name)).toBe(false);
    expect(ser.toBinary(built)).toEqual(new Uint8Array(0));
    expect(ser.toBinary({ [name]: -0 })).toEqual(new Uint8Array(0));
    expect(built.equals(DynamicMessage.create(All, {}))).toBe(true);
    const optional = DynamicMessage.create(All, { [name.replace("f_", "o_")]: -0 });
    expect(Object.is(optional.get(name.replace("f_", "o_")), 0)).toBe(true);
  });
});

describe("toObject", () => {
  test("keys by proto field names, keeps bigint and Uint8Array, leaves out absent explicit fields", () => {
    const b = new Uint8Array([9]);
    const o = DynamicMessage.create(Leaf, { name: "n" }).toObject();
    expect(o).toEqual({ name: "n", value: 0 });
    const all = DynamicMessage.create(All, { f_int64: 5n, f_bytes: b, o_int32: 0, r_message: [{ name: "a" }] }).toObject();
    expect(all.f_int64).toBe(5n);
    expect(all.f_bytes).toBe(b);
    expect(all.o_int32).toBe(0);
    expect("o_string" in all).toBe(false);
    expect("f_message" in all).toBe(false);
    expect(all.r_message).toEqual([{ name: "a", value: 0 }]);
    expect(all.m_int32).toEqual({});
  });
});

describe("rejections name the field and the rule", () => {
  test.each([
    [{ nope: 1 }, TypeError, 'alltypes.AllTypes has no field "nope"; use a field name as declared in the .proto file'],
    [{ fInt32: 1 }, TypeError, 'alltypes.AllTypes has no field "fInt32"; use the proto field name "f_int32"'],
    [{ f_int32: "1" }, TypeError, 'field alltypes.AllTypes.f_int32(5) expects int32, got string "1"'],
    [{ f_int32: 2147483648 }, RangeError, "field alltypes.AllTypes.f_int32(5) expects int32 in -2147483648..2147483647, got number 2147483648"],
    [{ f_int32: 1.5 }, RangeError, "field alltypes.AllTypes.f_int32(5) expects an integer (int32), got number 1.5"],
    [{ f_uint32: -1 }, RangeError, "field alltypes.AllTypes.f_uint32(11) expects uint32 in 0..4294967295, got number -1"],
    [{ f_int64: 2n ** 63n }, RangeError, "field alltypes.AllTypes.f_int64(3) expects int64 in -9223372036854775808..9223372036854775807, got bigint 9223372036854775808n"],
    [{ f_uint64: -1n }, RangeError, "field alltypes.AllTypes.f_uint64(4) expects uint64 in 0..18446744073709551615, got bigint -1n"],
    [{ f_int64: "5" }, TypeError, 'field alltypes.AllTypes.f_int64(3) expects int64 (bigint or integer number), got string "5"'],
    [{ js_string_int64: "5x" }, TypeError, 'field alltypes.AllTypes.js_string_int64(131) expects int64 as a decimal string, got string "5x"'],
    [{ f_bool: 1 }, TypeError, "field alltypes.AllTypes.f_bool(8) expects bool (boolean), got number 1"],
    [{ f_double: "1" }, TypeError, 'field alltypes.AllTypes.f_double(1) expects double (number), got string "1"'],
    [{ f_string: 5 }, TypeError, "field alltypes.AllTypes.f_string(9) expects string, got number 5"],
    [{ f_string: "a\uD800" }, RangeError, "field alltypes.AllTypes.f_string(9) expects a well-formed string, got one with a lone surrogate; strings are written as UTF-8"],
    [{ f_bytes: [1] }, TypeError, "field alltypes.AllTypes.f_bytes(10) expects bytes (Uint8Array), got an array"],
    [{ f_enum: "COLOR_BLUE" }, RangeError, 'field alltypes.AllTypes.f_enum(16) expects a value of enum alltypes.Color, got string "COLOR_BLUE"; use a declared name or a number'],
    [{ f_enum: 2147483648 }, RangeError, "field alltypes.AllTypes.f_enum(16) expects enum alltypes.Color in -2147483648..2147483647, got number 2147483648"],
    [{ f_message: "x" }, TypeError, 'field alltypes.AllTypes.f_message(17) expects a DynamicMessage or a plain object for alltypes.Leaf, got string "x"'],
    [{ f_message: { nope: 1 } }, TypeError, 'alltypes.AllTypes.f_message(17) has no field "nope"; use a field name as declared in the .proto file'],
    [{ r_int32: 1 }, TypeError, "field alltypes.AllTypes.r_int32(45) is repeated and expects an array, got number 1"],
    [{ r_int32: [1, "2"] }, TypeError, 'field alltypes.AllTypes.r_int32(45)[1] expects int32, got string "2"'],
    [{ m_int32: [] }, TypeError, "field alltypes.AllTypes.m_int32(81) is a map and expects a Map or a plain object, got an array"],
    [{ m_int32: { x: "a" } }, TypeError, 'map key of field alltypes.AllTypes.m_int32(81) expects int32, got string "x"'],
    [{ m_int32: { 1: 2 } }, TypeError, "field alltypes.AllTypes.m_int32(81)[1] expects string, got number 2"],
    [{ m_bool: { yes: "a" } }, TypeError, 'map key of field alltypes.AllTypes.m_bool(91) expects bool (boolean, "true" or "false"), got string "yes"'],
    [{ m_uint32: new Map([[-1, "a"]]) }, RangeError, "map key of field alltypes.AllTypes.m_uint32(83) expects uint32 in 0..4294967295, got number -1"],
    [{ c_string: "a", c_enum: 1 }, TypeError, 'oneof alltypes.AllTypes.choice has two members set: "c_string" and "c_enum"; set at most one'],
  ])("%o", (init, kind, message) => {
    expect(() => DynamicMessage.create(All, init)).toThrow(new kind(message));
  });

  test("create and builder reject a non-descriptor", () => {
    expect(() => DynamicMessage.create({} as never, {})).toThrow(
      new TypeError("DynamicMessage.create expects a DescMessage (@bufbuild/protobuf), got an object"),
    );
    expect(() => DynamicMessage.create(All, [] as never)).toThrow(
      new TypeError("DynamicMessage.create(alltypes.AllTypes) expects a plain init object (an object literal or Object.create(null)), got an array"),
    );
  });

  test.each([
    [(b: ReturnType<typeof DynamicMessage.newBuilder>) => b.set("f_int32", undefined), 'field alltypes.AllTypes.f_int32(5) cannot be set to undefined; use clear("f_int32")'],
    [(b: ReturnType<typeof DynamicMessage.newBuilder>) => b.add("f_int32", 1), 'field alltypes.AllTypes.f_int32(5) is not repeated; use set("f_int32", value)'],
    [(b: ReturnType<typeof DynamicMessage.newBuilder>) => b.put("r_int32", 1, 1), 'field alltypes.AllTypes.r_int32(45) is not a map; use set("r_int32", value)'],
    [(b: ReturnType<typeof DynamicMessage.newBuilder>) => b.add("r_int32", 1).add("r_int32", "x"), 'field alltypes.AllTypes.r_int32(45)[1] expects int32, got string "x"'],
    [(b: ReturnType<typeof DynamicMessage.newBuilder>) => b.setUnknownFields(new Map([[5, [1]]]) as never), "unknown fields of alltypes.AllTypes expect an array of Uint8Array for field 5"],
    [(b: ReturnType<typeof DynamicMessage.newBuilder>) => b.clear("zz"), 'alltypes.AllTypes has no field "zz"; use a field name as declared in the .proto file'],
  ])("builder %#", (op, message) => {
    expect(() => op(DynamicMessage.newBuilder(All))).toThrow(new TypeError(message));
  });

  test("get and has reject unknown names", () => {
    const m = DynamicMessage.create(Leaf, {});
    expect(() => m.get("createdAt")).toThrow(new TypeError('alltypes.Leaf has no field "createdAt"; use a field name as declared in the .proto file'));
    expect(() => m.has("nope")).toThrow(TypeError);
  });
});
