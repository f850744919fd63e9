// What decoded values share with the input and with the reading serializer (docs/design.md §8.3), and
// what deterministic output is (§8.1):
// - bytes fields of at least `aliasThreshold` bytes are views into the input (zero-copy): no
//   allocation and no copy for large blobs, at the price that the caller must not modify the
//   input while the values live — a change shows through, which these tests make visible on
//   purpose; shorter ones, unknown fields and strings are copies; threshold 0 never aliases;
// - decoded values, nested ones included, carry the reading serializer's descriptor instances;
// - deterministic output is @bufbuild/protobuf's canonical bytes (fields by number, map entries by
//   key, unknown fields last) for the same content, whatever encoding was read.
// serializer-malformed checks one aliased and one copied field; this file pins the rest.
import { create, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType, FrameReader } from "../src/index.js";
import { messageArb } from "./support/arbitrary-message.js";
import { registryFromDir } from "./support/buf.js";
import { parseRecords, rng, scramble, varint, writeRecords, type WireRecord } from "./support/wire-scramble.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const det = ProtobufType.newBuilder(All).deterministic(true).build().createSerializer();
const JSON_TYPES = ["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"];

const withThreshold = (t: number) => ProtobufType.newBuilder(All).aliasThreshold(t).build().createSerializer();

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}

const blob = (n: number, fill: number) => new Uint8Array(n).fill(fill);

/** A buffer of its own with `bytes` at `at` (serializer outputs are cut from a shared slab). */
function own(bytes: Uint8Array, at = 0): Uint8Array {
  const buf = new Uint8Array(at + bytes.length + 3);
  buf.set(bytes, at);
  return buf.subarray(at, at + bytes.length);
}

/** Offset of the first occurrence of `needle` in `hay`. */
function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  return Buffer.from(hay.buffer, hay.byteOffset, hay.length).indexOf(Buffer.from(needle));
}

// Every place a bytes value can be, with its length, and how to read it back from a value.
const PLACES: [string, (b: Uint8Array) => Record<string, unknown>, (v: DynamicMessage) => Uint8Array][] = [
  ["singular", (b) => ({ f_bytes: b }), (v) => v.get("f_bytes") as Uint8Array],
  ["optional", (b) => ({ o_bytes: b }), (v) => v.get("o_bytes") as Uint8Array],
  ["repeated", (b) => ({ r_bytes: [new Uint8Array([7]), b] }), (v) => (v.get("r_bytes") as Uint8Array[])[1]!],
  ["oneof member", (b) => ({ c_bytes: b }), (v) => v.get("c_bytes") as Uint8Array],
  ["map value", (b) => ({ mv_bytes: { k: b } }), (v) => (v.get("mv_bytes") as Map<string, Uint8Array>).get("k")!],
  ["nested", (b) => ({ recursive: { recursive: { f_bytes: b } } }), (v) => ((v.get("recursive") as DynamicMessage).get("recursive") as DynamicMessage).get("f_bytes") as Uint8Array],
  ["BytesValue wrapper", (b) => ({ wkt_bytes: { value: b } }), (v) => (v.get("wkt_bytes") as DynamicMessage).get("value") as Uint8Array],
];

