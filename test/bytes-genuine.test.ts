// Bytes are genuine Uint8Arrays (Node's Buffer and other subclasses included). `instanceof` alone
// also passes a Proxy of one, or an object whose prototype is Uint8Array.prototype, whose reads
// run code or throw the engine's own TypeError: a Proxy input whose trap called decodeAll on other
// bytes mid-copy made decodeAll return that other input's values (and decode return undefined),
// and a Proxy in a bytes field threw "Method get TypedArray.prototype.length called on
// incompatible receiver" from inside a write.
import { create } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, FrameReader, ProtobufType } from "../src/index.js";
import { pbjsType } from "./adversarial/support.js";

const type = ProtobufType.of(pbjsType("message M { bytes b = 1; repeated bytes rb = 2; map<string, bytes> mb = 3; int32 n = 4; }", "M"));
const M = type.descriptor;
const ser = type.createSerializer();
const gser = ProtobufType.ofGenerated(M).createSerializer();
const VALID = ser.toBinary({ n: 1 });

const forwarding = <T extends object>(t: T): T =>
  new Proxy(t, {
    get: (target, k) => {
      const v = Reflect.get(target, k) as unknown;
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
const FAKES: [string, () => Uint8Array][] = [
  ["a forwarding Proxy of a Uint8Array", () => forwarding(Uint8Array.from(VALID))],
  ["a Proxy with no traps", () => new Proxy(Uint8Array.from(VALID), {})],
  ["an object made from Uint8Array.prototype", () => Object.create(Uint8Array.prototype) as Uint8Array],
];
const GOT = "an object that passes instanceof Uint8Array but is not one (a Proxy?)";

describe.each(FAKES)("%s", (_name, fake) => {
  test.each<[string, (b: Uint8Array) => unknown]>([
    ["fromBinary", (b) => ser.fromBinary(b)],
    ["decode", (b) => ser.decode(b)],
    ["decodeAll", (b) => ser.decodeAll(b)],
    ["validate", (b) => ser.validate(b)],
    ["validateAll", (b) => ser.validateAll(b)],
    ["the generated kind's fromBinary", (b) => gser.fromBinary(b)],
  ])("%s: NOT_BYTES", (_read, read) => {
    let e: unknown;
    try {
      read(fake());
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(CodecError);
    expect([(e as CodecError).code, (e as CodecError).message]).toEqual(["NOT_BYTES", `cannot decode M: expected a Uint8Array, got ${GOT}`]);
  });

  test("FrameReader refuses it", () => {
    expect(() => new FrameReader(fake())).toThrow(new TypeError("FrameReader expects a Uint8Array"));
  });

  test("decodeStream refuses it as a chunk", async () => {
    let e: unknown;
    try {
      for await (const _ of ser.decodeStream([fake()])) void _;
    } catch (x) {
      e = x;
    }
    expect((e as CodecError).code).toBe("NOT_BYTES");
  });

  test.each<[string, (b: Uint8Array) => Record<string, unknown>, string]>([
    ["a bytes field", (b) => ({ b }), "field M.b(1)"],
    ["a list element", (b) => ({ rb: [new Uint8Array(1), b] }), "field M.rb(2)[1]"],
    ["a map value", (b) => ({ mb: { k: b } }), 'field M.mb(3)["k"]'],
  ])("in %s: create's TypeError, from create and from every write of the init object", (_where, init, path) => {
    const want = new TypeError(`${path} expects bytes (Uint8Array), got ${GOT}`);
    expect(() => DynamicMessage.create(M, init(fake()))).toThrow(want);
    expect(() => ser.toBinary(init(fake()))).toThrow(want);
    expect(() => ser.encodeAll([init(fake())])).toThrow(want);
  });

  test("the builder and setUnknownFields refuse it", () => {
    expect(() => DynamicMessage.newBuilder(M).set("b", fake())).toThrow(new TypeError(`field M.b(1) expects bytes (Uint8Array), got ${GOT}`));
    expect(() => DynamicMessage.newBuilder(M).setUnknownFields(new Map([[9, [fake()]]]))).toThrow(TypeError);
  });

  test("a generated value holding it is refused before any byte is written", () => {
    const v = create(M, {}) as unknown as Record<string, unknown>;
    v.b = fake();
    expect(() => gser.toBinary(v as never)).toThrow(expect.objectContaining({ message: expect.stringContaining(GOT) }));
    const u = create(M, {}) as unknown as Record<string, unknown>;
    u.$unknown = [{ no: 9, wireType: 2, data: fake() }];
    expect(() => gser.toBinary(u as never)).toThrow(expect.objectContaining({ code: "GENERATED_UNKNOWN_INVALID" }));
  });
});

test("a Node Buffer and other subclasses are bytes", () => {
  class Sub extends Uint8Array {}
  for (const b of [Buffer.from(VALID), Sub.from(VALID)]) {
    expect(ser.fromBinary(b).get("n")).toBe(1);
    expect(ser.toBinary({ b })).toEqual(ser.toBinary({ b: Uint8Array.from(b) }));
  }
});
