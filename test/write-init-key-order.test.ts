// Plain init objects are written as their keys are read while those come in field-number order
// (an object written in declaration order), and a type one of whose init objects lists a field
// after a higher-numbered one is taken back once and written by number from then on. The bytes
// are what DynamicMessage.create builds, written, wherever the take-back happens (after long
// lengths, inside a list, inside a batch), for that value and every later one; create's refusals
// (an undeclared key, two members of a oneof) stand on both paths.
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { thrown } from "./support/thrown.js";

/** A serializer of keyorder.Top over fresh descriptors: what a type learned of key order lives with them. */
function fresh() {
  const r = registryFromDir("fixtures/key-order");
  const top = r.getMessage("keyorder.Top")!;
  return { top, mid: r.getMessage("keyorder.Mid")!, ser: ProtobufType.of(top).createSerializer() };
}

const long = "y".repeat(200);
const mid = (a: string) => ({ a, leaves: [{ s: "l", b: new Uint8Array([1]) }], p_str: "p", n: 3, opt: "o" });
const midReversed = (a: string) => ({ opt: "o", n: 3, p_leaf: { s: long }, leaves: [{ s: long }], leaf: { s: "x" }, a });

const CASES: [string, () => Record<string, unknown>[]][] = [
  ["in order only", () => [{ mid: mid("m"), mids: [mid("a"), mid("b")], tail: "t" }, { mids: [mid(long)] }]],
  ["the root out of order first", () => [{ tail: long, mids: [mid(long)], mid: mid("m") }, { mid: mid("m"), tail: "t" }]],
  ["a list element out of order after long ones", () => [{ mids: [mid(long), mid(long), midReversed("r"), mid("c")], tail: "t" }, { mids: [mid("d")] }]],
  ["in order, then out of order, then in order", () => [{ mids: [mid("a")] }, { mids: [midReversed("b")], mid: midReversed("c") }, { mids: [mid("e")], tail: long }]],
  ["null and undefined fields among them", () => [{ mid: { a: null, n: undefined, opt: "o" }, mids: [], tail: undefined }, { tail: "t", mid: null }]],
];

describe("init objects whose keys are out of field order", () => {
  test.each(CASES)("%s: toBinary and encodeAll write what create builds", (_, values) => {
    const { top, ser } = fresh();
    const expected = values().map((v) => ser.toBinary(DynamicMessage.create(top, v)));
    values().forEach((v, i) => expect(ser.toBinary(v), `value ${i}`).toEqual(expected[i]));
    const { ser: batch } = fresh();
    const frames = batch.encodeAll(values());
    expect(batch.decodeAll(frames).map((m) => batch.toBinary(m))).toEqual(expected);
    expect(batch.encodeAll(values())).toEqual(frames);
  });

  test.each([
    ["an undeclared key after written fields", { a: "x", n: 1, nope: 2 }, "field name"],
    ["two members of a oneof", { a: "x", p_str: "p", p_leaf: { s: "q" } }, "oneof"],
  ])("%s is create's error", (_, init, word) => {
    const { mid } = fresh();
    const ser = ProtobufType.of(mid).createSerializer();
    const e = thrown(() => ser.toBinary(init));
    const c = thrown(() => DynamicMessage.create(mid, init));
    expect(e).toEqual(c);
    expect(String((e as Error).message)).toContain(word);
  });
});
