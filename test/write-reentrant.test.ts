// A value read during a write can run any code: a getter (or a Proxy) on an init object or a
// protobuf-es message may encode, decode, validate, convert JSON or release the core's memory with
// the same serializer, another kind's, or into the same FrameWriter. The writers keep their state
// per write (a pool of writers, leases on the output arena) and the core keeps none across calls,
// so each write, the outer one included, must produce the bytes it produces without the getter's
// side effect.
import { expect, test } from "vitest";
import { create, toBinary } from "@bufbuild/protobuf";
import { DynamicMessage, FrameWriter, ProtobufType, releaseMemory } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";
const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const gen = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();
const other = { f_string: "o".repeat(5000), r_int32: Array.from({ length: 3000 }, (_, i) => i * 7919), m_string: { a: "b" }, children: [{ f_int32: 3, f_string: "zz" }] };
const otherBytes = ser.toBinary(other as never);
const big = ser.toBinary({ f_string: "w".repeat(3_000_000) } as never);
const frames = ser.encodeAll(Array.from({ length: 200 }, (_, i) => ({ f_int32: i, f_string: "s".repeat(300) })) as never);
const sideEffects: [string, () => void][] = [
  ["toBinary other", () => { ser.toBinary(other as never); }],
  ["toBinary other (gen)", () => { gen.toBinary(create(AllTypesSchema, { fString: "x".repeat(9000), rInt32: [1, 2, 3] })); }],
  ["fromBinary big", () => { ser.fromBinary(big); }],
  ["fromBinary other", () => { ser.fromBinary(otherBytes).toObject(); }],
  ["decodeAll", () => { ser.decodeAll(frames); }],
  ["gen decodeAll", () => { gen.decodeAll(frames); }],
  ["encodeAll", () => { ser.encodeAll([other, other] as never); }],
  ["toJson", () => { ser.toJsonString(ser.fromBinary(otherBytes)); }],
  ["fromJson", () => { ser.fromJsonString(JSON.stringify({ fString: "j".repeat(2000), rInt32: [1, 2] })); }],
  ["releaseMemory", () => { releaseMemory(); }],
  ["fromBinary big + release", () => { ser.fromBinary(big); releaseMemory(); }],
  ["validate", () => { ser.validate(otherBytes); }],
];
function plainWith(fx: () => void) {
  const o: Record<string, unknown> = { f_int32: 42, r_string: ["a", "b"] };
  let n = 0;
  Object.defineProperty(o, "f_string", { enumerable: true, get() { if (n++ < 3) fx(); return "mid-" + "m".repeat(3000); } });
  o.children = [{ f_int32: 1, f_string: "c".repeat(400) }];
  o.r_int64 = [1n, 2n, -3n];
  return o;
}
test("dynamic kind: every write path, with each side effect inside a getter", () => {
  const ref = ser.toBinary(plainWith(() => {}) as never);
  const refFrame = ser.encode(plainWith(() => {}) as never);
  for (const [name, fx] of sideEffects) {
    expect(ser.toBinary(plainWith(fx) as never), name + " toBinary").toEqual(ref);
    expect(ser.encode(plainWith(fx) as never), name + " encode").toEqual(refFrame);
    expect(ser.encodeAll([plainWith(fx), plainWith(fx)] as never), name + " encodeAll").toEqual(new Uint8Array([...refFrame, ...refFrame]));
    const w = new FrameWriter();
    ser.serialize(plainWith(fx) as never, w);
    ser.serialize(plainWith(fx) as never, w);
    expect(w.view().slice(), name + " FrameWriter").toEqual(new Uint8Array([...refFrame, ...refFrame]));
    const dm = DynamicMessage.create(All, plainWith(fx) as never);
    expect(ser.toBinary(dm), name + " create").toEqual(ref);
  }
});
function genWith(fx: () => void) {
  const o = create(AllTypesSchema, { fInt32: 42, rString: ["a", "b"], children: [create(AllTypesSchema, { fInt32: 1, fString: "c".repeat(400) })], rInt64: [1n, 2n, -3n] }) as any;
  let n = 0;
  Object.defineProperty(o, "fString", { enumerable: true, get() { if (n++ < 3) fx(); return "mid-" + "m".repeat(3000); } });
  return o;
}
test("generated kind: toBinary and encodeAll, with each side effect inside a getter", () => {
  const ref = toBinary(AllTypesSchema, create(AllTypesSchema, { fInt32: 42, fString: "mid-" + "m".repeat(3000), rString: ["a", "b"], children: [create(AllTypesSchema, { fInt32: 1, fString: "c".repeat(400) })], rInt64: [1n, 2n, -3n] }));
  for (const [name, fx] of sideEffects) {
    expect(gen.toBinary(genWith(fx)), name + " gen toBinary").toEqual(ref);
    const all = gen.encodeAll([genWith(fx), genWith(fx)]);
    expect(gen.decodeAll(all).map((m) => toBinary(AllTypesSchema, m)), name + " gen encodeAll").toEqual([ref, ref]);
  }
});
test("a getter that serializes into the same FrameWriter: its frame first, then the outer one", () => {
  const dynInner = { f_int32: 7, f_string: "inner".repeat(100) };
  const genInner = create(AllTypesSchema, { fInt32: 7, fString: "inner".repeat(100) });
  const w1 = new FrameWriter(16);
  ser.serialize(plainWith(() => ser.serialize(dynInner as never, w1)) as never, w1);
  expect(w1.view().slice()).toEqual(new Uint8Array([...ser.encode(dynInner as never), ...ser.encode(plainWith(() => {}) as never)]));
  const w2 = new FrameWriter(16);
  gen.serialize(genWith(() => gen.serialize(genInner, w2)), w2);
  expect(w2.view().slice()).toEqual(new Uint8Array([...gen.encode(genInner), ...gen.encode(genWith(() => {}))]));
});
test("generated kind: a side effect inside a packed list's element, while the run is being written", () => {
  // The generated writer reads a packed 32-bit list element by element as it writes the run
  // (FieldWriter.varintRun): the getter runs with the outer output half written.
  const withElement = (fx: () => void, at: number) => {
    const o = create(AllTypesSchema, { fInt32: 42, fString: "s".repeat(5000), children: [create(AllTypesSchema, { fInt32: 1 })] }) as any;
    const list = Array.from({ length: 9000 }, (_, i) => i * 7919 - 4_000_000);
    let n = 0;
    Object.defineProperty(list, at, { enumerable: true, get() { if (n++ < 3) fx(); return -1; } });
    o.rInt32 = list;
    return o;
  };
  const plainList = Array.from({ length: 9000 }, (_, i) => i * 7919 - 4_000_000);
  for (const at of [0, 4500, 8999]) {
    const expected = plainList.slice();
    expected[at] = -1;
    const ref = toBinary(AllTypesSchema, create(AllTypesSchema, { fInt32: 42, fString: "s".repeat(5000), children: [create(AllTypesSchema, { fInt32: 1 })], rInt32: expected }));
    for (const [name, fx] of sideEffects) {
      expect(gen.toBinary(withElement(fx, at)), `${name} at ${at}`).toEqual(ref);
      const w = new FrameWriter();
      gen.serialize(withElement(() => gen.serialize(create(AllTypesSchema, { fInt32: 7 }), w), at), w);
      expect(w.view().slice(), `${name} at ${at}: FrameWriter`).toEqual(new Uint8Array([...gen.encode(create(AllTypesSchema, { fInt32: 7 })), ...gen.encode(withElement(() => {}, at))]));
    }
  }
});
