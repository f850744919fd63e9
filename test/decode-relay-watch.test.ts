// Bare messages under the lazy threshold (src/codec/reader.ts, RelayWatch): a serializer decodes
// them eagerly while its values are read, and lazily while it relays them unread (toBinary or
// encode of a value it decoded, unchanged). The switch must never change a value, an error or a
// relay's bytes, must follow the traffic both ways within a window of decodes, and must not make
// lazy values where nothing is relayed.
import { afterAll, beforeEach, describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType, type ProtobufSerializer } from "../src/index.js";
import { setAdaptiveLazy, setLazyDecodeThreshold } from "../src/codec/reader.js";
import { messageFromDir } from "./support/buf.js";
import { thrown } from "./support/thrown.js";

const All = messageFromDir("fixtures/all-types", "alltypes.AllTypes");
const type = ProtobufType.of(All);

const isLazy = (m: DynamicMessage): boolean => (m as unknown as { _isLazy: boolean })._isLazy;
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

// The decisions are made once per window of this many decodes (reader.ts WINDOW).
const WINDOW = 256;

/** Small messages (well under the 4 KiB threshold), all different, with every kind of field. */
const inputs: Uint8Array[] = (() => {
  const w = type.createSerializer();
  return Array.from({ length: 97 }, (_, i) =>
    w.toBinary(
      DynamicMessage.create(All, {
        f_string: i % 5 === 0 ? "\uFEFFbom first" : `name-${i}`,
        f_int32: i - 40,
        f_sint64: BigInt(i) * -977n,
        f_bytes: new Uint8Array([i, 255 - i, 0]),
        r_double: i % 3 === 0 ? [] : [i / 7, -0, 1e300],
        r_string: [`a${i}`, "", "ü"],
        m_string: { k: `v${i}` },
        mv_message: { [`k${i}`]: { name: "leaf", value: i } },
        ...(i % 2 === 0 ? { c_string: `c${i}` } : { c_int64: BigInt(i) }),
        recursive: { f_int32: i, recursive: { f_string: "deep" } },
      }),
    ),
  );
})();

const shippedLazy = setLazyDecodeThreshold(4096);
const shippedAdaptive = setAdaptiveLazy(true);
beforeEach(() => {
  setLazyDecodeThreshold(4096);
  setAdaptiveLazy(true);
});
afterAll(() => {
  setLazyDecodeThreshold(shippedLazy);
  setAdaptiveLazy(shippedAdaptive);
});

type Use = "relay" | "encode" | "read" | "relay+read" | "drop";

/**
 * Decodes `n` inputs with `ser` and uses each value as `use` says; returns how many values were
 * lazy when returned, and checks every relay's bytes against its input.
 */
function drive(ser: ProtobufSerializer, n: number, use: Use, from = 0): number {
  let lazy = 0;
  for (let i = 0; i < n; i++) {
    const input = inputs[(from + i) % inputs.length]!;
    const v = ser.fromBinary(input);
    if (isLazy(v)) lazy++;
    if (use === "read" || use === "relay+read") v.has("f_string");
    if (use === "relay" || use === "relay+read") {
      const out = ser.toBinary(v);
      if (hex(out) !== hex(input)) throw new Error(`relay ${i} changed the bytes`);
    }
    if (use === "encode") {
      const framed = ser.encode(v);
      if (hex(framed.subarray(framed.length - input.length)) !== hex(input)) throw new Error(`encode ${i} changed the bytes`);
    }
  }
  return lazy;
}

