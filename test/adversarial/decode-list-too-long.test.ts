// A repeated field, or a batch of frames, with more elements than one JavaScript array takes
// safely: V8 aborts the process ("Fatal JavaScript invalid size error"), it does not throw, when
// an array grows past ~134 million elements. A packed bool field of 150 MB (which a raised
// maxMessageBytes lets in) killed the process from fromBinary, and a 150 MB buffer of zero bytes
// (150 million empty frames) from decodeAll with default settings. A list past MAX_LIST_ELEMENTS
// (2^26) is LIST_TOO_LONG and a batch past it TOO_MANY_FRAMES, before the array is made or as it
// grows; validate and validateAll answer as the decode does. The limit is lowered here so that
// every path is cheap to reach (the real sizes were checked by hand: 150,000,000 elements and
// frames, both refused in under 6 s).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CodecError, ProtobufType } from "../../src/index.js";
import { setMaxListElements, setMaxMapEntries } from "../../src/codec/read-plan.js";
import { typeOf } from "./support.js";

const LIMIT = 1000;
let saved = 0;
let savedMap = 0;
beforeAll(() => {
  saved = setMaxListElements(LIMIT);
  savedMap = setMaxMapEntries(LIMIT);
});
afterAll(() => {
  setMaxListElements(saved);
  setMaxMapEntries(savedMap);
});

const base = typeOf("message M { repeated bool b = 1; repeated int32 n = 2; repeated M kids = 3; repeated string s = 4; map<int32, int32> m = 5; }", "M");
const plain = base.createSerializer();
const generated = ProtobufType.ofGenerated(base.descriptor).createSerializer();

const LIST = `cannot decode M: a repeated field of it holds more than ${LIMIT.toLocaleString("en-US")} elements, more than protokeel reads into one JavaScript array (V8 aborts the process past ~134 million); split the list over several messages or frames`;
const FRAMES = `cannot decode M: the input holds more than ${LIMIT.toLocaleString("en-US")} frames, more than protokeel returns in one array (V8 aborts the process past ~134 million elements); read it with decodeStream or a FrameReader, which hold one value at a time`;

/** A varint's bytes. */
function varint(n: number): number[] {
  const out: number[] = [];
  for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n & 0x7f) | 0x80);
  out.push(n);
  return out;
}
const packed = (field: number, n: number) => [(field << 3) | 2, ...varint(n), ...new Array<number>(n).fill(1)];
const bytes = (...parts: number[][]) => Uint8Array.from(parts.flat());

// [case, message bytes, over the limit]
const LISTS: [string, (n: number) => Uint8Array][] = [
  ["a packed run", (n) => bytes(packed(1, n))],
  ["two packed runs of one field", (n) => bytes(packed(1, n - Math.floor(n / 2)), packed(1, Math.floor(n / 2)))],
  ["unpacked elements", (n) => bytes(...new Array(n).fill([0x10, 0x01]))],
  ["a packed run after unpacked elements", (n) => bytes([0x10, 0x01], packed(2, n - 1))],
  ["repeated messages", (n) => bytes(...new Array(n).fill([0x1a, 0x00]))],
  ["repeated strings", (n) => bytes(...new Array(n).fill([0x22, 0x01, 0x61]))],
];

describe.each(LISTS)("%s", (_name, make) => {
  test.each<[string, (b: Uint8Array) => unknown]>([
    ["fromBinary", (b) => plain.fromBinary(b)],
    ["validate", (b) => plain.validate(b)],
    ["decodeAll of it as a frame", (b) => plain.decodeAll(Uint8Array.from([...varint(b.length), ...b]))],
    ["the generated kind's fromBinary", (b) => generated.fromBinary(b)],
    ["the generated kind's validate", (b) => generated.validate(b)],
  ])("%s: LIST_TOO_LONG past the limit, read at it", (_read, read) => {
    let e: unknown;
    try {
      read(make(LIMIT + 1));
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(CodecError);
    expect(e).toMatchObject({ code: "LIST_TOO_LONG", path: "M", message: LIST });
    expect(() => read(make(LIMIT))).not.toThrow();
  });
});

test("a value past the limit is read now, not lazily on first access", () => {
  const value = (() => {
    try {
      return plain.fromBinary(bytes(packed(1, 5000)));
    } catch (e) {
      return e;
    }
  })();
  expect(value).toMatchObject({ code: "LIST_TOO_LONG" });
});

describe("a batch past the frame limit", () => {
  const zeros = (n: number) => new Uint8Array(n);
  const small = (n: number) => bytes(...new Array(n).fill([0x02, 0x10, 0x01]));
  const large = (n: number) => bytes(...new Array(n).fill([0x02, 0x10, 0x01]), [...varint(399), 0x22, ...varint(396), ...new Array(396).fill(0x61)]);
  test.each<[string, (n: number) => Uint8Array]>([
    ["empty frames", zeros],
    ["small frames", small],
    ["small frames and one over the small reader's size", large],
  ])("%s: TOO_MANY_FRAMES past the limit, read at it", (_name, make) => {
    for (const read of [(b: Uint8Array) => plain.decodeAll(b), (b: Uint8Array) => plain.validateAll(b), (b: Uint8Array) => generated.decodeAll(b), (b: Uint8Array) => generated.validateAll(b)]) {
      const over = make(LIMIT + 1);
      expect(() => read(over)).toThrow(expect.objectContaining({ code: "TOO_MANY_FRAMES", path: "M", message: FRAMES }));
    }
    expect(plain.decodeAll(make(LIMIT - (make === large ? 1 : 0))).length).toBe(LIMIT);
  });
});

// A JavaScript Map throws a bare RangeError past 2^24 entries ("Map maximum size exceeded").
describe("a map past the entry limit", () => {
  // n entries of field 5 with keys from, from + 1, …: [tag, length, key tag, key varint].
  const entries = (n: number, from = 0) => bytes(...Array.from({ length: n }, (_, i) => [0x2a, 1 + varint(from + i).length, 0x08, ...varint(from + i)]));
  const MAP = `cannot decode M: map field M.m(5) holds more than ${LIMIT.toLocaleString("en-US")} distinct keys, more than a JavaScript Map holds (V8's limit); split the map over several messages or frames`;
  test.each<[string, (b: Uint8Array) => unknown]>([
    ["fromBinary", (b) => plain.fromBinary(b)],
    ["validate", (b) => plain.validate(b)],
    ["decodeAll of it as a frame", (b) => plain.decodeAll(Uint8Array.from([...varint(b.length), ...b]))],
  ])("%s: LIST_TOO_LONG past the limit; a key repeated at the limit is not a new entry", (_read, read) => {
    expect(() => read(entries(LIMIT + 1))).toThrow(expect.objectContaining({ code: "LIST_TOO_LONG", path: "M", message: MAP }));
    expect(() => read(entries(LIMIT))).not.toThrow();
    const again = Uint8Array.from([...entries(LIMIT), ...entries(1, 0)]);
    expect(() => read(again)).not.toThrow();
  });
});
