// Hardening item 9: with maxDepth allowed up to 10,000, values nested 2,000 deep made encode,
// deterministic encode, equals, toObject and encode-through-evaluator throw `RangeError: Maximum
// call stack size exceeded`. Every operation now works up to the largest maxDepth the settings
// accept (nothing recurses on value depth), and one level past it is a typed error.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../../src/index.js";
import { pbjsType, varint } from "./support.js";

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
    expect((e as CodecError).message).toMatch(new RegExp(`nesting depth ${MAX + 1} at Node(\\.(\\.\\.)?[a-z]+\\([0-9]\\)(\\[[^\\]]*\\])?)+ exceeds maxDepth ${MAX}`));
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

describe.each<Via>(["next", "kids", "named"])("the generated kind: protobuf-es values %s-linked up to maxDepth 10,000", (via) => {
  const gen = ProtobufType.newGeneratedBuilder(Node).maxDepth(MAX).maxMessageBytes(1 << 30).build().createSerializer();
  type G = { v: number; next?: G; kids: G[]; named: Record<string, G> };
  /** `chain` as protobuf-es objects, linked by assignment (no recursion). */
  function gchain(depth: number): G {
    const links = via === "named" ? Math.floor((depth - 1) / 2) : depth - 1;
    let v = create(Node, { v: depth }) as unknown as G;
    for (let i = 0; i < links; i++) {
      const up = create(Node, { v: i }) as unknown as G;
      if (via === "next") up.next = v;
      else if (via === "kids") up.kids.push(v);
      else up.named.k = v;
      v = up;
    }
    return v;
  }
  const down = (g: G): G | undefined => (via === "next" ? g.next : via === "kids" ? g.kids[0] : g.named.k);
  /** The `v` of every level, walked without recursion. */
  function levels(g: G): number[] {
    const out: number[] = [];
    for (let x: G | undefined = g; x !== undefined; x = down(x)) out.push(x.v);
    return out;
  }
  const depth = via === "named" ? MAX - 1 : MAX;
  const value = gchain(depth);

  test("encode and decode: the dynamic kind's bytes, the same levels back", () => {
    const bytes = gen.toBinary(value as never);
    expect(Buffer.compare(bytes, ser.toBinary(chain(Node, depth, via)))).toBe(0);
    const back = gen.fromBinary(bytes) as unknown as G;
    expect(levels(back)).toEqual(levels(value));
    expect(Buffer.compare(gen.toBinary(back as never), bytes)).toBe(0);
    expect(levels(gen.decode(gen.encode(back as never)) as unknown as G)).toEqual(levels(value));
    expect(gen.decodeAll(gen.encodeAll([value, value] as never[]))).toHaveLength(2);
  });

  test("at 1,000 levels, protobuf-es' own recursion holds: its value and its bytes", () => {
    const small = gchain(1000);
    const bytes = toBinary(Node, small as never);
    expect(Buffer.compare(gen.toBinary(small as never), bytes)).toBe(0);
    expect(gen.fromBinary(bytes)).toEqual(fromBinary(Node, bytes, { recursionLimit: MAX }));
  });

  test("one level more is the dynamic kind's DEPTH_LIMIT_EXCEEDED on write, and nothing is written", () => {
    const extra = via === "named" ? 2 : 1;
    const e = codecError(() => gen.encode(gchain(depth + extra) as never));
    const d = codecError(() => ser.encode(chain(Node, depth + extra, via)));
    expect([e.code, e.path, e.offset, e.message]).toEqual([d.code, d.path, d.offset, d.message]);
    expect(e.code).toBe("DEPTH_LIMIT_EXCEEDED");
    expect(Buffer.compare(gen.toBinary(value as never), ser.toBinary(chain(Node, depth, via)))).toBe(0);
  });

  test("a cyclic object ends at maxDepth with DEPTH_LIMIT_EXCEEDED, not a stack overflow", () => {
    const loop = create(Node, { v: 1 }) as unknown as G;
    const mid = create(Node, { v: 2 }) as unknown as G;
    if (via === "next") [loop.next, mid.next] = [mid, loop];
    else if (via === "kids") [loop.kids, mid.kids] = [[mid], [loop]];
    else [loop.named, mid.named] = [{ k: mid }, { k: loop }];
    for (const write of [() => gen.toBinary(loop as never), () => gen.encodeAll([create(Node), loop] as never[])]) {
      const e = codecError(write);
      expect(e.code).toBe("DEPTH_LIMIT_EXCEEDED");
      expect(e.message).toMatch(new RegExp(`^cannot write Node: nesting depth ${MAX + 1} at Node(\\.(\\.\\.)?[a-z]+\\([0-9]\\)(\\[[^\\]]*\\])?)+ exceeds maxDepth ${MAX}`));
    }
  });
});

describe("the generated kind reading past maxDepth", () => {
  test("bytes nested 10,001 deep: the dynamic kind's error from fromBinary and validate", () => {
    const gen = ProtobufType.newGeneratedBuilder(Node).maxDepth(MAX).maxMessageBytes(1 << 30).build().createSerializer();
    const atMax = ser.toBinary(chain(Node, MAX, "next"));
    const past = Uint8Array.from([0x0a, ...varint(atMax.length), ...atMax]);
    expect((gen.fromBinary(atMax) as unknown as { v: number }).v).toBe(MAX - 2);
    for (const [g, d] of [
      [() => gen.fromBinary(past), () => ser.fromBinary(past)],
      [() => gen.validate(past), () => ser.validate(past)],
    ]) {
      const e = codecError(g!);
      const de = codecError(d!);
      expect([e.code, e.path, e.offset, e.message]).toEqual([de.code, de.path, de.offset, de.message]);
      expect(e.code).toBe("DEPTH_LIMIT_EXCEEDED");
    }
  });
  // "deep init objects" are DynamicMessage.create's: protobuf-es' create is not this package's.
});

function codecError(f: () => unknown): CodecError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    return e as CodecError;
  }
  throw new Error("expected a CodecError");
}
