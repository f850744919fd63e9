// A value the application froze (Object.freeze, or a deep-freeze helper over its state) reads
// and writes as before. The writer records memos on values it writes (_height, _okFor), a lazily
// decoded value caches its fields on first access, and a decoded value caches the view of its
// bytes: on a frozen value each threw the engine's TypeError from toBinary or get (found by a
// helper's attack pass), and a deep-freeze of a lazy value reached and froze the serializer's
// decoder. A value's state is in private fields now, which freezing neither reaches nor stops.
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { messageFromDir } from "./support/buf.js";

const All = messageFromDir("fixtures/all-types", "alltypes.AllTypes");
const type = ProtobufType.of(All);
const ser = type.createSerializer();
const det = ProtobufType.newBuilder(All).deterministic(true).build().createSerializer();
const tight = (d: number) => ProtobufType.newBuilder(All).maxDepth(d).build().createSerializer();
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** Freezes `o` and every object it holds (own properties, internals included), as deep-freeze helpers do. */
function deepFreeze<T>(o: T, seen = new Set<unknown>()): T {
  if (o === null || typeof o !== "object" || seen.has(o) || ArrayBuffer.isView(o) || o instanceof Map) return o;
  seen.add(o);
  for (const k of Reflect.ownKeys(o as object)) deepFreeze((o as Record<string | symbol, unknown>)[k], seen);
  return Object.freeze(o);
}

const init = {
  f_string: "héllo",
  f_int64: -5n,
  r_string: ["a", "b"],
  m_string: { k: "v" },
  mv_message: { k: { name: "leaf", value: 3 } },
  recursive: { f_int32: 7, recursive: { f_string: "deep" } },
};
const unknown = new Uint8Array([0xb8, 0x3e, 0x01]); // field 999, varint 1
const big = { ...init, r_string: Array.from({ length: 600 }, (_, i) => `s${i}`) }; // over 4 KiB: read lazily

const kinds: [string, () => DynamicMessage][] = [
  ["a created value", () => DynamicMessage.create(All, init)],
  ["a built value with unknown fields", () => DynamicMessage.newBuilder(All).set("f_string", "x").setUnknownFields(new Map([[999, [unknown]]])).build()],
  ["a decoded small value", () => ser.fromBinary(ser.toBinary(DynamicMessage.create(All, init)))],
  ["a decoded value with unknown fields", () => ser.fromBinary(new Uint8Array([...ser.toBinary(DynamicMessage.create(All, init)), ...unknown]))],
  ["a lazily decoded value", () => ser.fromBinary(ser.toBinary(DynamicMessage.create(All, big)))],
  ["a value holding a frozen decoded child", () => DynamicMessage.create(All, { recursive: deepFreeze(ser.fromBinary(ser.toBinary(DynamicMessage.create(All, init)))) })],
  [
    "a pool body (no height recorded)",
    () => (ser as unknown as { _lazyBodies(s: Uint8Array, b: number[]): DynamicMessage[] })._lazyBodies(ser.toBinary(DynamicMessage.create(All, init)).slice(), [0, ser.toBinary(DynamicMessage.create(All, init)).length])[0]!,
  ],
];

describe.each(kinds)("%s, frozen", (_, make) => {
  test("writes the bytes the unfrozen value writes, every time and in every form", () => {
    const want = { bin: hex(ser.toBinary(make())), det: hex(det.toBinary(make())), frame: hex(ser.encode(make())) };
    for (const freeze of [Object.freeze, deepFreeze]) {
      const v = freeze(make());
      for (let i = 0; i < 3; i++) {
        expect(hex(ser.toBinary(v))).toBe(want.bin);
        expect(hex(det.toBinary(v))).toBe(want.det);
        expect(hex(ser.encode(v))).toBe(want.frame);
        expect(hex(ser.encodeAll([v, v]))).toBe(want.frame + want.frame);
      }
    }
  });

  test("reads as the unfrozen value", () => {
    const plain = make();
    const v = deepFreeze(make());
    expect(v.toObject()).toEqual(plain.toObject());
    expect(v.equals(plain)).toBe(true);
    expect(v.get("f_string")).toBe(plain.get("f_string"));
    expect([...v.unknownFields.keys()]).toEqual([...plain.unknownFields.keys()]);
    expect(hex(ser.toBinary(v.toBuilder().build()))).toBe(hex(ser.toBinary(plain)));
  });

  test("is refused under a maxDepth it does not fit, as the unfrozen value is", () => {
    const height = (m: DynamicMessage): number => {
      for (let d = 1; d < 20; d++) {
        try {
          tight(d).toBinary(m);
          return d;
        } catch {
          // too deep for d
        }
      }
      return -1;
    };
    const h = height(make());
    const v = deepFreeze(make());
    expect(height(v)).toBe(h);
    if (h > 1) expect(() => tight(h - 1).toBinary(v)).toThrow(expect.objectContaining({ code: "DEPTH_LIMIT_EXCEEDED" }));
  });
});
