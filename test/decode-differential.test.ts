// Differential properties of the read path through the public serializer: every legal encoding of
// a message — @bufbuild/protobuf's canonical bytes and the other encodings protobuf defines as the
// same content (fields in any order, packed and unpacked runs, overridden singular occurrences,
// explicit zeros, merging message occurrences, entries with value before key) — decodes in
// protokeel to the content that was generated, and what protokeel writes back decodes in
// @bufbuild/protobuf (which passes the conformance suite) and protobufjs to that content.
// writer-differential covers the writer on values built with `create`; this file covers values
// that protokeel decoded.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import protobuf from "protobufjs";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { messageArb } from "./support/arbitrary-message.js";
import { registryFromDir } from "./support/buf.js";
import { rng, scramble, tag, varint } from "./support/wire-scramble.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const det = ProtobufType.newBuilder(All).deterministic(true).build().createSerializer();
const pbjsRoot = protobuf.loadSync(new URL("./fixtures/all-types/all_types.proto", import.meta.url).pathname);
const PbjsAll = pbjsRoot.lookupType("alltypes.AllTypes");
// @bufbuild/protobuf's create() takes JSON for these; they are covered by writer-differential.
const JSON_TYPES = ["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"];

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}

/** @bufbuild/protobuf's reading of `bytes`, written back canonically: its notion of content. */
function esContent(bytes: Uint8Array): string {
  return hex(toBinary(All, fromBinary(All, bytes)));
}

function frame(body: Uint8Array): Uint8Array {
  return new Uint8Array([...varint(body.length), ...body]);
}

/** -0 and 0 are equal under `equals`; the canonical bytes tell them apart. */
function expectSameContent(decoded: DynamicMessage, expected: DynamicMessage, esBytes: Uint8Array): void {
  expect(decoded.descriptor).toBe(All);
  expect(decoded.equals(expected)).toBe(true);
  expect(esContent(det.toBinary(decoded))).toBe(hex(esBytes));
}

describe("other writers' bytes decode in protokeel to the generated content", () => {
  test.each([
    [1, 500],
    [2, 120],
  ])("every legal encoding, bare and framed (nesting %i, %i messages)", (depth, numRuns) => {
    fc.assert(
      fc.property(messageArb(All, depth, { skipTypes: JSON_TYPES }), fc.integer(), (s, seed) => {
        const expected = DynamicMessage.create(All, s.ours);
        const esBytes = toBinary(All, create(All, s.es as never));
        const scrambled = scramble(All, esBytes, rng(seed), { splitMessages: true });
        // The scramble is content-preserving by the protobuf rules, as @bufbuild/protobuf reads it.
        expect(esContent(scrambled)).toBe(hex(esBytes));
        for (const bytes of [esBytes, scrambled]) {
          expectSameContent(ser.fromBinary(bytes), expected, esBytes);
          expectSameContent(ser.decode(frame(bytes)), expected, esBytes);
        }
        const [a, b] = ser.decodeAll(new Uint8Array([...frame(scrambled), ...frame(esBytes)]));
        expectSameContent(a!, expected, esBytes);
        expectSameContent(b!, expected, esBytes);
      }),
      { numRuns },
    );
  });

  test("protobufjs bytes of scrambled input (its own field order and packing) decode to the content", () => {
    fc.assert(
      fc.property(messageArb(All, 1, { skipTypes: JSON_TYPES }), fc.integer(), (s, seed) => {
        const expected = DynamicMessage.create(All, s.ours);
        const esBytes = toBinary(All, create(All, s.es as never));
        // protobufjs replaces a repeated singular message instead of merging, so no splits here.
        const pbjsBytes = PbjsAll.encode(PbjsAll.decode(scramble(All, esBytes, rng(seed)))).finish();
        expectSameContent(ser.fromBinary(pbjsBytes), expected, esBytes);
      }),
      { numRuns: 300 },
    );
  });
});

describe("Struct, Value and ListValue (recursive oneofs and maps)", () => {
  // @bufbuild/protobuf's create() takes JSON for these, so the content is protokeel's own
  // (writer-differential checks those bytes against protobufjs); @bufbuild/protobuf still reads
  // every encoding to the same content.
  test("every legal encoding decodes to the written content", () => {
    fc.assert(
      fc.property(messageArb(All, 2), fc.integer(), (s, seed) => {
        const value = DynamicMessage.create(All, s.ours);
        const bytes = det.toBinary(value);
        const scrambled = scramble(All, bytes, rng(seed), { splitMessages: true });
        expect(esContent(scrambled)).toBe(esContent(bytes));
        const decoded = ser.fromBinary(scrambled);
        expect(decoded.equals(value)).toBe(true);
        expect(hex(det.toBinary(decoded))).toBe(hex(bytes));
      }),
      { numRuns: 60 },
    );
  });
});

