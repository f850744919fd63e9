// The layout compiler: one layout per descriptor instance (WeakMap), registered before
// recursing, map entries as key = 1 / value = 2, every kind's table word.
import { describe, expect, test } from "vitest";
import { layoutOf, type MessageLayout } from "../src/codec/layout.js";
import {
  A_MESSAGE, A_PACKABLE, A_REPEATED, A_SLOT_SHIFT, A_STRING, A_WIRE_SHIFT, T_DENSE_MAX_WORD, T_SPARSE_COUNT_WORD, T_LENGTH_WORD,
  ACT_FIXED32, ACT_FIXED64, ACT_LEN, ACT_MESSAGE, ACT_SLOW, ACT_STRING, ACT_VARINT, T_ACTIONS_WORD, tableWords,
} from "../src/wasm/table.js";
import { registryFromDir } from "./support/buf.js";

/** The tag action byte of (num, wt) in a layout's record (assembly/table.ts). */
function actionOf(l: MessageLayout, num: number, wt: number): number {
  const w = tableWords();
  const t = (num << 3) | wt;
  return (w[l.typeOffset + (w[l.typeOffset + T_ACTIONS_WORD]! >> 2) + (t >> 2)]! >>> ((t & 3) << 3)) & 0xff;
}

const reg = registryFromDir("fixtures/core");
const get = (n: string) => reg.getMessage(`core.test.${n}`)!;

function entryWords(l: MessageLayout, n: number): [number, number] {
  const w = tableWords();
  const t = l.typeOffset;
  const dmax = w[t + T_DENSE_MAX_WORD]!;
  if (n <= dmax) return [w[t + 4 + 2 * n]!, w[t + 5 + 2 * n]!];
  const sparse = t + 4 + 2 * (dmax + 1);
  for (let i = 0; i < w[t + T_SPARSE_COUNT_WORD]!; i++) if (w[sparse + 4 * i] === n) return [w[sparse + 4 * i + 1]!, w[sparse + 4 * i + 2]!];
  return [0, 0];
}