describe("aliasThreshold", () => {
  test.each(PLACES)("%s bytes: at and above the threshold a view of the input, below a copy", (_name, init, read) => {
    const s = withThreshold(16);
    for (const [n, aliased] of [
      [15, false],
      [16, true],
      [17, true],
      [4096, true],
    ] as const) {
      const value = blob(n, 0xab);
      const input = own(ser.toBinary(DynamicMessage.create(All, init(value))), 5);
      const got = read(s.fromBinary(input));
      expect(got).toEqual(value);
      const at = indexOf(input, value);
      if (aliased) {
        expect(got.buffer).toBe(input.buffer);
        expect(got.byteOffset).toBe(input.byteOffset + at);
      } else expect(got.buffer).not.toBe(input.buffer);
      // Why the input must stay unmodified: a view shows the change, a copy does not.
      input[at] = 0xcd;
      expect(got[0]).toBe(aliased ? 0xcd : 0xab);
    }
  });

  test.each([0, 1])("threshold 0 never aliases, threshold 1 aliases every non-empty value (threshold %i)", (t) => {
    const s = withThreshold(t);
    for (const n of [1, 100, 100_000]) {
      const input = own(ser.toBinary(DynamicMessage.create(All, { f_bytes: blob(n, 1) })));
      const got = s.fromBinary(input).get("f_bytes") as Uint8Array;
      expect(got.buffer === input.buffer).toBe(t === 1);
    }
    expect((s.fromBinary(own(ser.toBinary(DynamicMessage.create(All, { o_bytes: new Uint8Array(0) })))).get("o_bytes") as Uint8Array).length).toBe(0);
  });

  test("the default threshold is 0", () => {
    const input = own(ser.toBinary(DynamicMessage.create(All, { f_bytes: blob(100_000, 1) })));
    expect((ser.fromBinary(input).get("f_bytes") as Uint8Array).buffer).not.toBe(input.buffer);
  });

  test("frames alias into the batch: decode, decodeAll and deserialize", () => {
    const s = withThreshold(8);
    const a = blob(32, 0x11);
    const b = blob(40, 0x22);
    const batch = own(ser.encodeAll([DynamicMessage.create(All, { f_bytes: a }), DynamicMessage.create(All, { f_bytes: b })]), 3);
    const [va, vb] = s.decodeAll(batch);
    const reader = new FrameReader(batch);
    const ra = s.deserialize(reader);
    const rb = s.deserialize(reader);
    for (const [v, expected] of [
      [va!, a],
      [vb!, b],
      [ra, a],
      [rb, b],
    ] as const) {
      const got = v.get("f_bytes") as Uint8Array;
      expect(got).toEqual(expected);
      expect(got.buffer).toBe(batch.buffer);
      expect(got.byteOffset).toBe(batch.byteOffset + indexOf(batch, expected));
    }
    const single = own(ser.encode(DynamicMessage.create(All, { f_bytes: a })));
    expect((s.decode(single).get("f_bytes") as Uint8Array).buffer).toBe(single.buffer);
  });

  test("a pooled Node Buffer (byteOffset inside a shared pool) is read and aliased at the right offset", () => {
    const s = withThreshold(4);
    const value = blob(6, 0x5a);
    const bytes = ser.toBinary(DynamicMessage.create(All, { f_bytes: value, f_string: "héllo" }));
    const buf = Buffer.from(bytes);
    expect(buf.byteOffset).toBeGreaterThanOrEqual(0);
    const v = s.fromBinary(buf);
    expect(v.get("f_string")).toBe("héllo");
    const got = v.get("f_bytes") as Uint8Array;
    // A plain Uint8Array, not a Buffer (whose slice() would not copy).
    expect(Object.getPrototypeOf(got)).toBe(Uint8Array.prototype);
    expect(got).toEqual(value);
    expect(got.buffer).toBe(buf.buffer);
    expect(got.byteOffset).toBe(buf.byteOffset + indexOf(buf, value));
  });

  test("unknown fields and strings are copies at any threshold; the relay bytes too", () => {
    const s = withThreshold(1);
    const unknown = new Uint8Array([0xc2, 0x3e, 20, ...blob(20, 0x33)]); // field 1000, 20 bytes
    const input = own(new Uint8Array([...ser.toBinary(DynamicMessage.create(All, { f_string: "s".repeat(40) })), ...unknown]));
    const v = s.fromBinary(input);
    const original = hex(input);
    input.fill(0);
    expect(v.unknownFields.get(1000)).toEqual([unknown]);
    expect(v.get("f_string")).toBe("s".repeat(40));
    // The value decoded before the change still writes the bytes it was read from.
    expect(hex(s.toBinary(v))).toBe(original);
  });

  test("values of an aliased decode are equal to a copied decode and encode the same", () => {
    const aliasing = withThreshold(1);
    fc.assert(
      fc.property(messageArb(All, 1), (sample) => {
        const input = own(ser.toBinary(DynamicMessage.create(All, sample.ours)));
        const aliased = aliasing.fromBinary(input);
        const copied = ser.fromBinary(input);
        expect(aliased.equals(copied)).toBe(true);
        expect(hex(det.toBinary(aliased))).toBe(hex(det.toBinary(copied)));
      }),
      { numRuns: 150 },
    );
  });
});

describe("decoded values carry the reading serializer's descriptor instances", () => {
  // A second registry from the same fixture: equal content, distinct instances.
  const All2 = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
  const ser2 = ProtobufType.of(All2).createSerializer();
  const bytes = ser.toBinary(
    DynamicMessage.create(All, {
      f_message: { name: "a" },
      r_message: [{ name: "b" }],
      mv_message: { k: { name: "c" } },
      c_message: { name: "d" },
      recursive: { nested: { inner: { a: 1 }, outer: { f_int32: 2 } } },
      children: [{ f_int32: 3 }],
      wkt_timestamp: { seconds: 5n },
    }),
  );

  function descriptorsOf(v: DynamicMessage, out: DescMessage[] = []): DescMessage[] {
    out.push(v.descriptor);
    for (const f of v.descriptor.fields) {
      if (!v.has(f.name) && f.fieldKind !== "list" && f.fieldKind !== "map") continue;
      const x = v.get(f.name);
      const items = x instanceof Map ? [...x.values()] : Array.isArray(x) ? x : [x];
      for (const i of items) if (i instanceof DynamicMessage) descriptorsOf(i, out);
    }
    return out;
  }

  /** The instance `root` declares for each type name, walked through its fields. */
  function instancesOf(root: DescMessage): Map<string, DescMessage> {
    const seen = new Map<string, DescMessage>();
    const visit = (d: DescMessage) => {
      if (seen.has(d.typeName)) return;
      seen.set(d.typeName, d);
      for (const f of d.fields) if (f.message) visit(f.message);
    };
    visit(root);
    return seen;
  }

  test.each([
    ["the fixture's registry", ser, All],
    ["another registry", ser2, All2],
  ] as const)("%s: root, nested, list, map, oneof and WKT values", (_name, s, root) => {
    const v = s.fromBinary(bytes);
    const own = instancesOf(root);
    const found = descriptorsOf(v);
    expect(found.length).toBe(11);
    for (const d of found) expect(d).toBe(own.get(d.typeName));
    for (const w of [s.decode(s.encode(v)), s.decodeAll(ser.encodeAll([v]))[0]!]) {
      for (const d of descriptorsOf(w)) expect(d).toBe(own.get(d.typeName));
    }
  });

  test("values of the two registries have equal content but are not equal and do not mix", () => {
    const a = ser.fromBinary(bytes);
    const b = ser2.fromBinary(bytes);
    expect(a.equals(b)).toBe(false);
    expect(hex(det.toBinary(a))).toBe(hex(det.toBinary(b)));
    expect(() => b.getField(All.fields[0]!)).toThrow(TypeError);
    // A value of the other instance is written (evaluated as an equal schema) and read back as ours.
    expect(ser.fromBinary(ser.toBinary(b)).descriptor).toBe(All);
  });
});