describe("protokeel's bytes of decoded values read back in @bufbuild/protobuf and protobufjs", () => {
  test("relayed (plain) and re-encoded (deterministic) bytes", () => {
    fc.assert(
      fc.property(messageArb(All, 1, { skipTypes: JSON_TYPES }), fc.integer(), (s, seed) => {
        const esBytes = toBinary(All, create(All, s.es as never));
        const decoded = ser.fromBinary(scramble(All, esBytes, rng(seed), { splitMessages: true }));
        const plain = ser.toBinary(decoded);
        const canonical = det.toBinary(decoded);
        expect(esContent(plain)).toBe(hex(esBytes));
        expect(esContent(canonical)).toBe(hex(esBytes));
        expect(esContent(PbjsAll.encode(PbjsAll.decode(canonical)).finish())).toBe(hex(esBytes));
        expect(esContent(ser.encode(decoded).subarray(varint(plain.length).length))).toBe(hex(esBytes));
      }),
      { numRuns: 350 },
    );
  });

  test("a nested decoded value written under a new root reads back in both", () => {
    fc.assert(
      fc.property(messageArb(All, 1, { skipTypes: JSON_TYPES }), fc.integer(), (s, seed) => {
        const esBytes = toBinary(All, create(All, s.es as never));
        const decoded = ser.fromBinary(scramble(All, esBytes, rng(seed), { splitMessages: true }));
        const outer = DynamicMessage.create(All, { recursive: decoded, children: [decoded, decoded] });
        const bytes = ser.toBinary(outer);
        const back = fromBinary(All, bytes) as unknown as { recursive: never; children: never[] };
        expect(hex(toBinary(All, back.recursive))).toBe(hex(esBytes));
        expect(back.children.map((c) => hex(toBinary(All, c)))).toEqual([hex(esBytes), hex(esBytes)]);
        const viaPbjs = PbjsAll.decode(bytes) as unknown as { recursive: protobuf.Message };
        expect(esContent(PbjsAll.encode(viaPbjs.recursive).finish())).toBe(hex(esBytes));
      }),
      { numRuns: 200 },
    );
  });
});

