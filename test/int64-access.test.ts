// 64-bit integers cross between bigint and memory through typed-array elements (V8) or through
// DataView (JavaScriptCore, where typed-array bigint elements cost 4-6x more: src/int64-access.ts).
// Both ways must give the same bits: every 64-bit kind, singular, optional, packed, unpacked, as
// map keys and values and under jstype = JS_STRING, at every boundary of the 32/53/63/64-bit
// ranges, written from built values, plain init objects, typed arrays and protobuf-es messages,
// read by the core's tape (eager and lazy) and by the generated kind: protobuf-es' bytes and
// values each time, in both settings.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { afterAll, describe, expect, test } from "vitest";
import { setInt64ViaDataView } from "../src/int64-access.js";
import { setLazyDecodeThreshold, setSmallDecodeThreshold } from "../src/codec/reader.js";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { messageFromDir } from "./support/buf.js";

const All = messageFromDir("fixtures/all-types", "alltypes.AllTypes");
const JsNumber = messageFromDir("fixtures/all-types", "alltypes.JsNumber");
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
/** protobuf-es' init of a protokeel init: the same values under the fields' local names. */
const esInit = (init: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(init).map(([k, v]) => [All.fields.find((f) => f.name === k)!.localName, v]));

const SIGNED = [
  0n, 1n, -1n, 127n, 128n, -128n, 2n ** 31n - 1n, -(2n ** 31n), 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n, -(2n ** 32n),
  2n ** 53n - 1n, -(2n ** 53n - 1n), 2n ** 53n, -(2n ** 53n), 2n ** 62n, 2n ** 63n - 1n, -(2n ** 63n), -(2n ** 63n) + 1n,
];
const UNSIGNED = [0n, 1n, 127n, 128n, 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 63n - 1n, 2n ** 63n, 2n ** 64n - 1n];
const KINDS: [kind: string, values: bigint[], typed: "i64" | "u64"][] = [
  ["int64", SIGNED, "i64"],
  ["sint64", SIGNED, "i64"],
  ["sfixed64", SIGNED, "i64"],
  ["uint64", UNSIGNED, "u64"],
  ["fixed64", UNSIGNED, "u64"],
];
const MAP_KINDS = ["int64", "uint64", "sint64", "fixed64", "sfixed64"];

/** One init per value: the value in every 64-bit field shape of AllTypes (protokeel's init = protobuf-es' init here). */
function singleInit(kind: string, v: bigint): Record<string, unknown> {
  const init: Record<string, unknown> = { [`f_${kind}`]: v, [`o_${kind}`]: v, [`r_${kind}`]: [v, v], [`u_${kind}`]: [v] };
  if (MAP_KINDS.includes(kind)) init[`m_${kind}`] = { [String(v)]: "x" };
  if (kind === "sint64") init.mv_sint64 = { k: v };
  if (kind === "int64") init.js_string_int64 = String(v);
  if (kind === "uint64") init.js_string_uint64s = [String(v)];
  return init;
}

/** Every value of every kind in one message, each list `times` over (times ≥ 40: over 4 KiB, the lazy path). */
function wideInit(times: number): Record<string, unknown> {
  const init: Record<string, unknown> = {};
  for (const [kind, values] of KINDS) {
    const many = Array.from({ length: times }, () => values).flat();
    init[`r_${kind}`] = many;
    init[`u_${kind}`] = values;
    init[`f_${kind}`] = values[values.length - 1];
  }
  return init;
}

const MODES: [string, boolean][] = [
  ["typed-array elements", false],
  ["DataView", true],
];

const prevMode = setInt64ViaDataView(false);
afterAll(() => setInt64ViaDataView(prevMode));

/** Runs `fn` with the core's tape reading every input (no TypeScript small reader), at `lazyMin`. */
function viaCore<T>(lazyMin: number, fn: () => T): T {
  const small = setSmallDecodeThreshold(0);
  const lazy = setLazyDecodeThreshold(lazyMin);
  try {
    return fn();
  } finally {
    setSmallDecodeThreshold(small);
    setLazyDecodeThreshold(lazy);
  }
}

