// The core's validate-only walk (assembly/validate.ts) against walk (assembly/scan.ts): the same
// verdict and the same failure details on every input, for every fixture type of the walker.
import { create, toBinary, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { layoutOf } from "../src/codec/layout.js";
import { CodecError } from "../src/errors.js";
import { validateFrames, validateMessage, walkFrames, walkMessage, type ReadLimits } from "../src/wasm/ops.js";
import { ready, scratchAddress, tableAddress, views } from "../src/wasm/memory.js";
import { ACT_VARINT, A_WIRE_SHIFT, T_DENSE_MAX_WORD, T_LENGTH_WORD, tableLength, tableWords } from "../src/wasm/table.js";
import { acme, messageOf, scalar, T } from "./support/descriptors.js";
import { registryFromDir } from "./support/buf.js";
import { varint } from "./support/wire-scramble.js";

const reg = registryFromDir("fixtures/core");
const types = ["Scalars", "Repeated", "Maps", "Node", "Sparse"].map((n) => reg.getMessage(`core.test.${n}`)!);
const Node = reg.getMessage("core.test.Node")!;
const Maps = reg.getMessage("core.test.Maps")!;
const limitSets: ReadLimits[] = [
  { maxMessageBytes: 1 << 20, maxDepth: 100 },
  { maxMessageBytes: 40, maxDepth: 3 },
];

function outcome(f: () => unknown): unknown {
  try {
    f();
    return "ok";
  } catch (e) {
    if (e instanceof CodecError) return { code: e.code, offset: e.offset, path: e.path, message: e.message };
    throw e;
  }
}

/** Asserts validate and walk agree under each limit set; returns walk's outcomes. */
function same(desc: DescMessage, bytes: Uint8Array): unknown[] {
  const t = layoutOf(desc).typeOffset;
  return limitSets.map((l) => {
    const walked = outcome(() => walkMessage(t, bytes, l));
    expect(outcome(() => validateMessage(t, bytes, l))).toEqual(walked);
    expect(outcome(() => validateFrames(t, bytes, l))).toEqual(outcome(() => walkFrames(t, bytes, l)));
    return walked;
  });
}

const nested = (depth: number): Uint8Array => {
  let v: Record<string, unknown> = { name: "leaf", v: 7 };
  for (let i = 0; i < depth; i++) v = { child: v, name: `n${i}é` };
  return toBinary(Node, create(Node, v));
};

describe("validate matches walk", () => {
  test("property: random bytes, for every fixture type and two limit sets", () => {
    fc.assert(
      fc.property(fc.constantFrom(...types), fc.uint8Array({ maxLength: 120 }), (desc, b) => {
        same(desc, b);
      }),
      { numRuns: 1500 },
    );
  });

  test("property: mutated nested messages and maps", () => {
    const seeds = [
      nested(6),
      toBinary(Maps, create(Maps, { ss: { k: "v", "ключ": "значение" }, nodeById: { 3: { name: "x", v: 1 } }, ub: { "9": new Uint8Array([1, 2]) }, colors: { "-4": 1 } })),
    ];
    fc.assert(
      fc.property(fc.nat({ max: 1 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }), (which, edits) => {
        const b = seeds[which]!.slice();
        for (const [at, v] of edits) b[at % b.length] = v;
        same(which === 0 ? Node : Maps, b);
      }),
      { numRuns: 800 },
    );
  });

  test.each([
    ["a flat message", () => toBinary(Node, create(Node, { name: "x", v: 1 })), 1],
    ["an empty message", () => new Uint8Array(0), 1],
    ["a chain of 3 nested messages", () => nested(3), 4],
    ["a chain of 6 nested messages", () => nested(6), 7],
  ] as const)("validateMessage returns the nesting height: %s", (_name, bytes, height) => {
    expect(validateMessage(layoutOf(Node).typeOffset, bytes(), { maxMessageBytes: 1 << 20, maxDepth: 100 })).toBe(height);
  });

  // The height is counted from the frames a call opened, which it clears when it returns: a
  // call that failed deep down, a walk, or a batch of frames before must not add to it.
  test.each([
    ["a validate that failed 6 levels down", () => {
      const bad = nested(6);
      bad[bad.length - 2] = 0xff;
      expect(outcome(() => validateMessage(layoutOf(Node).typeOffset, bad, limitSets[0]!))).toMatchObject({ code: "INVALID_UTF8" });
    }],
    ["a validate that hit the depth limit", () => {
      expect(outcome(() => validateMessage(layoutOf(Node).typeOffset, nested(6), { maxMessageBytes: 1 << 20, maxDepth: 4 }))).toMatchObject({ code: "DEPTH_LIMIT_EXCEEDED" });
    }],
    ["a walk of 6 levels", () => {
      walkMessage(layoutOf(Node).typeOffset, nested(6), limitSets[0]!);
    }],
    ["validateFrames of a deep frame, then a frame that fails", () => {
      const deep = nested(6);
      const frames = Uint8Array.from([...varint(BigInt(deep.length)), ...deep, 3, 0x12, 1, 0xff]);
      expect(outcome(() => validateFrames(layoutOf(Node).typeOffset, frames, limitSets[0]!))).toMatchObject({ code: "INVALID_UTF8" });
    }],
  ] as const)("the height after %s is the next message's own", (_name, before) => {
    const t = layoutOf(Node).typeOffset;
    before();
    expect(validateMessage(t, toBinary(Node, create(Node, { name: "x", v: 1 })), limitSets[0]!)).toBe(1);
    before();
    expect(validateMessage(t, nested(2), limitSets[0]!)).toBe(3);
  });

  test("a map entry counts as a level of the height (as for maxDepth)", () => {
    const b = toBinary(Maps, create(Maps, { nodeById: { 3: { name: "x", v: 1 } } }));
    expect(validateMessage(layoutOf(Maps).typeOffset, b, { maxMessageBytes: 1 << 20, maxDepth: 100 })).toBe(3);
  });

  test("nesting deeper than maxDepth fails the same way at the same offset and path", () => {
    const [loose, tight] = same(Node, nested(2));
    expect(loose).toBe("ok");
    expect(tight).toBe("ok");
    const [deepLoose, deepTight] = same(Node, nested(3));
    expect(deepLoose).toBe("ok");
    expect(deepTight).toMatchObject({ code: "DEPTH_LIMIT_EXCEEDED", path: "core.test.Node.child(1).child(1).child(1)" });
  });

  // The 16-byte UTF-8 loads must never reach past linear memory: put Scalars { s: ... } so its
  // last byte is the last byte of memory and call the core directly (ops.ts keeps slack).
  test.each([0, 1, 2, 15, 16, 17, 31, 33])("a %i-byte string ending at the last byte of memory is checked without a trap", (n) => {
    const Scalars = reg.getMessage("core.test.Scalars")!;
    const type = layoutOf(Scalars).typeOffset;
    const e = ready();
    const stack = scratchAddress();
    const tape = stack + 1024;
    const end = views.u8.length;
    for (const last of [0x61, 0xff]) {
      const msg = Uint8Array.from([0x4a, n, ...Array(n).fill(0x61)]);
      if (n > 0) msg[msg.length - 1] = last;
      const base = end - msg.length;
      views.u8.set(msg, base);
      const want = n > 0 && last === 0xff ? -11 : 0;
      expect(e.validate(tableAddress(), tableLength(), type, base, msg.length, 1 << 20, 10, stack)).toBe(want);
      expect(e.walk(tableAddress(), tableLength(), type, base, msg.length, 1 << 20, 10, stack, tape, tape + 4096, tape + 4096, tape + 4096 + msg.length + 16)).toBe(want);
    }
  });
});


// validate takes the common records in a lean loop and hands every other record, from its
// first byte, to a loop with every rule (assembly/validate.ts). These inputs sit on each point
// where the lean loop hands over: tags of 1, 2 and more bytes (non-minimal ones too), field
// numbers past the dense part of the table, lengths of 1, 2 and 3 bytes, strings around the
// 16-byte blocks with a non-ASCII byte anywhere, varints of 1 to 11 bytes, fixed values cut
// short, nested messages at the depth limit, packed runs. Every prefix of each is checked too
// (for the long strings, the prefixes around the ends).
describe("validate matches walk where its fast loop hands over", () => {
  const Scalars = reg.getMessage("core.test.Scalars")!;
  const Repeated = reg.getMessage("core.test.Repeated")!;
  const Sparse = reg.getMessage("core.test.Sparse")!;
  /** The tag of (num, wt) in `extra` more bytes than it needs (a legal non-minimal varint). */
  const tag = (num: number, wt: number, extra = 0): number[] => {
    const t = varint(BigInt(num * 8 + wt));
    for (let i = 0; i < extra; i++) {
      t[t.length - 1]! |= 0x80;
      t.push(0);
    }
    return t;
  };
  const ascii = (n: number) => Array.from({ length: n }, (_, i) => 0x61 + (i % 26));
  const withByte = (s: number[], at: number, b: number[]) => [...s.slice(0, at), ...b, ...s.slice(at + b.length)];

  const cases: [string, DescMessage, number[]][] = [];
  // Strings: lengths around the 16-byte blocks and the 1/2/3-byte length forms, ASCII and not.
  for (const n of [0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 47, 48, 127, 128, 129, 255, 16383, 16384]) {
    const s = ascii(n);
    cases.push([`string of ${n} ASCII bytes`, Scalars, [...tag(9, 2), ...varint(BigInt(n)), ...s]]);
    for (const at of new Set([0, n >> 1, Math.max(0, n - 2), Math.max(0, n - 1)])) {
      if (n === 0) break;
      cases.push([`string of ${n} bytes, é at ${at}`, Scalars, [...tag(9, 2), ...varint(BigInt(n)), ...withByte(s, Math.min(at, n - 2), n >= 2 ? [0xc3, 0xa9] : [0x61])]]);
      cases.push([`string of ${n} bytes, 0xff at ${at}`, Scalars, [...tag(9, 2), ...varint(BigInt(n)), ...withByte(s, at, [0xff])]]);
      cases.push([`string of ${n} bytes, cut UTF-8 at ${at}`, Scalars, [...tag(9, 2), ...varint(BigInt(n)), ...withByte(s, at, [0xe2])]]);
    }
    cases.push([`string of ${n} bytes, a length past the end`, Scalars, [...tag(9, 2), ...varint(BigInt(n + 1)), ...s]]);
  }
  // Tags: one byte, two bytes (fields 16..2047), non-minimal forms, zero, past 32 bits.
  for (const extra of [0, 1, 2, 3, 4, 5, 6]) {
    cases.push([`int32 under a tag with ${extra} extra bytes`, Scalars, [...tag(5, 0, extra), 1]]);
    cases.push([`sint64 (field 18) under a tag with ${extra} extra bytes`, Scalars, [...tag(18, 0, extra), 3]]);
    cases.push([`field 0 under a tag with ${extra} extra bytes`, Scalars, [...tag(0, 0, extra), 1]]);
  }
  cases.push(["a tag past 32 bits", Scalars, [...varint(1n << 35n), 1]]);
  cases.push(["a tag of 11 bytes", Scalars, [...Array(10).fill(0xff), 1, 1]]);
  // Varints of every length, on a 32-bit and a 64-bit field, and an overflowing 10th byte.
  for (let n = 1; n <= 11; n++) {
    const v = [...Array(n - 1).fill(0x81), n === 10 ? 1 : 0x01];
    cases.push([`int32 varint of ${n} bytes`, Scalars, [...tag(5, 0), ...v]]);
    cases.push([`uint64 varint of ${n} bytes`, Scalars, [...tag(4, 0), ...v]]);
  }
  cases.push(["uint64 varint whose 10th byte overflows", Scalars, [...tag(4, 0), ...Array(9).fill(0xff), 0x02]]);
  // Fixed widths, and wire types that do not match the field.
  cases.push(["fixed64", Scalars, [...tag(6, 1), 1, 2, 3, 4, 5, 6, 7, 8]]);
  cases.push(["fixed32", Scalars, [...tag(7, 5), 1, 2, 3, 4]]);
  cases.push(["double as a varint", Scalars, [...tag(1, 0), 1]]);
  cases.push(["string as a fixed32", Scalars, [...tag(9, 5), 1, 2, 3, 4]]);
  cases.push(["int32 with wire type 3", Scalars, [...tag(5, 3)]]);
  cases.push(["int32 with wire type 7", Scalars, [...tag(5, 7)]]);
  // Undeclared numbers inside and past the dense part, of every wire type.
  for (const num of [10, 19, 20, 99, 4999, 5001, 536870911]) {
    cases.push([`undeclared ${num}, varint`, Scalars, [...tag(num, 0), 0x96, 0x01]]);
    cases.push([`undeclared ${num}, fixed64`, Scalars, [...tag(num, 1), 1, 2, 3, 4, 5, 6, 7, 8]]);
    cases.push([`undeclared ${num}, length-delimited`, Scalars, [...tag(num, 2), 3, 0xff, 0xfe, 0xfd]]);
    cases.push([`undeclared ${num}, fixed32`, Scalars, [...tag(num, 5), 1, 2, 3, 4]]);
    cases.push([`undeclared ${num}, group start`, Scalars, [...tag(num, 3)]]);
  }
  // Sparse numbers (binary search), declared and not.
  for (const [num, wt, body] of [[5000, 2, [2, 0x61, 0x62]], [100000, 0, [5]], [536870911, 0, [0x80, 0x01]], [5000, 0, [1]], [7, 2, [1, 0xff]], [9, 0, [1]]] as const) {
    cases.push([`Sparse field ${num}, wire type ${wt}`, Sparse, [...tag(num, wt), ...body]]);
  }
  // Nested messages with 1-, 2- and 3-byte lengths.
  for (const n of [1, 127, 128, 16383, 16384]) {
    const inner = [...tag(9, 2), ...varint(BigInt(n - 2 - varint(BigInt(Math.max(0, n - 3))).length + 1)), ...ascii(Math.max(0, n - 3))].slice(0, n);
    cases.push([`nested message of ${n} bytes`, Scalars, [...tag(11, 2), ...varint(BigInt(inner.length)), ...inner]]);
  }
  // A string's last block loads bytes past its end: the record after it has every high bit set.
  for (const n of [0, 1, 5, 15, 16, 17, 30, 31, 32, 33]) {
    cases.push([`string of ${n} ASCII bytes, then a two-byte tag and a sfixed64 of 0xff`, Scalars, [...tag(9, 2), n, ...ascii(n), ...tag(16, 1), ...Array(8).fill(0xff)]]);
    cases.push([`string of ${n} ASCII bytes, then a bytes field of 0x80`, Scalars, [...tag(9, 2), n, ...ascii(n), ...tag(12, 2), 20, ...Array(20).fill(0x80)]]);
  }
  // A nested message that ends inside a record's tag or length: the bytes after it (the
  // parent's) would read as the length it lacks.
  for (const [name, inner] of [
    ["a string tag", [...tag(9, 2)]],
    ["a message tag", [...tag(11, 2)]],
    ["a bytes tag", [...tag(12, 2)]],
    ["the first byte of a two-byte length", [...tag(9, 2), 0x81]],
    ["the first byte of a two-byte tag", [0x80 | 0x40]],
    ["a varint's first byte", [...tag(5, 0), 0x81]],
    ["a fixed64", [...tag(6, 1), 1, 2, 3]],
  ] as const) {
    cases.push([`nested message ending in ${name}, the parent's bytes after it`, Scalars, [...tag(11, 2), inner.length, ...inner, ...tag(9, 2), 1, 0x61, ...tag(5, 0), 0]]);
    cases.push([`nested message ending in ${name}, then a zero byte`, Scalars, [...tag(11, 2), inner.length, ...inner, 0]]);
  }
  // Packed runs.
  cases.push(["packed int32", Repeated, [...tag(1, 2), 4, 1, 0x96, 0x01, 3]]);
  cases.push(["packed int32 cut in a varint", Repeated, [...tag(1, 2), 2, 1, 0x96]]);
  cases.push(["packed double of 7 bytes", Repeated, [...tag(3, 2), 7, 1, 2, 3, 4, 5, 6, 7]]);
  cases.push(["unpacked uint64 as packed", Repeated, [...tag(8, 2), 2, 1, 2]]);
  cases.push(["messages in a repeated field", Repeated, [...tag(14, 2), 2, ...tag(5, 0), 1, ...tag(14, 2), 0]]);

  test.each(cases)("%s", (_name, desc, record) => {
    const full = Uint8Array.from(record);
    same(desc, full);
    // And after a first record the fast loop takes, so the hand-over happens mid-message.
    same(desc, Uint8Array.from([...tag(5, 0), 7, ...record]));
    const cuts = full.length <= 64 ? [...Array(full.length).keys()] : [1, 2, 3, 4, full.length - 3, full.length - 2, full.length - 1];
    for (const k of cuts) same(desc, full.subarray(0, k));
  });

  // The lean loop reads a record's tag and length before it knows the record's end: inputs that
  // end at the last byte of linear memory inside a record are checked without a trap.
  test.each([
    ["a string tag", [...tag(9, 2)], -1],
    ["a string tag and the first byte of a two-byte length", [...tag(9, 2), 0x81], -1],
    ["a message tag", [...tag(11, 2)], -1],
    ["the first byte of a two-byte tag", [0xc8], -1],
    ["a varint's first byte", [...tag(4, 0), 0x81], -1],
    ["a fixed64 cut short", [...tag(6, 1), 1, 2, 3], -1],
    ["a whole string of 3", [...tag(9, 2), 3, 0x61, 0x62, 0x63], 0],
  ] as const)("a message ending at the last byte of memory in %s", (_name, msg, want) => {
    const type = layoutOf(Scalars).typeOffset;
    const e = ready();
    const stack = scratchAddress();
    const tape = stack + 1024;
    const end = views.u8.length;
    for (const before of [[], [...tag(5, 0), 7]]) {
      const m = Uint8Array.from([...before, ...msg]);
      const base = end - m.length;
      views.u8.set(m, base);
      const walked = e.walk(tableAddress(), tableLength(), type, base, m.length, 1 << 20, 10, stack, tape, tape + 4096, tape + 4096, tape + 4096 + m.length + 16);
      expect(walked).toBe(want);
      expect(e.validate(tableAddress(), tableLength(), type, base, m.length, 1 << 20, 10, stack)).toBe(walked);
    }
  });

  // Tag actions cover one-byte tags and the dense numbers' tags; a two-byte tag past them must
  // not be looked up. A table built here puts bytes that read as ACT_MESSAGE right after the
  // actions of a type with dense numbers 0-16, and undeclared fields 17 and 18 in the input.
  test.each([
    ["17, length-delimited", [0x8a, 0x01, 3, 0xff, 0xfe, 0xfd]],
    ["18, varint", [0x90, 0x01, 0x96, 0x01]],
    ["17, fixed32", [0x8d, 0x01, 1, 2, 3, 4]],
  ] as const)("a two-byte tag past the dense numbers (undeclared %s) is skipped, not looked up", (_name, record) => {
    const e = ready();
    const dmax = 16;
    const actions = 4 + 2 * (dmax + 1);
    const words = new Uint32Array(actions + 2 * (dmax + 1) + 16);
    words.set([actions * 4, dmax, 0, words.length]);
    words[4 + 2 * 1] = 5 | (0 << A_WIRE_SHIFT); // int32 a = 1
    words[actions + 2] = ACT_VARINT; // tag 8: field 1, varint
    words.fill(0x06060606, actions + 2 * (dmax + 1));
    const tbl = scratchAddress();
    const stack = tbl + words.length * 4 + 64;
    const base = stack + 1024;
    views.u32.set(words, tbl >>> 2);
    const msg = Uint8Array.from([0x08, 1, ...record, 0x08, 2]);
    views.u8.set(msg, base);
    expect(e.validate(tbl, words.length, 0, base, msg.length, 1 << 20, 10, stack)).toBe(0);
  });

  // A type dense past 2047: its two-byte tags (numbers up to 2047) have actions, longer tags go
  // to the full loop; strings, bytes, messages and scalars at the edges of both.
  describe("a type with fields 1-2100", () => {
    const fields = Array.from({ length: 2100 }, (_, i) => {
      const n = i + 1;
      if (n % 4 === 0) return scalar(`s${n}`, n, T.STRING);
      if (n % 4 === 1) return scalar(`m${n}`, n, T.MESSAGE, { typeName: ".acme.Wide" });
      if (n % 4 === 2) return scalar(`b${n}`, n, T.BYTES);
      return scalar(`v${n}`, n, T.SINT64);
    });
    const Wide = messageOf([acme({ messageType: [{ name: "Wide", field: fields }] })], "acme.Wide");
    test("its record holds 2,048 numbers of actions, not 2,101", () => {
      const l = layoutOf(Wide);
      const w = tableWords();
      expect(w[l.typeOffset + T_DENSE_MAX_WORD]).toBe(2100);
      expect(w[l.typeOffset + T_LENGTH_WORD]).toBe(4 + 2 * 2101 + 2 * 2048);
    });
    const rec = (n: number, body: number[]) => [...tag(n, n % 4 === 3 ? 0 : 2), ...body];
    const bodyOf = (n: number): number[] => {
      switch (n % 4) {
        case 0: return [3, 0x61, 0x62, 0x63];
        case 1: return [2, ...tag(3, 0), 0x05];
        case 2: return [2, 0xff, 0x00];
        default: return [0x96, 0x01];
      }
    };
    const numbers = [1, 2, 3, 4, 15, 16, 17, 2044, 2045, 2046, 2047, 2048, 2049, 2050, 2051, 2100];
    test.each(numbers)("field %i, alone, after field 2047 and inside field 2045's message", (n) => {
      const r = rec(n, bodyOf(n));
      same(Wide, Uint8Array.from(r));
      same(Wide, Uint8Array.from([...rec(2047, bodyOf(2047)), ...r]));
      same(Wide, Uint8Array.from([...tag(2045, 2), r.length, ...r]));
      const full = Uint8Array.from(r);
      for (let k = 0; k < full.length; k++) same(Wide, full.subarray(0, k));
    });
    test.each([2044, 2048, 2052])("a string of field %i with 0xff is refused by both", (n) => {
      expect(same(Wide, Uint8Array.from([...tag(n, 2), 2, 0x61, 0xff]))[0]).toMatchObject({ code: "INVALID_UTF8" });
      expect(same(Wide, Uint8Array.from([...tag(n, 2), 2, 0x61, 0x62]))[0]).toBe("ok");
    });
  });

  // The lean loop skips a varint with one 8-byte load: put one at the very end of linear memory.
  test.each([1, 2, 7, 8, 9, 10])("a %i-byte varint ending at the last byte of memory is checked without a trap", (n) => {
    const type = layoutOf(Scalars).typeOffset;
    const e = ready();
    const stack = scratchAddress();
    const tape = stack + 1024;
    const end = views.u8.length;
    const msg = Uint8Array.from([...tag(4, 0), ...Array(n - 1).fill(0x81), 0x01]);
    const base = end - msg.length;
    views.u8.set(msg, base);
    expect(e.validate(tableAddress(), tableLength(), type, base, msg.length, 1 << 20, 10, stack)).toBe(0);
    expect(e.walk(tableAddress(), tableLength(), type, base, msg.length, 1 << 20, 10, stack, tape, tape + 4096, tape + 4096, tape + 4096 + msg.length + 16)).toBe(0);
  });
});
