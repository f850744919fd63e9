// Generated values as applications may hand them over (the direct writer reads properties by
// for-in, src/codec/generated-writer.ts): proxies, frozen objects, symbol keys, getters,
// Object.prototype pollution, `__proto__` map keys. Each is written as @bufbuild/protobuf's
// toBinary writes it, or refused with the conversion path's error; never an internal error.
import { create, toBinary } from "@bufbuild/protobuf";
import { afterEach, describe, expect, test } from "vitest";
import { ProtobufType } from "../../src/index.js";
import { NodeSchema, OrderSchema } from "../fixtures/generated-es/gen/es_fixtures_pb.js";

const ser = ProtobufType.ofGenerated(OrderSchema).createSerializer();
const nodes = ProtobufType.ofGenerated(NodeSchema).createSerializer();
const base = () => create(OrderSchema, { id: 3n, items: [{ sku: "a", qty: 1 }], bySku: { k: { sku: "b" } }, payment: { case: "card", value: "c" }, note: "n" });

function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === "object" && !(o instanceof Uint8Array)) {
    for (const k of Object.keys(o)) deepFreeze((o as Record<string, unknown>)[k]);
    Object.freeze(o);
  }
  return o;
}

const WRITTEN: [string, () => unknown][] = [
  ["a Proxy of a message", () => new Proxy(base(), {})],
  ["a deeply frozen message", () => deepFreeze(base())],
  ["a symbol-keyed property", () => Object.assign(base(), { [Symbol("x")]: 5 })],
  ["an enumerable getter for a field", () => Object.defineProperty(base(), "note", { get: () => "g", enumerable: true, configurable: true })],
  ["a map key __proto__", () => {
    const v = base();
    Object.defineProperty(v.bySku, "__proto__", { value: create(OrderSchema.field.bySku.message!, { sku: "p" }), enumerable: true, writable: true, configurable: true });
    return v;
  }],
];

describe("written as protobuf-es writes them", () => {
  test.each(WRITTEN)("%s", (_name, make) => {
    const v = make() as never;
    expect(ser.toBinary(v)).toEqual(toBinary(OrderSchema, v));
    expect(ser.encodeAll([v, v]).length).toBe(2 * ser.encode(v).length);
  });
});

describe("Object.prototype polluted with an enumerable property", () => {
  afterEach(() => {
    delete (Object.prototype as Record<string, unknown>).polluted;
  });
  test("an inherited undeclared property is not the value's: written as protobuf-es writes it", () => {
    Object.defineProperty(Object.prototype, "polluted", { value: 7, enumerable: true, configurable: true, writable: true });
    const v = base();
    expect(ser.toBinary(v)).toEqual(toBinary(OrderSchema, v));
    expect(nodes.toBinary(create(NodeSchema, { value: 1, next: { value: 2 } }))).toEqual(toBinary(NodeSchema, create(NodeSchema, { value: 1, next: { value: 2 } })));
  });
});

describe("refused with the conversion path's error", () => {
  test("a getter that throws: its own error, from either path", () => {
    const v = Object.defineProperty(base(), "note", { get: () => { throw new Error("no note today"); }, enumerable: true });
    expect(() => ser.toBinary(v)).toThrow("no note today");
  });

  test("an own undeclared enumerable property holding data", () => {
    const v = Object.assign(base(), { extra: { a: 1 } });
    expect(() => ser.toBinary(v)).toThrow(/has property "extra" holding an object, which esfix.Order does not declare/);
  });

  test("a Proxy whose traps throw", () => {
    const v = new Proxy(base(), { ownKeys: () => { throw new Error("trap"); } });
    expect(() => ser.toBinary(v)).toThrow("trap");
  });
});
