// Hardening item 9: with maxDepth allowed up to 10,000, values nested 2,000 deep made encode,
// deterministic encode, equals, toObject and encode-through-evaluator throw `RangeError: Maximum
// call stack size exceeded`. Every operation now works up to the largest maxDepth the settings
// accept (nothing recurses on value depth), and one level past it is a typed error.
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../../src/index.js";
import { pbjsType } from "./support.js";

const SCHEMA = `message Node { Node next = 1; int32 v = 2; repeated Node kids = 3; map<string, Node> named = 4; }`;
const MAX = 10_000;
const type = ProtobufType.newBuilder(pbjsType(SCHEMA, "Node")).maxDepth(MAX).maxMessageBytes(1 << 30).build();
const Node = type.descriptor;
const ser = type.createSerializer();
const det = ProtobufType.newBuilder(Node).maxDepth(MAX).deterministic(true).build().createSerializer();
// Another instance of the same schema: writes go through the evaluator (rule c).
const other = ProtobufType.newBuilder(pbjsType(SCHEMA, "Node")).maxDepth(MAX).build();

type Via = "next" | "kids" | "named";

/** A chain `depth` levels deep (the root is level 1), linked through `via`, built bottom-up. */
function chain(desc: typeof Node, depth: number, via: Via): DynamicMessage {
  // A map entry is a level of its own: a map-linked chain reaches `depth` with half the values.
  const links = via === "named" ? Math.floor((depth - 1) / 2) : depth - 1;
  let v = DynamicMessage.create(desc, { v: depth });
  for (let i = 0; i < links; i++) {
    const init = via === "next" ? { next: v } : via === "kids" ? { kids: [v] } : { named: { k: v } };
    v = DynamicMessage.create(desc, { v: i, ...init });
  }
  return v;
}

/** The same chain as one nested plain init object (create converts it without recursion). */
function plainChain(depth: number): Record<string, unknown> {
  let init: Record<string, unknown> = { v: depth };
  for (let i = 0; i < depth - 1; i++) init = { v: i, next: init };
  return init;
}

describe.each<Via>(["next", "kids", "named"])("values %s-linked up to maxDepth 10,000", (via) => {
  const depth = via === "named" ? MAX - 1 : MAX;
  const value = chain(Node, depth, via);

  test("encode, decode, deterministic encode, equals, toObject", () => {
    const bytes = ser.toBinary(value);
    const back = ser.fromBinary(bytes);
    expect(back.equals(value)).toBe(true);
    expect(det.toBinary(value)).toEqual(bytes);
    expect(ser.decode(ser.encode(back)).equals(value)).toBe(true);
    let o = value.toObject();
    let levels = 1;
    for (;;) {
      const next = via === "next" ? o.next : via === "kids" ? (o.kids as unknown[])[0] : (o.named as Record<string, unknown>).k;
      if (next === undefined) break;
      o = next as Record<string, unknown>;
      levels += via === "named" ? 2 : 1;
    }
    expect(levels).toBe(depth);
  });

  test("through the evaluator (a value of another descriptor instance)", () => {
    const foreign = chain(other.descriptor, depth, via);
    const back = ser.fromBinary(ser.toBinary(foreign));
    expect(back.equals(value)).toBe(true);
  });

  test("one level more is DEPTH_LIMIT_EXCEEDED on write, and nothing is written", () => {
    const deeper = chain(Node, depth + (via === "named" ? 2 : 1), via);
    let e: unknown;
    try {
      ser.encode(deeper);
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(CodecError);
    expect((e as CodecError).code).toBe("DEPTH_LIMIT_EXCEEDED");
    expect((e as CodecError).message).toMatch(new RegExp(`nesting depth ${MAX + 1} at Node(\\.[a-z]+\\([0-9]\\)(\\[[^\\]]*\\])?)+ exceeds maxDepth ${MAX}`));
    // The serializer still works, and so does the deep value under a looser type.
    expect(ser.fromBinary(ser.toBinary(value)).equals(value)).toBe(true);
  });
});

describe("reading past maxDepth", () => {
  test("bytes nested 10,001 deep are DEPTH_LIMIT_EXCEEDED; 10,000 read", () => {
    const atMax = ser.toBinary(chain(Node, MAX, "next"));
    const len: number[] = [];
    for (let n = atMax.length; ; n >>>= 7) {
      if (n <= 0x7f) {
        len.push(n);
        break;
      }
      len.push((n & 0x7f) | 0x80);
    }
    const past = Uint8Array.from([0x0a, ...len, ...atMax]);
    const nest = (levels: number): Uint8Array => (levels === MAX ? atMax : past);
    expect(ser.fromBinary(nest(MAX)).get("v")).toBe(MAX - 2);
    expect(() => ser.fromBinary(nest(MAX + 1))).toThrow(expect.objectContaining({ code: "DEPTH_LIMIT_EXCEEDED" }));
    expect(() => ser.validate(nest(MAX + 1))).toThrow(expect.objectContaining({ code: "DEPTH_LIMIT_EXCEEDED" }));
  });
});

describe("deep init objects", () => {
  test("create converts a 10,000-deep plain init object", () => {
    const v = DynamicMessage.create(Node, plainChain(MAX));
    expect(v.equals(chain(Node, MAX, "next"))).toBe(true);
    expect(ser.fromBinary(ser.toBinary(v)).equals(v)).toBe(true);
  });

  test("a cyclic init object is a TypeError naming where the cycle closes", () => {
    const a: Record<string, unknown> = { v: 1 };
    const b: Record<string, unknown> = { v: 2, next: a };
    a.next = b;
    expect(() => DynamicMessage.create(Node, a)).toThrow(
      new TypeError(
        "DynamicMessage.create(Node): the init object at Node.next(1).next(1) is one of its own enclosing init objects (a cycle); a message value is a tree: build each level once",
      ),
    );
    const self: Record<string, unknown> = { v: 1 };
    self.kids = [{ v: 2 }, self];
    expect(() => DynamicMessage.create(Node, self)).toThrow(/the init object at Node\.kids\(3\)\[1\] is one of its own enclosing/);
    const viaMap: Record<string, unknown> = { v: 1 };
    viaMap.named = { x: { named: { y: viaMap } } };
    expect(() => DynamicMessage.create(Node, viaMap)).toThrow(/at Node\.named\(4\)\["x"\]\.named\(4\)\["y"\] is one of its own/);
  });

  test("the same init object twice (not a cycle) is fine", () => {
    const leaf = { v: 7 };
    const v = DynamicMessage.create(Node, { kids: [leaf, leaf], next: { next: leaf } });
    expect((v.get("kids") as DynamicMessage[]).map((k) => k.get("v"))).toEqual([7, 7]);
  });
});