describe("which path bare messages under the lazy threshold take", () => {
  test.each<[Use, number, number]>([
    // use, decodes, most values that may be lazy
    ["read", 20 * WINDOW, 0],
    ["drop", 20 * WINDOW, 0],
  ])("values that are %s never come back lazy", (use, n, most) => {
    expect(drive(type.createSerializer(), n, use)).toBeLessThanOrEqual(most);
  });

  test.each<Use>(["relay", "encode"])("values that are relayed unread (%s) turn lazy within two windows", (use) => {
    const ser = type.createSerializer();
    // The decision at a window's last decode applies to that decode.
    expect(drive(ser, 2 * WINDOW, use)).toBeLessThanOrEqual(WINDOW + 1);
    expect(drive(ser, 4 * WINDOW, use)).toBe(4 * WINDOW);
  });

  test("a serializer that turns from relaying to reading is eager again within one window", () => {
    const ser = type.createSerializer();
    drive(ser, 4 * WINDOW, "relay");
    expect(drive(ser, 2 * WINDOW, "read")).toBeLessThanOrEqual(WINDOW + 1);
    expect(drive(ser, 4 * WINDOW, "read")).toBe(0);
    // and lazy again when the relaying comes back
    drive(ser, 4 * WINDOW, "relay");
    expect(drive(ser, WINDOW, "relay")).toBe(WINDOW);
  });

  test("a relay that reads every value pays the lazy path on fewer and fewer windows", () => {
    const ser = type.createSerializer();
    const lazyWindows = (windows: number): number => Math.ceil(drive(ser, windows * WINDOW, "relay+read") / WINDOW);
    // After each lazy window that was read, the eager windows skipped double (1, 3, 7, 15, ...,
    // at most 256): lazy windows start at windows 1, 4, 8, 16, 34, 67, 131, 259, 515 of the run.
    expect(lazyWindows(64)).toBeLessThanOrEqual(6);
    expect(lazyWindows(256)).toBeLessThanOrEqual(3);
    expect(lazyWindows(512)).toBeLessThanOrEqual(2);
  });

  test("relays of values another serializer decoded do not turn this one lazy", () => {
    const reader = type.createSerializer();
    const relayer = type.createSerializer();
    for (let i = 0; i < 8 * WINDOW; i++) relayer.toBinary(reader.fromBinary(inputs[i % inputs.length]!));
    expect(drive(reader, 2 * WINDOW, "drop")).toBe(0);
  });

  test.each<[string, ProtobufSerializer]>([
    ["aliasThreshold > 0 (bytes fields are views of the input)", ProtobufType.newBuilder(All).aliasThreshold(16).build().createSerializer()],
    ["deterministic (a relay re-encodes)", ProtobufType.newBuilder(All).deterministic(true).build().createSerializer()],
  ])("a serializer with %s stays eager", (_, ser) => {
    expect(drive(ser, 8 * WINDOW, "relay")).toBe(0);
  });

  test("setAdaptiveLazy(false) keeps every decode under the threshold eager", () => {
    setAdaptiveLazy(false);
    expect(drive(type.createSerializer(), 8 * WINDOW, "relay")).toBe(0);
  });
});

describe("both paths give the same values and errors", () => {
  /** A serializer relayed into its lazy mode. */
  function lazySerializer(): ProtobufSerializer {
    const ser = type.createSerializer();
    drive(ser, 4 * WINDOW, "relay");
    expect(isLazy(ser.fromBinary(inputs[0]!))).toBe(true);
    return ser;
  }

  test("every value read from a lazy serializer equals the eager one, field for field", () => {
    const lazy = lazySerializer();
    const eager = type.createSerializer();
    for (const input of inputs) {
      const a = lazy.fromBinary(input);
      const b = eager.fromBinary(input);
      expect(isLazy(a)).toBe(true);
      expect(isLazy(b)).toBe(false);
      expect(a.toObject()).toEqual(b.toObject());
      expect(a.equals(b)).toBe(true);
      expect(hex(lazy.toBinary(a))).toBe(hex(input));
    }
  });

  // Each a valid input with one fault: the error must be thrown by fromBinary on both paths.
  const valid = inputs[3]!;
  const faults: [string, Uint8Array][] = [
    ["cut short", valid.subarray(0, valid.length - 1)],
    ["a tag of field 0", new Uint8Array([0x00, 0x01])],
    ["wire type 7", new Uint8Array([0x0f])],
    ["a length past the end", new Uint8Array([0x4a, 0x7f, 0x61])],
    ["invalid UTF-8 in a string", new Uint8Array([0x4a, 0x02, 0xc3, 0x28])],
    ["a wrong wire type for a declared field", new Uint8Array([0x08 | 5, 0, 0, 0, 0])],
  ];

  test.each(faults)("%s: the same CodecError from an eager and a lazy serializer", (_, bad) => {
    const lazy = lazySerializer();
    const a = thrown<CodecError>(() => lazy.fromBinary(bad));
    const b = thrown<CodecError>(() => type.createSerializer().fromBinary(bad));
    expect(a).toBeInstanceOf(CodecError);
    expect(b).toBeInstanceOf(CodecError);
    expect([a.code, a.message, a.path]).toEqual([b.code, b.message, b.path]);
    // and the lazy serializer goes on as before
    expect(isLazy(lazy.fromBinary(valid))).toBe(true);
    expect(hex(lazy.toBinary(lazy.fromBinary(valid)))).toBe(hex(valid));
  });
});
