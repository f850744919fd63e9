// Hardening item 16: values from applications. Finite floats beyond float32 were stored as
// Infinity; 64-bit fields took numbers past 2^53 (already rounded); create(desc, new Map()) built
// an empty value; toObject() dropped a field or map key named __proto__ (or made a value the
// result's prototype).
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../../src/index.js";
import { messageOf, T } from "../support/descriptors.js";

// Built from a descriptor set: protobufjs cannot hold a field named __proto__ (its fields are an object).
const Values = messageOf(
  [
    {
      name: "values.proto",
      syntax: "proto3",
      messageType: [
        {
          name: "Values",
          field: [
            { name: "f", number: 1, label: 1, type: T.FLOAT },
            { name: "i", number: 2, label: 1, type: T.INT64 },
            { name: "u", number: 3, label: 1, type: T.UINT64 },
            { name: "fs", number: 4, label: 3, type: T.FLOAT },
            { name: "m", number: 5, label: 3, type: T.MESSAGE, typeName: ".Values.MEntry" },
            { name: "__proto__", number: 6, label: 1, type: T.INT32 },
            { name: "ss", number: 7, label: 3, type: T.SINT64 },
            { name: "mf", number: 8, label: 3, type: T.MESSAGE, typeName: ".Values.MfEntry" },
          ],
          nestedType: [
            { name: "MEntry", options: { mapEntry: true }, field: [{ name: "key", number: 1, label: 1, type: T.STRING }, { name: "value", number: 2, label: 1, type: T.INT32 }] },
            { name: "MfEntry", options: { mapEntry: true }, field: [{ name: "key", number: 1, label: 1, type: T.INT64 }, { name: "value", number: 2, label: 1, type: T.FLOAT }] },
          ],
        },
      ],
    },
  ],
  "Values",
);
const type = ProtobufType.of(Values);
const D = type.descriptor;
const ser = type.createSerializer();

describe("values applications pass in", () => {
  test.each([
    [{ f: 1e40 }, "field Values.f(1) expects float in -3.4028234663852886e+38..3.4028234663852886e+38 (or NaN, ±Infinity), got number 1e+40"],
    [{ f: -3.5e38 }, "field Values.f(1) expects float in -3.4028234663852886e+38..3.4028234663852886e+38 (or NaN, ±Infinity), got number -3.5e+38"],
    [{ fs: [1, 1e39] }, "field Values.fs(4)[1] expects float in -3.4028234663852886e+38..3.4028234663852886e+38 (or NaN, ±Infinity), got number 1e+39"],
    [{ mf: new Map([[1n, 1e39]]) }, "field Values.mf(8)[1] expects float in -3.4028234663852886e+38..3.4028234663852886e+38 (or NaN, ±Infinity), got number 1e+39"],
  ])("%o is a RangeError", (init, message) => {
    expect(() => DynamicMessage.create(D, init)).toThrow(new RangeError(message));
  });

  test("float32 extremes, NaN and infinities are floats", () => {
    for (const f of [3.4028234663852886e38, -3.4028234663852886e38, 1.401298464324817e-45, NaN, Infinity, -Infinity]) {
      const v = DynamicMessage.create(D, { f });
      expect(ser.fromBinary(ser.toBinary(v)).equals(v)).toBe(true);
    }
  });

  test.each([
    [{ i: 2 ** 53 }, "field Values.i(2) expects int64, got number 9007199254740992, which is beyond Number.MAX_SAFE_INTEGER and already rounded; pass a bigint (e.g. 9007199254740992n only if that is the intended value)"],
    [{ u: 1e20 }, "field Values.u(3) expects uint64, got number 100000000000000000000, which is beyond Number.MAX_SAFE_INTEGER and already rounded; pass a bigint (e.g. 100000000000000000000n only if that is the intended value)"],
    [{ ss: [1, -(2 ** 60)] }, "field Values.ss(7)[1] expects sint64, got number -1152921504606847000, which is beyond Number.MAX_SAFE_INTEGER and already rounded; pass a bigint (e.g. -1152921504606846976n only if that is the intended value)"],
  ])("%o is a RangeError that says to pass a bigint", (init, message) => {
    expect(() => DynamicMessage.create(D, init)).toThrow(new RangeError(message));
  });

  test("safe numbers and bigints are fine", () => {
    const v = DynamicMessage.create(D, { i: Number.MAX_SAFE_INTEGER, u: 2n ** 64n - 1n, ss: [-(2 ** 53) + 1] });
    expect(v.get("i")).toBe(BigInt(Number.MAX_SAFE_INTEGER));
  });

  test.each([
    [new Map([["i", 1n]]), "an object Map"],
    [new (class Init {})(), "an object Init"],
    [[1], "an array"],
    [new Date(0), "an object Date"],
  ])("create(desc, %o) refuses a non-plain init", (init, got) => {
    expect(() => DynamicMessage.create(D, init as never)).toThrow(
      new TypeError(`DynamicMessage.create(Values) expects a plain init object (an object literal or Object.create(null)), got ${got}`),
    );
  });

  test("Object.create(null) and JSON.parse inits are plain", () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { i: 5n });
    expect(DynamicMessage.create(D, bare).get("i")).toBe(5n);
    const parsed = JSON.parse('{"__proto__": 7, "m": {"__proto__": 3, "a": 1}}') as Record<string, unknown>;
    const v = DynamicMessage.create(D, parsed);
    expect(v.get("__proto__")).toBe(7);
    expect([...(v.get("m") as Map<string, number>).entries()]).toEqual([["__proto__", 3], ["a", 1]]);
  });

  test("toObject keeps __proto__ fields and map keys as own properties, prototype untouched", () => {
    const v = DynamicMessage.create(D, { ["__proto__"]: 9, m: new Map([["__proto__", 4], ["b", 2]]) });
    const o = v.toObject();
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(o, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(o, "__proto__")!.value).toBe(9);
    const m = o.m as Record<string, unknown>;
    expect(Object.getPrototypeOf(m)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(m, "__proto__")!.value).toBe(4);
    expect(Object.keys(m)).toEqual(["__proto__", "b"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