// Hand-written encodings of the protobuf merge rules, each checked against @bufbuild/protobuf.
describe("repeated occurrences and encodings, by rule", () => {
  const bytes = (...parts: number[][]) => new Uint8Array(parts.flat());
  const len = (no: number, body: number[]) => [...tag(no, 2), ...varint(body.length), ...body];
  const vi = (no: number, v: bigint | number) => [...tag(no, 0), ...varint(v)];
  const leaf = (fields: number[][]) => fields.flat();

  test.each([
    ["a singular scalar: the last occurrence wins", bytes(vi(5, 7), vi(5, 9)), { f_int32: 9 }],
    ["an implicit scalar written as zero last is zero", bytes(vi(5, 7), vi(5, 0)), {}],
    ["an optional scalar written as zero last is a present zero", bytes(vi(25, 7), vi(25, 0)), { o_int32: 0 }],
    ["an enum: the last occurrence wins, unknown numbers kept", bytes(vi(16, 1), vi(16, 77)), { f_enum: 77 }],
    [
      "a singular message: occurrences merge",
      bytes(len(17, leaf([len(1, [0x61])])), len(17, leaf([vi(2, 5)]))),
      { f_message: { name: "a", value: 5 } },
    ],
    [
      "a singular message: a later field overrides inside the merge, also with an explicit zero",
      bytes(len(17, leaf([len(1, [0x61]), vi(2, 5)])), len(17, leaf([vi(2, 0)]))),
      { f_message: { name: "a" } },
    ],
    [
      "a merged message's repeated fields concatenate and nested messages merge",
      bytes(len(121, leaf([vi(1, 1), len(4, leaf([vi(2, 1)])), len(2, leaf([vi(1, 3)]))])), len(121, leaf([len(4, leaf([vi(2, 2)])), len(2, leaf([len(2, leaf([vi(1, 4)]))]))]))),
      { nested: { a: 1, leaves: [{ value: 1 }, { value: 2 }], inner: { a: 3, inner: { a: 4 } } } },
    ],
    [
      "a oneof: the last member wins",
      bytes(len(101, leaf([vi(2, 1)])), len(104, [0x78])),
      { c_string: "x" },
    ],
    [
      "a oneof: a message member after another member starts fresh",
      bytes(len(101, leaf([vi(2, 1)])), len(104, [0x78]), len(101, leaf([len(1, [0x62])]))),
      { c_message: { name: "b" } },
    ],
    [
      "a oneof message member merges with itself",
      bytes(len(101, leaf([vi(2, 1)])), len(101, leaf([len(1, [0x62])]))),
      { c_message: { name: "b", value: 1 } },
    ],
    [
      "a oneof inside a merged singular message: a later member clears the earlier (one oneof)",
      bytes(len(122, len(145, len(3, [0x78]))), len(122, len(145, vi(4, 1)))),
      { recursive: { wkt_value: { bool_value: true } } },
    ],
    [
      "a oneof two merges deep: the later member clears the earlier (two oneofs)",
      bytes(len(122, len(122, len(104, [0x78]))), len(122, vi(5, 3)), len(122, len(122, len(101, vi(2, 1))))),
      { recursive: { f_int32: 3, recursive: { c_message: { value: 1 } } } },
    ],
    [
      "a oneof three levels deep, its parents merged in between (one oneof)",
      bytes(len(122, len(122, len(145, len(3, [0x78])))), len(122, vi(5, 3)), len(122, len(122, vi(5, 4))), len(122, len(122, len(145, vi(4, 1))))),
      { recursive: { f_int32: 3, recursive: { f_int32: 4, wkt_value: { bool_value: true } } } },
    ],
    [
      "a oneof member set again inside a list element, then a later element starts fresh",
      bytes(len(123, [...len(104, [0x78]), ...len(101, vi(2, 1))]), len(123, len(104, [0x79]))),
      { children: [{ c_message: { value: 1 } }, { c_string: "y" }] },
    ],
    [
      "a map: the last entry of a key wins",
      bytes(len(92, leaf([len(1, [0x6b]), len(2, [0x31])])), len(92, leaf([len(1, [0x6b]), len(2, [0x32])]))),
      { m_string: { k: "2" } },
    ],
    [
      "a map entry: value before key, missing key and value are zero",
      bytes(len(92, leaf([len(2, [0x76]), len(1, [0x6b])])), len(81, [])),
      { m_string: { k: "v" }, m_int32: new Map([[0, ""]]) },
    ],
    [
      "a map entry: a message value written twice in one entry merges",
      bytes(len(95, leaf([len(1, [0x6b]), len(2, leaf([len(1, [0x61])])), len(2, leaf([vi(2, 3)]))]))),
      { mv_message: { k: { name: "a", value: 3 } } },
    ],
    [
      "packed and unpacked runs of one field concatenate in order, for packed and unpacked fields",
      bytes(vi(45, 1), len(45, [2, 3]), vi(45, 4), len(65, [5, 6]), vi(65, 7), len(65, [])),
      { r_int32: [1, 2, 3, 4], u_int32: [5, 6, 7] },
    ],
    [
      "fixed-width elements, packed into one field and unpacked into the other",
      bytes([...tag(41, 1), 0, 0, 0, 0, 0, 0, 0xf0, 0x3f], len(61, [0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f])),
      { r_double: [1], u_double: [-0, Number.NaN] },
    ],
    [
      "fields in descending order",
      bytes(len(536870911, [0x7a]), vi(16, 2), vi(5, 1)),
      { f_max_number: "z", f_enum: 2, f_int32: 1 },
    ],
  ])("%s", (_name, input, init) => {
    const expected = DynamicMessage.create(All, init as never);
    expect(esContent(input)).toBe(hex(toBinary(All, fromBinary(All, det.toBinary(expected)))));
    const decoded = ser.fromBinary(input);
    expect(decoded.equals(expected)).toBe(true);
    expect(hex(det.toBinary(decoded))).toBe(hex(det.toBinary(expected)));
  });

  test("a -0 double stays -0 with implicit presence; NaN, ±Infinity and 64-bit extremes survive", () => {
    const init = {
      f_double: -0,
      f_float: Number.NaN,
      o_double: Infinity,
      o_float: -Infinity,
      f_int64: -(2n ** 63n),
      f_uint64: 2n ** 64n - 1n,
      f_sint64: 2n ** 63n - 1n,
      f_sfixed64: -(2n ** 63n),
      f_fixed64: 2n ** 64n - 1n,
      r_int64: [-(2n ** 63n), 2n ** 63n - 1n, -1n],
      u_uint64: [0n, 2n ** 64n - 1n],
      m_sint64: new Map([[-(2n ** 63n), "min"]]),
      js_string_int64: "-9223372036854775808",
    };
    const esBytes = det.toBinary(DynamicMessage.create(All, init));
    const decoded = ser.fromBinary(scramble(All, esBytes, rng(1)));
    expect(Object.is(decoded.get("f_double"), -0)).toBe(true);
    expect(decoded.has("f_double")).toBe(true);
    expect(decoded.get("f_float")).toBeNaN();
    expect(decoded.toObject()).toMatchObject({ ...init, m_sint64: { "-9223372036854775808": "min" } });
  });
});
