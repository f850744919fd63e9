// Chains of every depth through every way a message holds the next (singular, list element, map
// value, oneof member), with fields before and after the link, children of a type without message
// fields (which the generated writer writes by recursion, where recursive types go to its frame
// stack) at every level, Struct and wrapper fields, and lengths on both sides of one and two
// varint bytes:
// - the generated kind's bytes are @bufbuild/protobuf's toBinary bytes, bare, framed and batched;
// - the dynamic kind writes the same chain from a plain init object to the same bytes;
// - a refusal deep in the chain leaves nothing behind: the next write is the reference's.
import { create, toBinary, type DescMessage, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { messageFromDir } from "./support/buf.js";
import { frame } from "./support/differential.js";

const LINK = messageFromDir("fixtures/writer-levels", "levels.Link");
type Kind = "next" | "list" | "map" | "member";
type Init = Record<string, unknown>;

/** Info with every field set; `n` varies the values, `wide` makes its length pass 127. */
function info(n: number, wide: boolean): Init {
  return {
    a: `a${n}`,
    b: n,
    c: wide ? "c".repeat(130) : "c",
    d: BigInt(-n),
    e: new Uint8Array([n & 0xff, 1, 2]),
    f: n / 3,
    g: n % 2 === 1,
    h: "h",
    i: n,
    j: [n, -n, 300],
    k: "k",
    l: "\u00e9\u{1F600}",
    m: BigInt(n) * 1000000007n,
  };
}

/**
 * A chain `depth` links long through `kind`, in protobuf-es' init form (`es`: oneof as
 * { case, value }, Struct and wrapper fields set) or DynamicMessage.create's (proto names, a
 * oneof's member as a field, no Struct or wrapper: create takes those as messages).
 */
function chain(depth: number, kind: Kind, label: number, es: boolean): Init {
  let v: Init | undefined = undefined;
  for (let level = depth; level >= 1; level--) {
    const o: Init = { id: level, before: info(level, false) };
    if (v !== undefined) {
      if (kind === "next") o.next = v;
      else if (kind === "list") o.list = [v, { id: 7 }];
      else if (kind === "map") o.map = { y: { id: 9 }, x: v };
      else if (es) o.pick = { case: "member", value: v };
      else o.member = v;
    } else if (es) o.pick = { case: "info", value: info(level, true) };
    else o.info = info(level, true);
    if (es) {
      o.json = { level, tags: ["t", { deep: [level, null, true] }] } satisfies JsonObject;
      o.boxed = level % 3 === 0 ? 0 : level;
    }
    o.infos = [info(level + 1, level % 2 === 0), info(level + 2, false)];
    o.byName = { q: info(level + 3, false), p: info(level + 4, level % 5 === 0) };
    if (!es) {
      o.by_name = o.byName;
      delete o.byName;
    }
    o.label = "l".repeat(label);
    o.after = info(level + 5, false);
    v = o;
  }
  return v!;
}

function esValue(desc: DescMessage, init: Init) {
  return create(desc, init as MessageInitShape<DescMessage>);
}

function same(a: Uint8Array, b: Uint8Array): void {
  expect(a.length).toBe(b.length);
  expect(Buffer.compare(a, b)).toBe(0);
}

// A map entry is a level of its own (the reader counts it): a chain through maps of 400 links is
// 800 levels deep, and Struct adds its own below each link.
const gen = ProtobufType.newGeneratedBuilder(LINK).maxDepth(2000).build().createSerializer();
const dyn = ProtobufType.newBuilder(LINK).maxDepth(2000).build().createSerializer();
const dynDet = ProtobufType.newBuilder(LINK).maxDepth(2000).deterministic(true).build().createSerializer();

const DEPTHS = [1, 2, 31, 62, 63, 64, 65, 66, 67, 100, 127, 128, 129, 130, 400];
const KINDS: Kind[] = ["next", "list", "map", "member"];
// 0: every length one byte near the bottom; 40: lengths of two bytes from a few levels up; 200:
// every length past 127, the deep ones past 16,383.
const LABELS = [0, 40, 200];
const cases = KINDS.flatMap((kind) => DEPTHS.flatMap((depth) => LABELS.map((label) => [kind, depth, label] as const)));

describe("a chain is written as protobuf-es writes it", () => {
  test.each(cases)("through %s, %i links, labels of %i", (kind, depth, label) => {
    const value = esValue(LINK, chain(depth, kind, label, true));
    const want = toBinary(LINK, value);
    same(gen.toBinary(value), want);
    same(gen.encode(value), frame(want));
    same(gen.encodeAll([value, value]), Buffer.concat([frame(want), frame(want)]));

    // The same chain without its Struct and wrapper fields, from a plain init object.
    const plain = chain(depth, kind, label, false);
    const wantPlain = toBinary(LINK, esValue(LINK, strip(chain(depth, kind, label, true))));
    same(dyn.toBinary(plain), wantPlain);
    same(dyn.encode(plain), frame(wantPlain));
  });
});

// A DynamicMessage written once is accepted: written again, its subtree is trusted and written by
// recursion when at most 32 levels high (writer.ts, trustedFields), by frames above that.
describe("a built chain written again is the same bytes", () => {
  test.each(cases)("through %s, %i links, labels of %i", (kind, depth, label) => {
    const value = DynamicMessage.create(LINK, chain(depth, kind, label, false));
    const want = toBinary(LINK, esValue(LINK, strip(chain(depth, kind, label, true))));
    for (let round = 0; round < 3; round++) {
      same(dyn.toBinary(value), want);
      same(dyn.encodeAll([value, value]), Buffer.concat([frame(want), frame(want)]));
      same(dynDet.toBinary(value), dynDet.toBinary(DynamicMessage.create(LINK, chain(depth, kind, label, false))));
    }
  });
});

/** An es init chain without json and boxed at any level. */
function strip(o: Init): Init {
  const out: Init = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === "json" || k === "boxed") continue;
    if (k === "next") out.next = strip(v as Init);
    else if (k === "list") out.list = (v as Init[]).map(strip);
    else if (k === "map") out.map = Object.fromEntries(Object.entries(v as Record<string, Init>).map(([mk, mv]) => [mk, strip(mv)]));
    else if (k === "pick" && (v as { case: string }).case === "member") out.pick = { case: "member", value: strip((v as { value: Init }).value) };
    else out[k] = v;
  }
  return out;
}

