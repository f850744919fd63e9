// A repeated numeric field given as a list whose `length` runs code that changes the list (an
// array Proxy's trap, a typed-array subclass over a resizable buffer): each write reads the
// length once, so a packed run's header and body always agree, and what is written (or stored
// by create) is the list as it was at that read. A packed fixed-width header sized by one read
// and a body by another wrote bytes that did not parse or swallowed the next field; create
// stored NaN past the end of the list.
import { create } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { splitFrames } from "./support/differential.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";

const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const det = ProtobufType.newBuilder(All).deterministic(true).build().createSerializer();
const gen = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();

type Change = (list: unknown[]) => void;
const changes: [string, Change][] = [
  ["shrinks to 2", (l) => void (l.length = 2)],
  ["grows by 5", (l) => void l.push(...l.slice(0, 5))],
  ["empties", (l) => void (l.length = 0)],
];

/** [proto name, local name, 12 elements] of fixed-width and varint repeated fields. */
const fields: [string, string, unknown[]][] = [
  ["r_double", "rDouble", Array.from({ length: 12 }, (_, i) => i + 0.5)],
  ["r_float", "rFloat", Array.from({ length: 12 }, (_, i) => i + 0.25)],
  ["r_fixed32", "rFixed32", Array.from({ length: 12 }, (_, i) => i * 1000)],
  ["r_sfixed32", "rSfixed32", Array.from({ length: 12 }, (_, i) => -i)],
  ["r_fixed64", "rFixed64", Array.from({ length: 12 }, (_, i) => BigInt(i) << 40n)],
  ["r_sfixed64", "rSfixed64", Array.from({ length: 12 }, (_, i) => -BigInt(i))],
  ["r_int32", "rInt32", Array.from({ length: 12 }, (_, i) => i * -300)],
  ["r_sint64", "rSint64", Array.from({ length: 12 }, (_, i) => BigInt(-i))],
];

/** The list as written (floats as float32 holds them). */
function show(list: readonly unknown[]): string {
  return list.map((x) => (typeof x === "number" ? String(Math.fround(x) === x ? x : Math.fround(x)) : String(x))).join(",");
}

/** A Proxy of `target` whose nth read of length applies `change` first. */
function proxied(target: unknown[], nth: number, change: Change): unknown[] {
  let reads = 0;
  return new Proxy(target, {
    get(t, k, r) {
      if (k === "length" && ++reads === nth) change(t);
      return Reflect.get(t, k, r) as unknown;
    },
  });
}

describe("a list whose length read changes it: the bytes parse and hold the list as read", () => {
  const cases = fields.flatMap(([name, local, elems]) => changes.flatMap(([how, change]) => [1, 2, 3, 4].map((nth) => [name, how, nth, local, elems, change] as const)));
  test.each(cases)("%s %s at length read %i", (name, _how, nth, local, elems, change) => {
    for (const [kind, write] of [
      ["toBinary", (v: object) => ser.toBinary(v as never)],
      ["deterministic", (v: object) => det.toBinary(v as never)],
      ["encodeAll", (v: object) => splitFrames(ser.encodeAll([v as never]))[0]!],
    ] as const) {
      const target = [...elems];
      const out = write({ [name]: proxied(target, nth, change), f_string: "TAIL" });
      const back = ser.fromBinary(out);
      // The field after the list survives: the header and the body agree.
      expect(back.get("f_string"), kind).toBe("TAIL");
      // What was written is the list before or after the change, never a mix.
      const got = show(back.get(name) as unknown[]);
      expect([show(elems), show(target)], kind).toContain(got);
    }
    // The generated kind writes protobuf-es' arrays the same way.
    const list = proxied([...elems], nth, change);
    const value = create(AllTypesSchema, { fString: "TAIL" });
    (value as unknown as Record<string, unknown>)[local] = list;
    const out = gen.toBinary(value);
    expect(gen.fromBinary(out).fString).toBe("TAIL");
  });

  test.each(fields.map(([name, , elems]) => [name, elems] as const))("create stores %s as read, never an element past its end", (name, elems) => {
    for (const [, change] of changes) {
      for (const nth of [1, 2, 3]) {
        const list = proxied([...elems], nth, change);
        const stored = DynamicMessage.create(All, { [name]: list }).get(name) as unknown[];
        expect(stored.every((x) => x !== undefined && !(typeof x === "number" && Number.isNaN(x)))).toBe(true);
      }
    }
  });
});

test("a typed-array subclass whose length getter resizes its buffer: one read, consistent bytes", () => {
  for (const newLength of [0, 3, 20]) {
    // Resizable ArrayBuffer (ES2024; Node 20 has it): not in this project's lib.
    const Resizable = ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => ArrayBuffer & { resize(n: number): void };
    const rab = new Resizable(80, { maxByteLength: 800 });
    let calls = 0;
    class Doubles extends Float64Array {
      override get length(): number {
        if (++calls === 2) rab.resize(8 * newLength);
        return super.length;
      }
    }
    const list = new Doubles(rab);
    list.set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const out = ser.toBinary({ r_double: list, f_string: "TAIL" } as never);
    const back = ser.fromBinary(out);
    expect(back.get("f_string")).toBe("TAIL");
    const got = back.get("r_double") as number[];
    // A fitting typed array of exactly its class is taken as is; a subclass is read as a list.
    expect(got).toEqual(Array.from({ length: got.length }, (_, i) => (i < 10 ? i + 1 : 0)));
  }
});
