// DynamicMessage.create and a builder's build() mark a value accepted for its own descriptor, with
// its nesting height, when a write would check nothing more (src/message/create.ts, acceptBuilt):
// its first write then skips the checks a frame per message made. The height must be the one the
// writer and the reader count (a map entry is a level), or maxDepth would let through what the
// reader then refuses; and a value holding what needs checking (unknown fields, a value of
// another descriptor instance) is checked at its first write as before.
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../src/index.js";
import { messageFromDir, registryFromDir } from "./support/buf.js";
import { thrown } from "./support/thrown.js";

const LINK = messageFromDir("fixtures/writer-levels", "levels.Link");
type Init = Record<string, unknown>;

/** A chain of `links` Links through `how`, with `bottom` at its last link. */
function chain(links: number, how: "next" | "list" | "map" | "member", bottom: Init): Init {
  let v: Init = { id: links, ...bottom };
  for (let i = links - 1; i >= 1; i--) {
    if (how === "next") v = { id: i, next: v };
    else if (how === "list") v = { id: i, list: [{ id: 0 }, v] };
    else if (how === "map") v = { id: i, map: { a: { id: 0 }, b: v } };
    else v = { id: i, member: v };
  }
  return v;
}

const bottoms: [string, Init, number][] = [
  ["nothing", {}, 0],
  ["an Info", { info: { a: "x" } }, 1],
  ["a map of Infos", { by_name: { k: { a: "x" } } }, 2],
  ["a list of Infos", { infos: [{ a: "x" }] }, 1],
];
const hows = [["next", 1], ["list", 1], ["map", 2], ["member", 1]] as const;
const cases = hows.flatMap(([how, per]) =>
  bottoms.flatMap(([what, bottom, extra]) => [1, 2, 5, 33, 40].map((links) => [how, links, what, 1 + (links - 1) * per + extra, bottom] as const)),
);

const serializer = (maxDepth: number) => ProtobufType.newBuilder(LINK).maxDepth(maxDepth).build().createSerializer();

describe("a created value's height is the one the writer and the reader count", () => {
  test.each(cases)("through %s, %i links, %s at the bottom: %i levels", (how, links, _what, levels, bottom) => {
    const init = chain(links, how, bottom);
    for (const make of [() => DynamicMessage.create(LINK, init), () => DynamicMessage.create(LINK, init).toBuilder().build()]) {
      const fits = serializer(levels);
      const bytes = fits.toBinary(make());
      expect(fits.fromBinary(bytes).equals(make())).toBe(true);
      if (levels === 1) continue;
      const tight = serializer(levels - 1);
      const e = thrown(() => tight.toBinary(make()));
      expect(e).toBeInstanceOf(CodecError);
      expect((e as CodecError).code).toBe("DEPTH_LIMIT_EXCEEDED");
      // The same refusal as for the init object itself (written without a value), and the reader's.
      expect((e as CodecError).message).toBe((thrown(() => tight.toBinary(init)) as Error).message);
      expect((thrown(() => tight.fromBinary(bytes)) as CodecError).code).toBe("DEPTH_LIMIT_EXCEEDED");
    }
  });
});

test.each([
  ["a map of strings", { m_string: { k: "v" } }, 2],
  ["a map of strings in a Leaf-less value with a list", { m_string: { k: "v" }, r_int32: [1] }, 2],
  ["a list of strings", { r_string: ["a"] }, 1],
  ["a Leaf", { f_message: { name: "a" } }, 2],
  ["a map of Leafs", { mv_message: { k: { name: "a" } } }, 3],
])("a created AllTypes holding %s is %i levels high", (_, init, levels) => {
  const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
  const at = (maxDepth: number) => ProtobufType.newBuilder(All).maxDepth(maxDepth).build().createSerializer();
  expect(at(levels).toBinary(DynamicMessage.create(All, init)).length).toBeGreaterThan(0);
  if (levels > 1) expect((thrown(() => at(levels - 1).toBinary(DynamicMessage.create(All, init))) as CodecError).code).toBe("DEPTH_LIMIT_EXCEEDED");
});

describe("a created value that needs checking is checked at its first write", () => {
  const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
  const ser = ProtobufType.of(All).createSerializer();
  const Leaf = All.fields.find((f) => f.name === "f_message")!.message!;
  test.each([
    [
      "an unknown field colliding with a declared one",
      () => DynamicMessage.newBuilder(All).set("f_int32", 1).setUnknownFields(new Map([[1, [new Uint8Array([0x08, 0x01])]]])).build(),
      "UNKNOWN_FIELD_COLLISION",
    ],
    [
      "a malformed unknown field",
      () => DynamicMessage.newBuilder(All).setUnknownFields(new Map([[999, [new Uint8Array([0xf8, 0x3e])]]])).build(),
      "UNKNOWN_FIELD_MALFORMED",
    ],
    [
      "a malformed unknown field one level down",
      () => DynamicMessage.create(All, { f_message: DynamicMessage.newBuilder(Leaf).setUnknownFields(new Map([[9, [new Uint8Array([0x48])]]])).build() }),
      "UNKNOWN_FIELD_MALFORMED",
    ],
  ])("%s: %s", (_, make, code) => {
    for (let i = 0; i < 2; i++) expect((thrown(() => ser.toBinary(make())) as CodecError).code).toBe(code);
  });
});
