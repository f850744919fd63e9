// A value's state must stay in ordinary properties. For a while DynamicMessage.descriptor was a
// getter over a #private field (to refuse assignment), and a value's whole state was moved into
// #private fields (so that Object.freeze would not stop its memos); both broke what applications
// rely on (found by a helper's attack pass), so descriptor is a getter over an ordinary property
// and freezing is handled where the codec writes (test/value-frozen.test.ts):
// 1. A Proxy of a value (Vue 3's reactive() proxies any plain-Object-tagged class instance; a
//    logging or read-only wrapper): every method runs with `this` = the proxy, and a private
//    field cannot be read through one ("Cannot read private member #desc from an object whose
//    class did not declare it").
// 2. Structural equality (node:assert.deepStrictEqual, util.isDeepStrictEqual, Jest/Vitest
//    toEqual): with no own properties left, any two values compared equal, of any content or type.
// 3. structuredClone (below).
import { isDeepStrictEqual } from "node:util";
import { describe, expect, test } from "vitest";
import { DynamicMessage } from "../../src/index.js";
import { typeOf } from "./support.js";

const type = typeOf("message Inner { int32 a = 1; } message M { string s = 1; Inner in = 2; } message N { string s = 1; }", "M");
const M = type.descriptor;
const N = typeOf("message N { string s = 1; }", "N").descriptor;
const ser = type.createSerializer();
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

function outcome(f: () => unknown): unknown {
  try {
    return f();
  } catch (e) {
    return `throws ${(e as Error).name}: ${(e as Error).message}`;
  }
}

const VALUES: [string, () => DynamicMessage][] = [
  ["a decoded value", () => ser.fromBinary(ser.toBinary({ s: "x", in: { a: 1 } }))],
  ["a created value", () => DynamicMessage.create(M, { s: "x", in: { a: 1 } })],
];

// [use of the proxy, expected]
const USES: [string, (p: DynamicMessage, v: DynamicMessage) => unknown, unknown][] = [
  ["descriptor", (p) => p.descriptor.typeName, "M"],
  ["get", (p) => p.get("s"), "x"],
  ["has", (p) => p.has("in"), true],
  ["toObject", (p) => JSON.stringify(p.toObject()), '{"s":"x","in":{"a":1}}'],
  ["JSON.stringify", (p) => JSON.stringify(p), '{"s":"x","in":{"a":1}}'],
  ["equals (value.equals(proxy))", (p, v) => v.equals(p), true],
  ["toBinary", (p) => hex(ser.toBinary(p)), "0a017812020801"],
  ["nested in create", (p) => hex(ser.toBinary(DynamicMessage.create(M, { s: "z", in: p.get("in") as DynamicMessage }))), "0a017a12020801"],
  ["toBuilder", (p) => p.toBuilder().set("s", "y").build().get("s"), "y"],
];

describe.each(VALUES)("a Proxy of %s", (_name, make) => {
  // Fails now: each throws TypeError (Cannot read private member ...).
  test.each(USES)("%s", (_use, use, expected) => {
    const v = make();
    expect(outcome(() => use(new Proxy(v, {}), v))).toEqual(expected);
  });
});

describe("structural equality outside the repo's vitest tester", () => {
  // [pair, expected isDeepStrictEqual]
  const PAIRS: [string, () => [DynamicMessage, DynamicMessage], boolean][] = [
    ["same type, different content", () => [DynamicMessage.create(M, { s: "a" }), DynamicMessage.create(M, { s: "b" })], false],
    ["different types", () => [DynamicMessage.create(M, { s: "a" }), DynamicMessage.create(N, { s: "a" })], false],
    ["same content", () => [DynamicMessage.create(M, { s: "a" }), DynamicMessage.create(M, { s: "a" })], true],
  ];
  // Fails now for the first two rows: true (no own properties to compare).
  test.each(PAIRS)("util.isDeepStrictEqual, %s", (_name, pair, expected) => {
    const [a, b] = pair();
    expect(isDeepStrictEqual(a, b)).toBe(expected);
  });
});

// 3. structuredClone / postMessage of a value: it used to throw DataCloneError (the descriptor's
//    functions cannot be cloned), so a value posted to a worker failed loudly; with no own
//    properties left it now clones silently to `{}`: the worker receives an empty plain object.
describe("structuredClone of a value fails loudly instead of arriving as {}", () => {
  // Fails now for every row: the clone is {}.
  test.each(VALUES.concat([["the default instance", () => DynamicMessage.getDefaultInstance(M)]]))("%s", (_name, make) => {
    expect(outcome(() => JSON.stringify(structuredClone(make())))).toMatch(/^throws DataCloneError: /);
  });
});
