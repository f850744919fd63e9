// A value error (TypeError or RangeError, as DynamicMessage.create throws them) names where the bad
// value sits in the value the caller passed, from the root: `field
// alltypes.AllTypes.children(123)[1].f_string(9)`, not the nested type's own
// `field alltypes.AllTypes.f_string(9)`, which under a recursive or shared type does not say which
// occurrence failed. The same for every entry point that takes nested plain or protobuf-es input:
// create, the builder's set/add/put, the serializer's writes of init objects, and the generated
// kind's writes. Each row's expected message is the root-level error's, with the type name replaced
// by the path: only the path changes, never the rule or the advice.
import { describe, expect, test } from "vitest";
import { create } from "@bufbuild/protobuf";
import { DynamicMessage, FrameWriter, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";
import { thrown } from "./support/thrown.js";

const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
const ROOT = "alltypes.AllTypes";
const ser = ProtobufType.of(All).createSerializer();
const gen = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();

/** Every way to write a plain init object with the dynamic kind. */
const DYNAMIC: [string, (init: Record<string, unknown>) => unknown][] = [
  ["DynamicMessage.create", (init) => DynamicMessage.create(All, init)],
  ["serializer.encode", (init) => ser.encode(init)],
  ["serializer.toBinary", (init) => ser.toBinary(init)],
  ["serializer.encodeAll", (init) => ser.encodeAll([{}, init])],
  ["serializer.serialize", (init) => ser.serialize(init, new FrameWriter())],
];

/** A bad field value at the root, where it is, and the same value nested there. */
interface Row {
  readonly name: string;
  /** The bad part, set at the root (its error is the reference). */
  readonly bad: Record<string, unknown>;
  /** Nests `bad`; the path (after ROOT) of the message that holds it. */
  readonly nest: (bad: Record<string, unknown>) => Record<string, unknown>;
  readonly at: string;
}

const ROWS: Row[] = [
  { name: "recursion, 3 levels", bad: { f_int32: 1.5 }, nest: (b) => ({ recursive: { recursive: b } }), at: ".recursive(122).recursive(122)" },
  { name: "a list element", bad: { f_string: 5 }, nest: (b) => ({ children: [{}, b] }), at: ".children(123)[1]" },
  { name: "a list element's list", bad: { r_int32: [1, 2 ** 40] }, nest: (b) => ({ children: [b] }), at: ".children(123)[0]" },
  { name: "a list element's recursion", bad: { f_uint32: -1 }, nest: (b) => ({ recursive: { mv_message: {} }, children: [{ recursive: b }] }), at: ".children(123)[0].recursive(122)" },
  { name: "a name not declared", bad: { fInt32: 1 }, nest: (b) => ({ nested: { outer: b } }), at: ".nested(121).outer(3)" },
  { name: "two oneof members", bad: { c_string: "a", c_int64: 1n }, nest: (b) => ({ recursive: b }), at: ".recursive(122)" },
  { name: "a lone surrogate", bad: { f_string: "a\uD800" }, nest: (b) => ({ children: [{}, {}, b] }), at: ".children(123)[2]" },
  { name: "a map key", bad: { m_int32: { x: "a" } }, nest: (b) => ({ recursive: b }), at: ".recursive(122)" },
];

describe("dynamic kind: a nested value error names the path from the root", () => {
  for (const [entry, write] of DYNAMIC) {
    test.each(ROWS)(`${entry}: $name`, ({ bad, nest, at }) => {
      const atRoot = thrown(() => write(bad));
      const nested = thrown(() => write(nest(bad)));
      expect(atRoot.message.includes(ROOT)).toBe(true);
      expect(nested.constructor).toBe(atRoot.constructor);
      expect(nested.message).toBe(atRoot.message.replace(ROOT, ROOT + at));
    });
  }

  test("a leaf type's own errors, nested in a map value, name the map key", () => {
    const e = thrown(() => ser.encode({ mv_message: { "k.1": { value: "x" } } }));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe(`field ${ROOT}.mv_message(95)["k.1"].value(2) expects int32, got string "x"`);
    const c = thrown(() => DynamicMessage.create(All, { mv_message: { "k.1": { value: "x" } } }));
    expect(c.message).toBe(e.message);
  });

  test("a path past 8 steps keeps the first two and the last three", () => {
    let v: Record<string, unknown> = { f_int32: "x" };
    for (let i = 0; i < 20; i++) v = { recursive: v };
    const tail = `${ROOT}.recursive(122).recursive(122)...recursive(122).recursive(122).recursive(122).f_int32(5) expects int32, got string "x"`;
    expect(thrown(() => DynamicMessage.create(All, v)).message).toBe(`field ${tail}`);
    expect(thrown(() => ser.encode(v)).message).toBe(`field ${tail}`);
  });

  test("the builder's set, add and put name the builder's field", () => {
    const b = () => DynamicMessage.newBuilder(All);
    expect(thrown(() => b().set("recursive", { children: [{ f_bool: 1 }] })).message).toBe(
      `field ${ROOT}.recursive(122).children(123)[0].f_bool(8) expects bool (boolean), got number 1`,
    );
    expect(thrown(() => b().add("children", {}).add("children", { f_bool: 1 })).message).toBe(`field ${ROOT}.children(123)[1].f_bool(8) expects bool (boolean), got number 1`);
    expect(thrown(() => b().put("mv_message", "k", { nope: 1 })).message).toBe(
      `${ROOT}.mv_message(95)["k"] has no field "nope"; use a field name as declared in the .proto file`,
    );
  });

  test("an error the input throws itself is passed on as it is", () => {
    const own = new TypeError(`${ROOT}.f_int32 could not be read`);
    const init = { recursive: { get f_int32() { throw own; } } };
    for (const [, write] of DYNAMIC) expect(thrown(() => write(init))).toBe(own);
  });
});

describe("generated kind: a nested value error names the path from the root", () => {
  const bad = (): Record<string, unknown> => ({ ...create(AllTypesSchema), fInt32: "x" });
  test.each([
    ["recursion", (b: object) => create(AllTypesSchema, { recursive: create(AllTypesSchema, { recursive: b as never }) }), ".recursive(122).recursive(122)"],
    ["a list element", (b: object) => create(AllTypesSchema, { children: [create(AllTypesSchema), b as never] }), ".children(123)[1]"],
    ["a map value's message", (b: object) => create(AllTypesSchema, { nested: { outer: b as never } }), ".nested(121).outer(3)"],
  ] as const)("%s", (_, nest, at) => {
    const atRoot = thrown(() => gen.encode(bad() as never));
    expect(atRoot.message).toBe(`field ${ROOT}.f_int32(5) expects int32, got string "x"`);
    const nested = thrown(() => gen.encode(nest(bad()) as never));
    expect(nested).toBeInstanceOf(TypeError);
    expect(nested.message).toBe(atRoot.message.replace(ROOT, ROOT + at));
  });

  test("a wrapper field (unboxed by protobuf-es) names the wrapper's value under its path", () => {
    const root = create(AllTypesSchema, { wktInt32: 1.5 });
    expect(thrown(() => gen.encode(root)).message).toBe(`field ${ROOT}.wkt_int32(149).value(1) expects an integer (int32), got number 1.5`);
    const deep = create(AllTypesSchema, { recursive: create(AllTypesSchema, { children: [root] }) });
    expect(thrown(() => gen.encode(deep)).message).toBe(
      `field ${ROOT}.recursive(122).children(123)[0].wkt_int32(149).value(1) expects an integer (int32), got number 1.5`,
    );
    // The dynamic kind names the same place.
    expect(thrown(() => ser.encode({ recursive: { children: [{ wkt_int32: { value: 1.5 } }] } })).message).toBe(
      `field ${ROOT}.recursive(122).children(123)[0].wkt_int32(149).value(1) expects an integer (int32), got number 1.5`,
    );
  });
});
