// A field path in an error message is bounded: a chain nested to maxDepth 10,000 has a path of
// ~150 KB (".recursive(122)" per level), and every write, JSON and read error that names where
// it happened once printed it whole. The message keeps the first two and the last three steps;
// the error's `path` property keeps the whole path for code that walks it. Paths are also put
// into messages literally: a map key such as "$&" is not a replacement pattern.
import { describe, expect, test } from "vitest";
import { create } from "@bufbuild/protobuf";
import { CodecError, ProtobufType } from "../src/index.js";
import { shortPath } from "../src/descriptor/names.js";
import { registryFromDir } from "./support/buf.js";
import { AllTypesSchema, type AllTypes } from "./fixtures/generated-es/gen/all_types_pb.js";
import { thrown } from "./support/thrown.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const DEEP = 10_000;
const deepSer = ProtobufType.newBuilder(All).maxDepth(DEEP).build().createSerializer();
const lowSer = ProtobufType.newBuilder(All).maxDepth(DEEP - 1).build().createSerializer();
const shallow = ProtobufType.newBuilder(All).maxDepth(2).build().createSerializer();
const shallowGen = ProtobufType.newGeneratedBuilder(AllTypesSchema).maxDepth(2).build().createSerializer();
const gen = ProtobufType.newGeneratedBuilder(AllTypesSchema).maxDepth(DEEP).build().createSerializer();

/** A plain value `levels` messages deep through `recursive` (the root is level 1). */
function chain(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = { f_int32: 1 };
  for (let i = 1; i < levels; i++) v = { recursive: v };
  return v;
}

function generatedChain(levels: number): AllTypes {
  let v = create(AllTypesSchema, { fInt32: 1 });
  for (let i = 1; i < levels; i++) v = create(AllTypesSchema, { recursive: v });
  return v;
}

/** The encoding of a chain `levels` deep, written by a serializer that allows it. */
const deepBytes = deepSer.toBinary(chain(DEEP) as never);

const SHORT = "alltypes.AllTypes.recursive(122).recursive(122)...recursive(122).recursive(122).recursive(122)";

// [entry point, run, the message's text around the path]
const ROWS: [string, () => unknown, string][] = [
  ["write from plain", () => deepSer.toBinary(chain(DEEP + 1) as never), `nesting depth ${DEEP + 1} at ${SHORT} exceeds maxDepth ${DEEP}`],
  ["write a DynamicMessage", () => lowSer.toBinary(deepSer.fromBinary(deepBytes)), `nesting depth ${DEEP} at ${SHORT} exceeds maxDepth ${DEEP - 1}`],
  ["generated write", () => gen.toBinary(generatedChain(DEEP + 1)), `nesting depth ${DEEP + 1} at ${SHORT} exceeds maxDepth ${DEEP}`],
  ["fromJson", () => deepSer.fromJson(chain(DEEP + 1)), `nesting depth ${DEEP + 1} at ${SHORT} exceeds maxDepth ${DEEP}`],
  ["toJson", () => lowSer.toJson(deepSer.fromBinary(deepBytes)), `nesting depth ${DEEP} at ${SHORT} exceeds maxDepth ${DEEP - 1}`],
  ["fromBinary", () => lowSer.fromBinary(deepBytes), `field ${SHORT} at byte`],
];

describe("a deep path is shortened in the message and whole in `path`", () => {
  test.each(ROWS)("%s", (_name, run, holds) => {
    const e = thrown<CodecError>(run);
    expect(e).toBeInstanceOf(CodecError);
    expect(e.code).toBe("DEPTH_LIMIT_EXCEEDED");
    expect(e.message).toContain(holds);
    expect(e.message.length).toBeLessThan(400);
    expect(e.path!.startsWith("alltypes.AllTypes.recursive(122).recursive(122).recursive(122)")).toBe(true);
    expect(e.path!.length).toBeGreaterThan(DEEP * ".recursive(122)".length - 100);
  });
});

describe("a path is put into the message literally", () => {
  // String.prototype.replace reads "$&", "$`", "$'" and "$$" in a replacement string as patterns.
  const KEYS = ["$&", "$`", "$'", "$$", "$1"];
  test.each(KEYS)("map key %s", (key) => {
    const seg = `mv_message(95)[${JSON.stringify(key)}]`;
    // maxDepth 2: the map entry is level 2, its Leaf level 3, so each names the entry's path.
    const rows: [string, () => unknown][] = [
      ["fromJson", () => shallow.fromJson({ mvMessage: { [key]: { value: 1 } } })],
      ["write from plain", () => shallow.toBinary({ mv_message: { [key]: { value: 1 } } } as never)],
      ["generated write", () => shallowGen.toBinary(create(AllTypesSchema, { mvMessage: { [key]: { value: 1 } } }))],
      ["toJson", () => shallow.toJson(deepSer.fromBinary(deepSer.toBinary({ mv_message: { [key]: { value: 1 } } } as never)))],
    ];
    for (const [name, run] of rows) {
      let e: Error;
      try {
        run();
        throw new Error(`${name}: expected an error`);
      } catch (x) {
        e = x as Error;
      }
      expect((e as CodecError).code, name).toBe("DEPTH_LIMIT_EXCEEDED");
      expect(e.message, name).toContain(`at alltypes.AllTypes.${seg} exceeds maxDepth 2`);
    }
  });
});

describe("shortPath", () => {
  const CASES: [string, string][] = [
    ["r", "r"],
    ["r.a(1)", "r.a(1)"],
    ["r.a(1).b(2).c(3).d(4).e(5).f(6).g(7).h(8)", "r.a(1).b(2).c(3).d(4).e(5).f(6).g(7).h(8)"],
    ["r.a(1).b(2).c(3).d(4).e(5).f(6).g(7).h(8).i(9)", "r.a(1).b(2)...g(7).h(8).i(9)"],
    ["r.a(1)[0].b(2)[\"k\"].c(3).d(4).e(5).f(6).g(7).h(8).i(9)[3]", "r.a(1)[0].b(2)[\"k\"]...g(7).h(8).i(9)[3]"],
    // Not under the root's name: left as it is.
    ["other.a(1).b(2).c(3).d(4).e(5).f(6).g(7).h(8).i(9)", "other.a(1).b(2).c(3).d(4).e(5).f(6).g(7).h(8).i(9)"],
  ];
  test.each(CASES)("%s", (path, short) => {
    expect(shortPath(path, "r")).toBe(short);
  });
});
