// Lazy decode (src/codec/reader.ts): a bare message of 4 KiB or more is validated by fromBinary
// and read into values on first access. The values, the errors and the written bytes must be
// those of an eager decode; a relay with the same serializer must not read the values at all.
import { afterAll, beforeEach, describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, FrameReader, FrameWriter, ProtobufType } from "../src/index.js";
import { setLazyDecodeThreshold } from "../src/codec/reader.js";
import { messageFromDir } from "./support/buf.js";

const All = messageFromDir("fixtures/all-types", "alltypes.AllTypes");
const type = ProtobufType.of(All);
const ser = type.createSerializer();
const det = ProtobufType.newBuilder(All).deterministic(true).build().createSerializer();

const isLazy = (m: DynamicMessage): boolean => (m as unknown as { _isLazy: boolean })._isLazy;
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

function leaf(i: number) {
  return { name: `leaf-${i}-${"x".repeat(i % 7)}`, value: i };
}

/** A value of about `kb` KiB with strings, packed numerics, maps, a oneof and nesting. */
function big(kb: number): DynamicMessage {
  const n = kb * 16;
  return DynamicMessage.create(All, {
    f_string: "héllo wörld",
    f_int64: -5n,
    f_uint64: 2n ** 64n - 1n,
    r_double: Array.from({ length: n }, (_, i) => i / 3),
    r_sint64: Array.from({ length: n }, (_, i) => BigInt(i) * -12345n),
    r_string: Array.from({ length: n }, (_, i) => `s${i}`),
    r_message: Array.from({ length: n / 4 }, (_, i) => leaf(i)),
    m_string: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, `v${i}`])),
    mv_message: Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`k${i}`, leaf(i)])),
    c_string: "chosen",
    recursive: { f_int32: 7, recursive: { f_string: "deep" } },
  });
}

// The shipped threshold for every test here, whichever project runs the file.
const shipped = setLazyDecodeThreshold(4096);
beforeEach(() => {
  setLazyDecodeThreshold(4096);
});
afterAll(() => {
  setLazyDecodeThreshold(shipped);
});

