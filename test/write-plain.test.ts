// Writing plain init objects (issue 13 item 1): the serializer's write methods take the object
// DynamicMessage.create takes, check it by the same rules with the same errors, and write it in
// one pass without building a value. The bytes equal those of create + write, in both modes.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, FrameWriter, ProtobufType } from "../src/index.js";
import { messageArb } from "./support/arbitrary-message.js";
import { messageFromDir } from "./support/buf.js";
import { thrown } from "./support/thrown.js";

const All = messageFromDir("fixtures/all-types", "alltypes.AllTypes");
const type = ProtobufType.of(All);
const ser = type.createSerializer();
const det = ProtobufType.newBuilder(All).deterministic(true).build().createSerializer();
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

describe("plain init objects write the bytes of create + write", () => {
  test("random contents of every field shape, bare, framed, batched, deterministic", () => {
    fc.assert(
      fc.property(messageArb(All, 2, { maxItems: 4 }), fc.array(messageArb(All, 1), { maxLength: 3 }), (sample, more) => {
        const built = DynamicMessage.create(All, sample.ours);
        expect(hex(ser.toBinary(sample.ours))).toBe(hex(ser.toBinary(built)));
        expect(hex(ser.encode(sample.ours))).toBe(hex(ser.encode(built)));
        expect(hex(det.toBinary(sample.ours))).toBe(hex(det.toBinary(built)));
        const inits = [sample.ours, ...more.map((m) => m.ours)];
        const mixed = inits.map((init, i) => (i % 2 === 0 ? init : DynamicMessage.create(All, init)));
        expect(hex(ser.encodeAll(mixed))).toBe(hex(ser.encodeAll(inits.map((i) => DynamicMessage.create(All, i)))));
        const out = new FrameWriter();
        ser.serialize(sample.ours, out);
        expect(hex(out.view())).toBe(hex(ser.encode(built)));
      }),
      { numRuns: 150, seed: 1313 },
    );
  });

  test("typed arrays for packed numeric fields, without a check per element", () => {
    const init = {
      r_double: new Float64Array([1.5, -0, NaN, Infinity]),
      r_float: new Float32Array([1.5, 3.4e38]),
      r_int32: new Int32Array([-1, 0, 2147483647]),
      r_sint32: new Int32Array([-5, 5]),
      r_uint32: new Uint32Array([0, 4294967295]),
      r_fixed32: new Uint32Array([7]),
      r_sfixed32: new Int32Array([-7]),
      r_int64: new BigInt64Array([-1n, 2n ** 62n]),
      r_sint64: new BigInt64Array([-(2n ** 63n)]),
      r_uint64: new BigUint64Array([2n ** 64n - 1n]),
      r_fixed64: new BigUint64Array([5n]),
      r_sfixed64: new BigInt64Array([-5n]),
    };
    const arrays = Object.fromEntries(Object.entries(init).map(([k, v]) => [k, Array.from(v as ArrayLike<unknown>)]));
    const expected = ser.toBinary(DynamicMessage.create(All, arrays));
    expect(hex(ser.toBinary(init))).toBe(hex(expected));
    // create copies them (a value never holds the application's array) and gives arrays back.
    const v = DynamicMessage.create(All, init);
    expect(hex(ser.toBinary(v))).toBe(hex(expected));
    expect(Array.isArray(v.get("r_double"))).toBe(true);
    (init.r_double as Float64Array)[0] = 99;
    expect((v.get("r_double") as number[])[0]).toBe(1.5);
  });

  test("a typed array of another element type is checked like any array", () => {
    expect(() => ser.toBinary({ r_int32: new Float64Array([1.5]) })).toThrow(
      new RangeError("field alltypes.AllTypes.r_int32(45)[0] expects an integer (int32), got number 1.5"),
    );
    expect(hex(ser.toBinary({ r_int32: new Float64Array([1, 2]) }))).toBe(hex(ser.toBinary(DynamicMessage.create(All, { r_int32: [1, 2] }))));
  });
});