describe("a refusal deep in a chain leaves nothing behind", () => {
  // A value refused at link `at`: create's error (the conversion path names the fault), then a
  // clean write equal to the reference.
  const faults: [string, (o: Init) => void, string][] = [
    ["an int32 wrapper out of range", (o) => void (o.boxed = 2 ** 31), "boxed(9).value(1) expects int32 in -2147483648..2147483647, got number 2147483648"],
    [
      "a lone surrogate in an Info",
      (o) => void ((o.after as Init).a = "\ud800"),
      "after(13).a(1) expects a well-formed string, got one with a lone surrogate; strings are written as UTF-8",
    ],
  ];
  test.each(faults.flatMap(([name, hurt, rule]) => [3, 63, 64, 65, 90].map((at) => [name, at, hurt, rule] as const)))("%s at link %i", (_name, at, hurt, rule) => {
    const init = chain(100, "next", 40, true);
    let o = init;
    for (let i = 1; i < at; i++) o = o.next as Init;
    hurt(o);
    const bad = esValue(LINK, init);
    let error: unknown;
    try {
      gen.toBinary(bad);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RangeError);
    const message = (error as Error).message;
    // Long paths are shortened in the middle; a short one is whole.
    if (at === 3) expect(message).toBe(`field levels.Link.next(3).next(3).${rule}`);
    else expect(message).toMatch(new RegExp(`^field levels\\.Link\\.next\\(3\\)\\..*\\.next\\(3\\)\\.${rule.replace(/[.()]/g, "\\$&")}$`));
    const good = esValue(LINK, chain(100, "map", 40, true));
    same(gen.toBinary(good), toBinary(LINK, good));
    same(gen.encodeAll([good]), frame(toBinary(LINK, good)));
  });
});
