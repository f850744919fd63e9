// Bare messages of at least the lazy threshold (src/codec/reader.ts, RelayWatch.nextLarge): a
// serializer decodes them lazily, and eagerly while nearly every value it decodes is read (a
// value read anyway paid the validate walk for nothing). While eager, one decode in 16 stays lazy
// (a probe), and a window whose probes were not read turns it lazy again. The switch must never
// change a value, an error or a relay's bytes, and must follow the traffic both ways.
import { afterAll, beforeEach, describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType, type ProtobufSerializer } from "../src/index.js";
import { setAdaptiveLazy, setLazyDecodeThreshold } from "../src/codec/reader.js";
import { messageFromDir } from "./support/buf.js";
import { thrown } from "./support/thrown.js";

const All = messageFromDir("fixtures/all-types", "alltypes.AllTypes");
const type = ProtobufType.of(All);

const isLazy = (m: DynamicMessage): boolean => (m as unknown as { _isLazy: boolean })._isLazy;
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

// reader.ts: decisions once per WINDOW decodes; while eager, every PROBE_EVERY-th decode is lazy.
const WINDOW = 256;
const PROBE_EVERY = 16;
const PROBES = WINDOW / PROBE_EVERY;

/** Messages over the 4 KiB threshold, all different, with every kind of field. */
const inputs: Uint8Array[] = (() => {
  const w = type.createSerializer();
  return Array.from({ length: 23 }, (_, i) => {
    const bytes = w.toBinary(
      DynamicMessage.create(All, {
        f_string: i % 5 === 0 ? "\uFEFFbom first" : `name-${i}`,
        f_int32: i - 11,
        f_sint64: BigInt(i) * -977n,
        f_bytes: new Uint8Array(4200 + 37 * i).fill(i),
        r_double: [i / 7, -0, 1e300],
        r_string: Array.from({ length: 40 }, (_, j) => `s${i}-${j}-ü`),
        m_string: { k: `v${i}` },
        mv_message: { [`k${i}`]: { name: "leaf", value: i } },
        ...(i % 2 === 0 ? { c_string: `c${i}` } : { c_int64: BigInt(i) }),
        recursive: { f_int32: i, recursive: { f_string: "deep" } },
      }),
    );
    if (bytes.length < 4096) throw new Error("fixture under the lazy threshold");
    return bytes;
  });
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

/** How a decoded value is used: read (a field), relayed unread, dropped unread, or read unless it is the i-th of every `n`. */
type Use = "read" | "relay" | "drop" | { readAllBut: number };

/** Decodes `n` inputs with `ser`, uses each as `use` says; returns how many were lazy when returned. */
function drive(ser: ProtobufSerializer, n: number, use: Use): number {
  let lazy = 0;
  for (let i = 0; i < n; i++) {
    const input = inputs[i % inputs.length]!;
    const v = ser.fromBinary(input);
    if (isLazy(v)) lazy++;
    if (use === "read" || (typeof use === "object" && i % use.readAllBut !== 0)) v.has("f_string");
    if (use === "relay") {
      const out = ser.toBinary(v);
      if (hex(out) !== hex(input)) throw new Error(`relay ${i} changed the bytes`);
    }
  }
  return lazy;
}

describe("which path bare messages of at least the lazy threshold take", () => {
  test.each<Use>(["relay", "drop", { readAllBut: 8 }])("values that are not nearly all read (%o) stay lazy", (use) => {
    expect(drive(type.createSerializer(), 12 * WINDOW, use)).toBe(12 * WINDOW);
  });

  test("values that are read turn eager after one window, but for one probe in 16", () => {
    const ser = type.createSerializer();
    expect(drive(ser, WINDOW, "read")).toBe(WINDOW);
    for (let w = 0; w < 6; w++) expect(drive(ser, WINDOW, "read")).toBe(PROBES);
  });

  test("one value in 32 left unread still reads as eager traffic", () => {
    const ser = type.createSerializer();
    drive(ser, WINDOW, { readAllBut: 32 });
    // (248 of 256 read turns it eager; then at most one of a window's 16 probes is unread)
    expect(drive(ser, 4 * WINDOW, { readAllBut: 33 })).toBe(4 * PROBES);
  });

  test("an eager serializer whose values stop being read is lazy again within two windows", () => {
    for (const use of ["relay", "drop"] as const) {
      const ser = type.createSerializer();
      drive(ser, 3 * WINDOW, "read");
      expect(drive(ser, 2 * WINDOW, use)).toBeLessThanOrEqual(WINDOW + PROBES + 1);
      expect(drive(ser, 4 * WINDOW, use)).toBe(4 * WINDOW);
    }
  });

  test("traffic that reads one window and drops the next is eager on fewer and fewer windows", () => {
    const ser = type.createSerializer();
    const eagerWindows: number[] = [];
    for (let w = 1; w <= 256; w++) if (drive(ser, WINDOW, w % 2 === 1 ? "read" : "drop") === PROBES) eagerWindows.push(w);
    // Each turn back to lazy skips 1, 3, 7, 15, ... windows (up to 256) before reads may turn it
    // eager again; without that it would be eager on every dropped window (128 of them).
    expect(eagerWindows).toEqual([2, 6, 12, 22, 40, 74, 140]);
  });

  test("setAdaptiveLazy(false) keeps every decode of at least the threshold lazy", () => {
    setAdaptiveLazy(false);
    expect(drive(type.createSerializer(), 4 * WINDOW, "read")).toBe(4 * WINDOW);
  });

  test("an aliasing serializer reads them eagerly, as before", () => {
    const ser = ProtobufType.newBuilder(All).aliasThreshold(16).build().createSerializer();
    expect(drive(ser, 2 * WINDOW, "relay")).toBe(0);
  });
});

describe("both paths give the same values, relays and errors", () => {
  /** A serializer read into its eager mode. */
  function eagerSerializer(): ProtobufSerializer {
    const ser = type.createSerializer();
    drive(ser, 2 * WINDOW, "read");
    expect(isLazy(ser.fromBinary(inputs[1]!))).toBe(false);
    return ser;
  }

  test("every value an eager serializer reads equals the lazy one, and relays the same bytes", () => {
    const eager = eagerSerializer();
    const lazy = type.createSerializer();
    let eagerValues = 0;
    for (const input of inputs) {
      const a = eager.fromBinary(input);
      const b = lazy.fromBinary(input);
      if (!isLazy(a)) eagerValues++;
      expect(isLazy(b)).toBe(true);
      expect(hex(eager.toBinary(a))).toBe(hex(input));
      expect(a.toObject()).toEqual(b.toObject());
      expect(a.equals(b)).toBe(true);
    }
    // all but the probes (one decode in 16)
    expect(eagerValues).toBeGreaterThanOrEqual(inputs.length - 2);
  });

  // Each a valid input with one fault, past the first 4 KiB: fromBinary must throw on both paths.
  const valid = inputs[2]!;
  const cutShort = valid.subarray(0, valid.length - 1);
  const badUtf8 = (() => {
    const w = type.createSerializer();
    const head = w.toBinary(DynamicMessage.create(All, { f_bytes: new Uint8Array(5000) }));
    return new Uint8Array([...head, 0x12, 0x02, 0xc3, 0x28]); // f_string (2): C3 28 is not UTF-8
  })();
  test.each<[string, Uint8Array]>([
    ["cut short", cutShort],
    ["invalid UTF-8 after 5,000 bytes", badUtf8],
  ])("%s: the same CodecError from an eager and a lazy serializer", (_, bad) => {
    expect(bad.length).toBeGreaterThanOrEqual(4096);
    const eager = eagerSerializer();
    const a = thrown<CodecError>(() => eager.fromBinary(bad));
    const b = thrown<CodecError>(() => type.createSerializer().fromBinary(bad));
    expect(a).toBeInstanceOf(CodecError);
    expect(b).toBeInstanceOf(CodecError);
    expect([a.code, a.message, a.path, a.offset]).toEqual([b.code, b.message, b.path, b.offset]);
    // and the eager serializer goes on as before
    expect(hex(eager.toBinary(eager.fromBinary(valid)))).toBe(hex(valid));
  });
});