describe.each(MODES)("64-bit integers through %s", (_name, dataView) => {
  const use = () => setInt64ViaDataView(dataView);
  const ser = ProtobufType.of(All).createSerializer();
  const gen = ProtobufType.ofGenerated(All).createSerializer();

  test.each(KINDS)("%s: every boundary value in every field shape writes and reads protobuf-es' bytes and values", (kind, values) => {
    use();
    for (const v of values) {
      const init = singleInit(kind, v);
      const es = create(All, esInit(init));
      const want = hex(toBinary(All, es));
      expect(hex(ser.toBinary(DynamicMessage.create(All, init))), `${kind} ${v} built`).toBe(want);
      expect(hex(ser.toBinary(init)), `${kind} ${v} plain`).toBe(want);
      expect(hex(gen.toBinary(es)), `${kind} ${v} generated`).toBe(want);
      const bytes = toBinary(All, es);
      for (const lazyMin of [Infinity, 0]) {
        const back = viaCore(lazyMin, () => ser.fromBinary(bytes));
        expect(back.get(`f_${kind}`), `${kind} ${v} f_`).toBe(v);
        expect(back.get(`o_${kind}`), `${kind} ${v} o_`).toBe(v);
        expect(back.get(`r_${kind}`), `${kind} ${v} r_`).toEqual([v, v]);
        expect(back.get(`u_${kind}`), `${kind} ${v} u_`).toEqual([v]);
        if (MAP_KINDS.includes(kind)) expect([...(back.get(`m_${kind}`) as Map<bigint, string>).keys()]).toEqual([v]);
        expect(hex(ser.toBinary(back)), `${kind} ${v} relay`).toBe(want);
        expect(viaCore(lazyMin, () => gen.fromBinary(bytes)), `${kind} ${v} generated read`).toEqual(fromBinary(All, bytes));
      }
      if (kind === "sint64") expect(viaCore(Infinity, () => ser.fromBinary(bytes)).get("mv_sint64")).toEqual(new Map([["k", v]]));
      if (kind === "int64") expect(viaCore(Infinity, () => ser.fromBinary(bytes)).get("js_string_int64")).toBe(String(v));
    }
  });

  test("long packed runs of every kind (over 4 KiB: the lazy path), from arrays and typed arrays", () => {
    use();
    const init = wideInit(40);
    const es = create(All, esInit(init));
    const bytes = toBinary(All, es);
    expect(bytes.length).toBeGreaterThan(4096);
    const want = hex(bytes);
    expect(hex(ser.toBinary(DynamicMessage.create(All, init)))).toBe(want);
    expect(hex(ser.toBinary(init))).toBe(want);
    expect(hex(gen.toBinary(es))).toBe(want);
    const typed: Record<string, unknown> = { ...init };
    for (const [kind, , t] of KINDS) {
      const list = init[`r_${kind}`] as bigint[];
      typed[`r_${kind}`] = t === "i64" ? BigInt64Array.from(list) : BigUint64Array.from(list);
    }
    expect(hex(ser.toBinary(DynamicMessage.create(All, typed)))).toBe(want);
    expect(hex(ser.toBinary(typed))).toBe(want);
    const back = ser.fromBinary(bytes);
    for (const [kind] of KINDS) expect(back.get(`r_${kind}`), kind).toEqual(init[`r_${kind}`]);
    expect(gen.fromBinary(bytes)).toEqual(fromBinary(All, bytes));
    expect(hex(ser.toBinary(ser.fromBinary(bytes)))).toBe(want);
  });

  test("jstype = JS_NUMBER: safe values read as numbers, unsafe ones refused, on both reads", () => {
    use();
    const js = ProtobufType.of(JsNumber).createSerializer();
    const safe = [0, 1, -1, 2 ** 31, -(2 ** 32), Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER];
    const init = { n: -(2 ** 40), ns: Array.from({ length: 100 }, () => safe).flat() };
    const bytes = js.toBinary(init);
    for (const lazyMin of [Infinity, 0]) {
      const back = viaCore(lazyMin, () => js.fromBinary(bytes));
      expect(back.get("n")).toBe(-(2 ** 40));
      expect(back.get("ns")).toEqual(init.ns);
    }
    // 2^53 in the sint64 run (zigzag 2^54): refused by the core either way.
    const unsafe = new Uint8Array([0x12, 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40]);
    expect(() => viaCore(Infinity, () => js.fromBinary(unsafe))).toThrow(expect.objectContaining({ code: "UNSAFE_INTEGER" }));
  });
});

test("both settings give the same bytes for random 64-bit values (5,000 of each kind: two write blocks), from arrays and typed arrays", () => {
  let x = 0x9e3779b97f4a7c15n;
  const next = (): bigint => {
    x ^= x << 13n;
    x ^= x >> 7n;
    x ^= x << 17n;
    x = BigInt.asUintN(64, x);
    // magnitudes spread over 0..64 bits
    return x >> BigInt(Number(x % 65n));
  };
  const init: Record<string, unknown> = {};
  for (const [kind, , t] of KINDS) {
    init[`r_${kind}`] = Array.from({ length: 5000 }, () => (t === "i64" ? BigInt.asIntN(64, next()) : next()));
  }
  const typed: Record<string, unknown> = {};
  for (const [kind, , t] of KINDS) {
    const list = init[`r_${kind}`] as bigint[];
    // Views at an offset into a larger buffer: the halves are read from the view's own bytes.
    const buffer = new ArrayBuffer(8 * (list.length + 3));
    const view = t === "i64" ? new BigInt64Array(buffer, 16, list.length) : new BigUint64Array(buffer, 16, list.length);
    view.set(list as never);
    typed[`r_${kind}`] = view;
  }
  const ser = ProtobufType.of(All).createSerializer();
  const out: string[] = [];
  for (const [, dataView] of MODES) {
    setInt64ViaDataView(dataView);
    const bytes = ser.toBinary(init);
    out.push(hex(bytes), hex(ser.toBinary(DynamicMessage.create(All, init))), hex(ser.toBinary(typed)));
    const back = ser.fromBinary(bytes);
    for (const [kind] of KINDS) expect(back.get(`r_${kind}`), kind).toEqual(init[`r_${kind}`]);
  }
  const want = hex(toBinary(All, create(All, esInit(init))));
  expect(out).toEqual([want, want, want, want, want, want]);
});