describe("list elements at the edges of their range (each element type's own check loop)", () => {
  test.each([
    { r_int32: [2147483647, -2147483648, -0, 0] },
    { r_int32: [1, 2147483648] },
    { r_int32: [1, NaN] },
    { r_sint32: [-2147483649] },
    { r_sfixed32: [1.5] },
    { r_uint32: [4294967295, 0, -0] },
    { r_uint32: [2, -1] },
    { r_fixed32: [4294967296] },
    { r_enum: [1, -2147483648, 2147483647] },
    { r_enum: [1, "RED"] },
    { r_enum: [2147483648] },
    { r_float: [Infinity, -Infinity, NaN, 3.4028234663852886e38, -0, 1.1] },
    { r_float: [1, 3.5e38] },
    { r_float: [-3.5e38] },
    { r_double: [1, "1"] },
    { r_double: [1, 1n] },
    { r_int64: [2n ** 63n - 1n, -(2n ** 63n), 0n] },
    { r_int64: [2n ** 63n] },
    { r_int64: [1n, 5] },
    { r_sint64: [-(2n ** 63n) - 1n] },
    { r_sfixed64: [-(2n ** 63n)] },
    { r_uint64: [2n ** 64n - 1n, 0n] },
    { r_uint64: [-1n] },
    { r_fixed64: [2n ** 64n] },
    { r_bool: [true, false] },
    { r_bool: [true, 1] },
    { r_string: ["a", "é", "\u{1F600}"] },
    { r_string: ["a", "\uD800"] },
    { r_bytes: [new Uint8Array([1])] },
    { r_bytes: [[1]] },
    { u_int32: [1, 2 ** 31] },
    { u_uint64: [2n ** 64n - 1n] },
  ])("%o", (init) => {
    let built: DynamicMessage | undefined;
    let error: unknown;
    try {
      built = DynamicMessage.create(All, init as never);
    } catch (e) {
      error = e;
    }
    if (built === undefined) {
      expect(thrown(() => ser.toBinary(init as never))).toEqual(error);
      return;
    }
    expect(hex(ser.toBinary(init as never))).toBe(hex(ser.toBinary(built)));
    const [name, list] = Object.entries(init)[0]! as [string, unknown[]];
    const stored = built.get(name) as unknown[];
    expect(stored).not.toBe(list);
    expect(stored.map((x) => (typeof x === "number" && name === "r_float" ? Math.fround(x) : x))).toEqual(stored);
  });
});