describe("layoutOf", () => {
  test("is cached per descriptor instance", () => {
    expect(layoutOf(get("Scalars"))).toBe(layoutOf(get("Scalars")));
    const other = registryFromDir("fixtures/core").getMessage("core.test.Scalars")!;
    expect(layoutOf(other)).not.toBe(layoutOf(get("Scalars")));
  });

  test("recursive types point at themselves", () => {
    const node = layoutOf(get("Node"));
    expect(node.byNumber.get(1)!.message).toBe(node);
    expect(entryWords(node, 1)[1]).toBe(node.typeOffset);
  });

  test.each([
    // number, kind, wire type, flags
    [1, 1, 1, 0], [2, 2, 5, 0], [3, 3, 0, 0], [4, 4, 0, 0], [5, 5, 0, 0], [6, 6, 1, 0], [7, 7, 5, 0],
    [8, 8, 0, 0], [9, 9, 2, A_STRING], [11, 11, 2, A_MESSAGE], [12, 12, 2, 0], [13, 13, 0, 0], [14, 14, 0, 0],
    [15, 15, 5, 0], [16, 16, 1, 0], [17, 17, 0, 0], [18, 18, 0, 0],
  ])("Scalars field %d: kind %d, wire type %d", (n, kind, wt, flags) => {
    const l = layoutOf(get("Scalars"));
    const f = l.byNumber.get(n)!;
    expect(entryWords(l, n)[0]).toBe(kind | (wt << A_WIRE_SHIFT) | flags | (f.slot << A_SLOT_SHIFT));
    expect(f.kind).toBe(kind);
  });

  test.each([
    ["i32", 1, true, true],
    ["u64", 8, true, false],
    ["e", 7, true, true],
    ["s", 6, false, false],
    ["bys", 15, false, false],
    ["msgs", 14, false, false],
  ])("Repeated.%s: packable %s, written packed %s", (name, n, packable, packed) => {
    const l = layoutOf(get("Repeated"));
    const f = l.byNumber.get(n)!;
    expect(f.field.name).toBe(name);
    expect(f.repeated).toBe(true);
    expect(f.packed).toBe(packed);
    const a = entryWords(l, n)[0];
    expect((a & A_PACKABLE) !== 0).toBe(packable);
    expect((a & A_REPEATED) !== 0).toBe(true);
  });

  test("map fields read a synthetic entry type with key = 1 and value = 2", () => {
    const maps = layoutOf(get("Maps"));
    const ss = maps.byNumber.get(1)!.message!;
    expect(ss.fullName).toBe("core.test.Maps.SsEntry");
    expect(ss.fields.map((f) => [f.entryPart, f.number, f.kind])).toEqual([["key", 1, 9], ["value", 2, 9]]);
    expect(entryWords(ss, 1)[0] & A_STRING).toBe(A_STRING);
    expect(entryWords(ss, 2)[0] & A_STRING).toBe(A_STRING);
    const byId = maps.byNumber.get(2)!.message!;
    expect(byId.fullName).toBe("core.test.Maps.NodeByIdEntry");
    expect(byId.byNumber.get(2)!.message).toBe(layoutOf(get("Node")));
    expect(layoutOf(get("Maps")).byNumber.get(1)!.message).toBe(ss);
    expect(maps.byNumber.get(4)!.message!.fields.map((f) => f.kind)).toEqual([18, 14]);
  });

  test("small numbers are dense, large ones sparse", () => {
    const l = layoutOf(get("Sparse"));
    const w = tableWords();
    expect(w[l.typeOffset + T_DENSE_MAX_WORD]).toBe(9);
    expect(w[l.typeOffset + T_SPARSE_COUNT_WORD]).toBe(3);
    // header, dense entries 0-9, 3 sparse entries, tag actions of numbers 0-15 (2 words each)
    expect(w[l.typeOffset + T_LENGTH_WORD]).toBe(4 + 2 * 10 + 4 * 3 + 2 * 16);
    expect(w[l.typeOffset + T_ACTIONS_WORD]).toBe(4 * (4 + 2 * 10 + 4 * 3));
    expect(l.byNumber.get(536870911)!.field.name).toBe("top");
    expect(entryWords(l, 536870911)[0] >>> A_SLOT_SHIFT).toBe(l.byNumber.get(536870911)!.slot);
    expect(entryWords(l, 6)[0]).toBe(0);
  });

  // validateFast dispatches on one byte per tag: the declared wire type of a field gets its
  // action, every other wire type (packed runs included), number 0, undeclared numbers and
  // JS-number scalars get ACT_SLOW, which hands the record to the loop with every rule.
  const scalars: [string, number, number, number][] = [
    ["double", 1, 1, ACT_FIXED64], ["float", 2, 5, ACT_FIXED32], ["int64", 3, 0, ACT_VARINT], ["uint64", 4, 0, ACT_VARINT],
    ["int32", 5, 0, ACT_VARINT], ["fixed64", 6, 1, ACT_FIXED64], ["fixed32", 7, 5, ACT_FIXED32], ["bool", 8, 0, ACT_VARINT],
    ["string", 9, 2, ACT_STRING], ["message", 11, 2, ACT_MESSAGE], ["bytes", 12, 2, ACT_LEN], ["uint32", 13, 0, ACT_VARINT],
    ["enum", 14, 0, ACT_VARINT], ["sfixed32", 15, 5, ACT_FIXED32], ["sfixed64", 16, 1, ACT_FIXED64], ["sint32", 17, 0, ACT_VARINT],
    ["sint64", 18, 0, ACT_VARINT],
  ];
  test.each(scalars)("tag actions of a %s field (number %i): wire type %i only", (_kind, num, wt, act) => {
    const l = layoutOf(get("Scalars"));
    for (let w = 0; w < 8; w++) expect([w, actionOf(l, num, w)]).toEqual([w, w === wt ? act : ACT_SLOW]);
  });

  test("tag actions: number 0, an undeclared dense number, every one-byte tag past the dense part", () => {
    const l = layoutOf(get("Scalars"));
    const w = tableWords();
    for (let wt = 0; wt < 8; wt++) {
      expect(actionOf(l, 0, wt)).toBe(ACT_SLOW);
      expect(actionOf(l, 10, wt)).toBe(ACT_SLOW);
    }
    const sparse = layoutOf(get("Sparse"));
    expect(w[sparse.typeOffset + T_DENSE_MAX_WORD]).toBe(9);
    for (let num = 10; num < 16; num++) for (let wt = 0; wt < 8; wt++) expect(actionOf(sparse, num, wt)).toBe(ACT_SLOW);
    expect(actionOf(sparse, 7, 2)).toBe(ACT_STRING);
    expect(actionOf(sparse, 8, 2)).toBe(ACT_MESSAGE);
    expect(actionOf(sparse, 9, 0)).toBe(ACT_VARINT);
  });

  test("tag actions: packable repeated fields take their unpacked wire type, a packed run is ACT_SLOW", () => {
    const l = layoutOf(get("Repeated"));
    expect([actionOf(l, 1, 0), actionOf(l, 1, 2)]).toEqual([ACT_VARINT, ACT_SLOW]);
    expect([actionOf(l, 3, 1), actionOf(l, 3, 2)]).toEqual([ACT_FIXED64, ACT_SLOW]);
    expect([actionOf(l, 4, 5), actionOf(l, 4, 2)]).toEqual([ACT_FIXED32, ACT_SLOW]);
    expect([actionOf(l, 6, 2), actionOf(l, 6, 0)]).toEqual([ACT_STRING, ACT_SLOW]);
  });

  test("tag actions: a JS_NUMBER field is ACT_SLOW for the checked layout, ACT_VARINT for the generated kind's", () => {
    const JsNumber = registryFromDir("fixtures/all-types").getMessage("alltypes.JsNumber")!;
    expect([actionOf(layoutOf(JsNumber), 1, 0), actionOf(layoutOf(JsNumber), 2, 0)]).toEqual([ACT_SLOW, ACT_SLOW]);
    expect([actionOf(layoutOf(JsNumber, false), 1, 0), actionOf(layoutOf(JsNumber, false), 2, 0)]).toEqual([ACT_VARINT, ACT_VARINT]);
  });

  test("tag actions: map entries (key and value) and a type with numbers past 16", () => {
    const maps = layoutOf(get("Maps"));
    const ss = maps.byNumber.get(1)!.message!;
    expect([actionOf(maps, 1, 2), actionOf(ss, 1, 2), actionOf(ss, 2, 2)]).toEqual([ACT_MESSAGE, ACT_STRING, ACT_STRING]);
    const scalars = layoutOf(get("Scalars"));
    expect(tableWords()[scalars.typeOffset + T_DENSE_MAX_WORD]).toBe(18);
    expect([actionOf(scalars, 17, 0), actionOf(scalars, 18, 0), actionOf(scalars, 18, 2)]).toEqual([ACT_VARINT, ACT_VARINT, ACT_SLOW]);
  });
});