describe("deterministic output is @bufbuild/protobuf's canonical bytes", () => {
  /**
   * @bufbuild/protobuf writes map entries in JS property order: integer-like keys ascending, then
   * the others in insertion order. That is key order unless a map mixes negative and
   * non-negative keys, so those maps keep their non-negative keys only, and string keys that are
   * array indices ("0", "17"), which JS enumerates first and numerically, are left out.
   */
  const ARRAY_INDEX = /^(0|[1-9][0-9]{0,8})$/;

  function keyOrdered(x: unknown): unknown {
    if (x instanceof Map) {
      const entries = [...x.entries()].map(([k, v]) => [k, keyOrdered(v)] as const);
      const neg = entries.some(([k]) => (typeof k === "number" || typeof k === "bigint") && k < 0);
      const kept = neg ? entries.filter(([k]) => !(k >= 0)) : entries;
      return new Map(kept.filter(([k]) => !(typeof k === "string" && ARRAY_INDEX.test(k))));
    }
    if (Array.isArray(x)) return x.map(keyOrdered);
    if (x !== null && typeof x === "object" && !(x instanceof Uint8Array)) {
      return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, keyOrdered(v)]));
    }
    return x;
  }

  test("for decoded values of any legal encoding, with unknown fields anywhere", () => {
    fc.assert(
      fc.property(
        messageArb(All, 1, { skipTypes: JSON_TYPES }),
        fc.integer(),
        fc.array(fc.tuple(fc.constantFrom(1000, 2000, 536870910), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.nat()), { maxLength: 3 }),
        (s, seed, unknowns) => {
          const value = DynamicMessage.create(All, keyOrdered(s.ours) as Record<string, unknown>);
          const esBytes = toBinary(All, fromBinary(All, ser.toBinary(value)));
          const recs: WireRecord[] = parseRecords(scramble(All, esBytes, rng(seed), { splitMessages: true }));
          for (const [no, v, at] of unknowns) recs.splice(at % (recs.length + 1), 0, { no, wt: 0, data: new Uint8Array(varint(v)) });
          const input = writeRecords(recs);
          const out = det.toBinary(det.fromBinary(input));
          expect(hex(out)).toBe(hex(toBinary(All, fromBinary(All, input))));
          // Canonical: reading and writing again changes nothing, whichever serializer read it.
          expect(hex(det.toBinary(det.fromBinary(out)))).toBe(hex(out));
          expect(hex(det.toBinary(ser.fromBinary(input)))).toBe(hex(out));
        },
      ),
      { numRuns: 300 },
    );
  });

  test("map entries by key for every key type, also where @bufbuild/protobuf's order differs", () => {
    const init = {
      m_int32: new Map([[5, "a"], [-3, "b"], [0, "c"], [-2147483648, "d"]]),
      m_uint64: new Map([[2n ** 64n - 1n, "a"], [3n, "b"], [2n ** 32n, "c"]]),
      m_sint64: new Map([[7n, "a"], [-(2n ** 63n), "b"]]),
      m_fixed32: new Map([[4294967295, "a"], [1, "b"]]),
      m_bool: new Map([[true, "t"], [false, "f"]]),
      m_string: new Map([["b", "1"], ["", "2"], ["a", "3"], ["B", "4"]]),
    };
    const entriesAsWritten = (bytes: Uint8Array, no: number) =>
      parseRecords(bytes)
        .filter((r) => r.no === no)
        .map((r) => hex(r.data));
    const out = det.toBinary(ser.fromBinary(ser.toBinary(DynamicMessage.create(All, init))));
    for (const [name, map] of Object.entries(init)) {
      const f = All.fields.find((x) => x.name === name)!;
      const sorted = [...map.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const expected = sorted.map((k) => hex(parseRecords(det.toBinary(DynamicMessage.create(All, { [name]: new Map([[k, map.get(k as never)]]) })))[0]!.data));
      expect(entriesAsWritten(out, f.number)).toEqual(expected);
    }
  });
});