describe("errors are create's, and nothing is written", () => {
  test.each([
    [{ f_int32: 1.5 }, () => new RangeError("field alltypes.AllTypes.f_int32(5) expects an integer (int32), got number 1.5")],
    [{ nope: 1 }, () => new TypeError('alltypes.AllTypes has no field "nope"; use a field name as declared in the .proto file')],
    [{ fString: "x" }, () => new TypeError('alltypes.AllTypes has no field "fString"; use the proto field name "f_string"')],
    [{ r_int32: [1, "x"] }, () => new TypeError('field alltypes.AllTypes.r_int32(45)[1] expects int32, got string "x"')],
    [{ f_message: { value: 2 ** 31 } }, () => new RangeError("field alltypes.AllTypes.f_message(17).value(2) expects int32 in -2147483648..2147483647, got number 2147483648")],
    [{ r_message: [{ name: "a" }, 7] }, () => new TypeError("field alltypes.AllTypes.r_message(57)[1] expects a DynamicMessage or a plain object for alltypes.Leaf, got number 7")],
    [{ f_int64: 2 ** 60 }, () => new RangeError("field alltypes.AllTypes.f_int64(3) expects int64, got number 1152921504606847000, which is beyond Number.MAX_SAFE_INTEGER and already rounded; pass a bigint (e.g. 1152921504606846976n only if that is the intended value)")],
  ])("%o", (init, error) => {
    const expected = error();
    expect(() => DynamicMessage.create(All, init as never)).toThrow(expected);
    const out = new FrameWriter();
    ser.serialize({ f_int32: 1 }, out);
    const before = hex(out.view());
    expect(thrown(() => ser.serialize(init as never, out))).toEqual(expected);
    expect(() => ser.toBinary(init as never)).toThrow(expected);
    expect(() => ser.encodeAll([{ f_int32: 2 }, init as never])).toThrow(expected);
    expect(hex(out.view())).toBe(before);
  });

  test("objects of changing shapes (the per-type key cache) resolve every key again when it differs", () => {
    const a = { f_int32: 1, f_string: "x" };
    const expected = hex(ser.toBinary(DynamicMessage.create(All, a)));
    for (let i = 0; i < 3; i++) {
      expect(hex(ser.toBinary(a))).toBe(expected);
      expect(() => ser.toBinary({ f_int32: 1, fString: "x" })).toThrow('use the proto field name "f_string"');
      expect(() => ser.toBinary({ f_int32: 1, f_string: "x", nope: 1 })).toThrow('has no field "nope"');
      expect(hex(ser.toBinary({ f_string: "x", f_int32: 1 }))).toBe(expected);
      expect(hex(ser.toBinary({ f_int32: 1 }))).toBe(hex(ser.toBinary(DynamicMessage.create(All, { f_int32: 1 }))));
    }
  });

  test("key sets that alternate in rotation (oneof members, longer and shorter objects) write what create writes", () => {
    const inits: Record<string, unknown>[] = [
      { f_int32: 1, f_string: "a", f_bool: true },
      { c_enum: 2 },
      { f_bool: true, oc_bool: true },
      { c_string: "s", oc_double: 1.5 },
      { f_int32: 2, f_bool: false, f_string: "b" },
      { c_message: { name: "leaf" } },
      { f_string: "c", f_int32: 3 },
      {},
      { f_int32: 4, f_string: "d", f_bool: true, c_int64: 9n },
    ];
    const expected = inits.map((i) => hex(ser.toBinary(DynamicMessage.create(All, i))));
    for (let round = 0; round < 3; round++) {
      for (let k = 0; k < inits.length; k++) {
        const i = (k * (round + 1)) % inits.length;
        expect(hex(ser.toBinary(inits[i]!)), `round ${round}, init ${i}`).toBe(expected[i]);
      }
    }
    expect(hex(ser.encodeAll(inits))).toBe(hex(ser.encodeAll(inits.map((i) => DynamicMessage.create(All, i)))));
  });

  test("a oneof set twice", () => {
    const fields = All.oneofs[0]!.fields;
    const init = { [fields[0]!.name]: fields[0]!.fieldKind === "message" ? {} : 1, [fields[1]!.name]: fields[1]!.fieldKind === "message" ? {} : 1 };
    const fromCreate = thrown(() => DynamicMessage.create(All, init)) as TypeError;
    expect(fromCreate).toBeInstanceOf(TypeError);
    expect(thrown(() => ser.toBinary(init))).toEqual(fromCreate);
  });

  test("a cyclic init object is create's cycle error, whatever maxDepth", () => {
    // The writers stop it at maxDepth; the error is create's (a depth error named another fault).
    const a: Record<string, unknown> = { f_int32: 1 };
    a.recursive = a;
    const b: Record<string, unknown> = { children: [] };
    b.children = [{ children: [b] }];
    for (const init of [a, b]) {
      const fromCreate = thrown(() => DynamicMessage.create(All, init)) as TypeError;
      expect(fromCreate.message).toMatch(/^DynamicMessage\.create\(alltypes\.AllTypes\): the init object at alltypes\.AllTypes\.\S+ is one of its own enclosing init objects \(a cycle\)/);
      for (const depth of [3, 100, 10_000]) {
        const s = ProtobufType.newBuilder(All).maxDepth(depth).build().createSerializer();
        for (const write of [() => s.toBinary(init), () => s.encode(init), () => s.encodeAll([init]), () => s.serialize(init, new FrameWriter())]) {
          expect(thrown(write)).toEqual(fromCreate);
        }
      }
    }
  });
});
