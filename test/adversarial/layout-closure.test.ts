// Hardening items 8 and 13, codec side. A chain of ≥ 1200 message types overflowed the JS stack
// while compiling layouts, left half-built layouts cached, and from then on every decode threw
// TypeError while validate() accepted malformed input: layouts are now compiled for a whole
// closure without recursion and registered only when all are complete. Restoring the same
// serializer again and again grew the layout table forever: equal closures now share records, and
// records of closures nobody can reach are freed.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, test } from "vitest";
import { layoutOf } from "../../src/codec/layout.js";
import { CodecError, DynamicMessage, InvalidDescriptorError, ProtobufType, readSnapshot, writeSnapshot } from "../../src/index.js";
import { tableStats } from "../../src/wasm/table.js";
import { acme, messageOf, T } from "../support/descriptors.js";
import { ld, varint } from "./support.js";

/** T0 → T1 → … → T(n-1), each `{ T(i+1) next = 1; int32 v = 2; string s = 3; }`. */
function chain(n: number, extra: (i: number) => object[] = () => []) {
  const messageType = Array.from({ length: n }, (_, i) => ({
    name: `T${i}`,
    field: [
      ...(i + 1 < n ? [{ name: "next", number: 1, label: 1, type: T.MESSAGE, typeName: `.acme.T${i + 1}` }] : []),
      { name: "v", number: 2, label: 1, type: T.INT32 },
      { name: "s", number: 3, label: 1, type: T.STRING },
      ...extra(i),
    ],
  }));
  return messageOf([acme({ messageType })], "acme.T0");
}

/** A value nested `depth` levels: next { next { … { v: depth } } }, as bytes. */
function nestedBytes(depth: number): Uint8Array {
  let body: number[] = [0x10, ...varint(depth)];
  for (let i = 1; i < depth; i++) body = ld(1, body);
  return Uint8Array.from(body);
}

describe("layouts of long chains", () => {
  test.each([1200, 5000, 20_000])("a %i-type chain decodes, validates and rejects malformed input", (n) => {
    const T0 = chain(n);
    const ser = ProtobufType.newBuilder(T0).maxDepth(10_000).maxMessageBytes(1 << 28).build().createSerializer();
    const depth = Math.min(n, 9_000);
    const bytes = nestedBytes(depth);
    ser.validate(bytes);
    let v = ser.fromBinary(bytes);
    for (let i = 1; i < depth; i++) v = v.get("next") as DynamicMessage;
    expect(v.get("v")).toBe(depth);
    // Malformed at the bottom: a string that is not UTF-8.
    const bad = (() => {
      let body: number[] = ld(3, [0xff]);
      for (let i = 1; i < depth; i++) body = ld(1, body);
      return Uint8Array.from(body);
    })();
    expect(() => ser.validate(bad)).toThrow(CodecError);
    expect(() => ser.fromBinary(bad)).toThrow(CodecError);
    const again = ProtobufType.newBuilder(T0).maxDepth(10_000).build().createSerializer();
    expect(() => again.validate(bad)).toThrow(expect.objectContaining({ code: "INVALID_UTF8" }));
  });

  test("a closure that fails a check leaves nothing behind, and fails the same way again", () => {
    // A duplicate number deep in the chain (descriptor libraries accept it; protokeel must not).
    const T0 = chain(3000, (i) => (i === 2500 ? [{ name: "dup", number: 2, label: 1, type: T.INT32 }] : []));
    const before = tableStats();
    const first = (() => {
      try {
        layoutOf(T0);
      } catch (e) {
        return e as InvalidDescriptorError;
      }
      throw new Error("expected a failure");
    })();
    expect(first).toBeInstanceOf(InvalidDescriptorError);
    expect(first.code).toBe("FIELD_NUMBER_DUPLICATE");
    expect(first.message).toBe("invalid descriptor acme.T2500: field number 2 is declared twice in acme.T2500; give each field its own number");
    expect(tableStats()).toEqual(before);
    expect(() => layoutOf(T0)).toThrow(first.message);
    // A type in the middle, whose closure is valid, compiles on its own.
    const mid = (T0.file.messages.find((m) => m.name === "T2600"))!;
    expect(layoutOf(mid).fullName).toBe("acme.T2600");
  });
});

describe("layout records are shared and reclaimed", () => {
  const fields = Array.from({ length: 300 }, (_, i) => ({ name: `f${i}`, number: i + 1, label: 1, type: i % 3 === 0 ? T.STRING : T.INT64 }));
  const Wide = messageOf([acme({ messageType: [{ name: "Wide", field: fields }] })], "acme.Wide");
  const snapshot = writeSnapshot(ProtobufType.of(Wide).createSerializer().snapshotConfiguration());
  const sample = ProtobufType.of(Wide).createSerializer().toBinary(DynamicMessage.create(Wide, { f0: "x", f1: 7n }));

  test("1,000 restores of one snapshot, each decoding, add no records", () => {
    readSnapshot(snapshot).restoreSerializer().fromBinary(sample);
    const before = tableStats();
    for (let i = 0; i < 1000; i++) {
      const ser = readSnapshot(snapshot).restoreSerializer();
      expect(ser.fromBinary(sample).get("f0")).toBe("x");
    }
    expect(tableStats().records).toBe(before.records);
  });

  test("records of distinct schemas are freed once their descriptors are gone", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const settle = async () => {
      for (let i = 0; i < 5; i++) {
        gc();
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await settle();
    const before = tableStats();
    (() => {
      for (let i = 0; i < 200; i++) {
        const M = messageOf([acme({ messageType: [{ name: `M${i}`, field: fields.slice(0, 50 + i) }] })], `acme.M${i}`);
        ProtobufType.of(M).createSerializer().fromBinary(Uint8Array.of(0x10, 0x01));
      }
    })();
    expect(tableStats().records).toBeGreaterThan(before.records);
    await settle();
    expect(tableStats().records).toBe(before.records);
    expect(tableStats().words).toBe(before.words);
  });
});