describe("lazy decode", () => {
  const value = big(16);
  const bytes = ser.toBinary(value);

  test("the fixture is over the threshold and a small message is under it", () => {
    expect(bytes.length).toBeGreaterThanOrEqual(4096);
    expect(isLazy(ser.fromBinary(bytes))).toBe(true);
    expect(isLazy(ser.fromBinary(ser.toBinary(DynamicMessage.create(All, { f_int32: 1 }))))).toBe(false);
  });

  test("the first field access reads the whole tree; the value equals an eager decode", () => {
    const lazyValue = ser.fromBinary(bytes);
    setLazyDecodeThreshold(Infinity);
    const eager = ser.fromBinary(bytes);
    expect(isLazy(eager)).toBe(false);
    expect(isLazy(lazyValue)).toBe(true);
    expect(lazyValue.get("c_string")).toBe("chosen");
    expect(isLazy(lazyValue)).toBe(false);
    expect(lazyValue.equals(eager)).toBe(true);
    expect(lazyValue.equals(value)).toBe(true);
    expect(lazyValue.toObject()).toEqual(eager.toObject());
  });

  test.each([
    ["get", (m: DynamicMessage) => m.get("f_string")],
    ["has", (m: DynamicMessage) => m.has("f_string")],
    ["getField", (m: DynamicMessage) => m.getField(m.descriptor.fields[0]!)],
    ["hasField", (m: DynamicMessage) => m.hasField(m.descriptor.fields[0]!)],
    ["whichOneof", (m: DynamicMessage) => m.whichOneof("choice")],
    ["unknownFields", (m: DynamicMessage) => m.unknownFields],
    ["equals", (m: DynamicMessage) => m.equals(value)],
    ["toObject", (m: DynamicMessage) => m.toObject()],
    ["toBuilder", (m: DynamicMessage) => m.toBuilder().build()],
  ] as const)("%s materializes", (_name, access) => {
    const m = ser.fromBinary(bytes);
    access(m);
    expect(isLazy(m)).toBe(false);
    expect(m.equals(value)).toBe(true);
  });

  test("a relay through the same serializer writes the input bytes without reading the values", () => {
    const m = ser.fromBinary(bytes);
    expect(hex(ser.toBinary(m))).toBe(hex(bytes));
    expect(hex(ser.encode(m))).toBe(hex(ser.encodeAll([m])));
    const w = new FrameWriter();
    ser.serialize(m, w);
    expect(hex(w.view().slice())).toBe(hex(ser.encode(m)));
    expect(isLazy(m)).toBe(true);
  });

  test("a lazy value nested in a new value is written as its bytes, still unread", () => {
    const m = ser.fromBinary(bytes);
    const outer = DynamicMessage.create(All, { f_int32: 3, recursive: m, children: [m, m] });
    const out = ser.toBinary(outer);
    expect(isLazy(m)).toBe(true);
    setLazyDecodeThreshold(Infinity);
    const back = ser.fromBinary(out);
    expect((back.get("recursive") as DynamicMessage).equals(value)).toBe(true);
    expect((back.get("children") as DynamicMessage[]).every((c) => c.equals(value))).toBe(true);
  });

  test("a deterministic serializer reads the value and writes what an eager value writes", () => {
    const m = det.fromBinary(bytes);
    expect(isLazy(m)).toBe(true);
    expect(hex(det.toBinary(m))).toBe(hex(det.toBinary(value)));
    expect(isLazy(m)).toBe(false);
  });

  test("another serializer of the same schema reads the value and re-encodes it", () => {
    const other = ProtobufType.of(messageFromDir("fixtures/all-types", "alltypes.AllTypes")).createSerializer();
    const m = ser.fromBinary(bytes);
    const out = other.toBinary(m);
    expect(isLazy(m)).toBe(false);
    expect(other.fromBinary(out).equals(other.fromBinary(bytes))).toBe(true);
  });

  test("malformed input fails at decode with the eager decode's error", () => {
    const cut = bytes.subarray(0, bytes.length - 3);
    const bad = Uint8Array.from(bytes);
    bad[bytes.length - 1] = 0xff; // a varint that runs past the end, or a broken string byte
    for (const input of [cut, bad]) {
      setLazyDecodeThreshold(0);
      let lazyError: unknown;
      try {
        ser.fromBinary(input);
      } catch (e) {
        lazyError = e;
      }
      setLazyDecodeThreshold(Infinity);
      let eagerError: unknown;
      try {
        ser.fromBinary(input);
      } catch (e) {
        eagerError = e;
      }
      expect(lazyError).toBeInstanceOf(CodecError);
      expect(eagerError).toBeInstanceOf(CodecError);
      expect((lazyError as CodecError).code).toBe((eagerError as CodecError).code);
      expect((lazyError as Error).message).toBe((eagerError as Error).message);
    }
  });

  test("the lazy value keeps its own copy: changing the input afterwards changes nothing", () => {
    const input = Uint8Array.from(bytes);
    const m = ser.fromBinary(input);
    input.fill(0);
    expect(m.equals(value)).toBe(true);
    expect(hex(ser.toBinary(m))).toBe(hex(bytes));
  });

  test("a value nested deeper than maxDepth allows is refused when written, as an eager one is", () => {
    const shallow = ProtobufType.newBuilder(All).maxDepth(4).build().createSerializer();
    // Height 3 (root, recursive, recursive) fits maxDepth 4 at the root ...
    const m = shallow.fromBinary(bytes);
    expect(hex(shallow.toBinary(m))).toBe(hex(bytes));
    // ... but not two levels further down.
    const outer = DynamicMessage.create(All, { recursive: { recursive: m } });
    expect(() => shallow.toBinary(outer)).toThrowError(/nesting depth/);
  });

  test("aliasing serializers decode eagerly (bytes fields are views into the input)", () => {
    const aliasing = ProtobufType.newBuilder(All).aliasThreshold(16).build().createSerializer();
    expect(isLazy(aliasing.fromBinary(bytes))).toBe(false);
  });

  test("FrameReader gives lazy values for large frames", () => {
    const w = new FrameWriter();
    ser.serialize(value, w);
    ser.serialize(DynamicMessage.create(All, { f_int32: 9 }), w);
    const r = new FrameReader(w.view().slice());
    const first = ser.deserialize(r)!;
    const second = ser.deserialize(r)!;
    expect(isLazy(first)).toBe(true);
    expect(isLazy(second)).toBe(false);
    expect(first.equals(value)).toBe(true);
    expect(second.get("f_int32")).toBe(9);
  });
});
