// Differential properties over random schemas across descriptor instances and schema versions
// (issue 11, "Random schemas"): values bound to one instance of a schema and written by a
// serializer of another instance — another registry of the same files, or the README's
// restore-then-upgrade flow (`readSnapshot(writeSnapshot(ser.snapshotConfiguration()))
// .restoreSerializer()`) — eager and lazy; and relays through an older and a newer version of a
// generated schema (fields added with fresh numbers, fields removed with their numbers reserved):
// a reader that does not know a field keeps it as an unknown field and relays it, a reader that
// knows it reads it, and @bufbuild/protobuf agrees with both.
import { create, toBinary, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType, evaluateSchemaChange, readSnapshot, writeSnapshot, type ProtobufSerializer } from "../src/index.js";
import { messageArb, type Sample } from "./support/arbitrary-message.js";
import { evolvePlanArb, evolveSchema, sameSchemaAgain, schemaArb, type Schema } from "./support/arbitrary-schema.js";
import { contentOf, esContent, frame, isLazy, padWithUnknown, splitFrames } from "./support/differential.js";
import { check, trickyStrings } from "./support/property.js";

const strings = trickyStrings();
const values = (d: DescMessage, max: number) => fc.array(messageArb(d, 2, { maxItems: 3, maxMapEntries: 3, strings }), { minLength: 1, maxLength: max });
const esBytesOf = (d: DescMessage, sample: Sample) => toBinary(d, create(d, sample.es as never));
const restoredFrom = (ser: ProtobufSerializer) => readSnapshot(writeSnapshot(ser.snapshotConfiguration())).restoreSerializer();

/** True when `v`, at any level, holds an unknown field that `later` declares in the same type. */
function collides(v: DynamicMessage, later: Schema): boolean {
  const declared = later.registry.getMessage(v.descriptor.typeName)?.fields.map((f) => f.number) ?? [];
  if ([...v.unknownFields.keys()].some((n) => declared.includes(n))) return true;
  const nested = (x: unknown) => x instanceof DynamicMessage && collides(x, later);
  return v.descriptor.fields.some((f) => {
    if (f.fieldKind === "list") return (v.getField(f) as readonly unknown[]).some(nested);
    if (f.fieldKind === "map") return [...(v.getField(f) as ReadonlyMap<unknown, unknown>).values()].some(nested);
    return v.hasField(f) && nested(v.getField(f));
  });
}

describe("another descriptor instance of the same schema", () => {
  test("created, decoded and lazy values of each instance written by serializers of the others read back as the same content", () => {
    const arb = schemaArb({ wideOneofWeight: 1 }).chain((s) => fc.tuple(fc.constant(s), values(s.root, 3)));
    check("cross-instance writes", 40, arb, ([s, samples]) => {
      const ser = ProtobufType.of(s.root).createSerializer();
      const det = ProtobufType.newBuilder(s.root).deterministic(true).build().createSerializer();
      const other = sameSchemaAgain(s);
      expect(other.root).not.toBe(s.root);
      const serB = ProtobufType.of(other.root).createSerializer();
      const restored = restoredFrom(ser);
      const R = restored.type.descriptor;
      expect(R).not.toBe(s.root);
      const readers = new Map<DescMessage, ProtobufSerializer>([[s.root, ser], [other.root, serB], [R, restored]]);
      const writers = [ser, det, serB, restored];
      const batch: DynamicMessage[] = [];
      const wants: string[] = [];
      for (const sample of samples) {
        const esBytes = esBytesOf(s.root, sample);
        const padded = padWithUnknown(s.root, esBytes).bytes;
        const want = esContent(s.root, esBytes);
        const wantPadded = esContent(s.root, padded);
        const cases: [DynamicMessage, string][] = [
          [DynamicMessage.create(s.root, sample.ours), want],
          [DynamicMessage.create(other.root, sample.ours), want],
          [restored.fromBinary(esBytes), want],
          [serB.decode(frame(esBytes)), want],
          [ser.fromBinary(padded), wantPadded],
          [restored.fromBinary(padded), wantPadded],
        ];
        expect(isLazy(cases[5]![0])).toBe(true);
        for (const [value, expected] of cases) {
          batch.push(value);
          wants.push(expected);
          for (const w of writers) {
            const out = w.toBinary(value);
            expect(esContent(s.root, out)).toBe(expected);
            expect(readers.get(value.descriptor)!.fromBinary(out).equals(value)).toBe(true);
          }
        }
      }
      // Batches of values of every instance, lazy ones included (hardening item 1's flow).
      for (const w of writers) {
        const frames = w.encodeAll(batch);
        expect(splitFrames(frames).map((b) => esContent(s.root, b))).toEqual(wants);
        ser.decodeAll(frames).forEach((d, i) => expect(contentOf(d)).toEqual(contentOf(batch[i]!)));
      }
    });
  });
});

describe("an older and a newer version of a generated schema", () => {
  const versions = schemaArb({ wideOneofWeight: 1 })
    .chain((s) => fc.tuple(fc.constant(s), evolvePlanArb))
    .map(([s, e]) => [s, evolveSchema(s, e)] as const)
    .chain(([a, b]) => fc.tuple(fc.constant(a), fc.constant(b), values(a.root, 2), values(b.root, 2)));

  function readers(a: Schema, b: Schema) {
    // The earlier version's reader is restored from a snapshot, as a program that saved it would.
    const serA = restoredFrom(ProtobufType.of(a.root).createSerializer());
    const detA = restoredFrom(ProtobufType.newBuilder(a.root).deterministic(true).build().createSerializer());
    const serB = ProtobufType.of(b.root).createSerializer();
    return { serA, detA, serB, A: serA.type.descriptor, B: b.root };
  }

  test("the evolution is compatible (docs/design.md §9): the earlier version as saved, the later as current", () => {
    check("versions compatible", 40, versions, ([a, b]) => {
      const r = evaluateSchemaChange(a.root, b.root);
      expect(r.incompatibilities).toEqual([]);
      expect(r.compatible).toBe(true);
    });
  });

  test("the earlier version's reader keeps the later version's fields as unknown fields and relays them", () => {
    check("relay through older", 50, versions, ([a, b, , samplesB]) => {
      const { serA, detA, serB, B } = readers(a, b);
      for (const sample of samplesB) {
        const bytes = esBytesOf(B, sample);
        const expected = DynamicMessage.create(B, sample.ours);
        for (const input of [bytes, padWithUnknown(B, bytes, { versions: [a.root] }).bytes]) {
          const old = serA.fromBinary(input);
          const want = esContent(B, input);
          for (const relay of [serA.toBinary(old), detA.toBinary(old), splitFrames(serA.encodeAll([old, old]))[1]!]) {
            expect(esContent(B, relay)).toBe(want);
            const back = serB.fromBinary(relay);
            if (input === bytes) expect(back.equals(expected)).toBe(true);
            expect(esContent(B, serB.toBinary(back))).toBe(want);
          }
          // The same bytes as the older schema's content in @bufbuild/protobuf.
          expect(esContent(a.root, serA.toBinary(old))).toBe(esContent(a.root, input));
          // Upgrading a value that holds the later version's fields as unknown fields collides.
          if (collides(old, b)) {
            expect(() => serB.toBinary(old)).toThrow(CodecError);
            try {
              serB.toBinary(old);
            } catch (e) {
              expect((e as CodecError).code).toBe("UNKNOWN_FIELD_COLLISION");
            }
          } else expect(esContent(B, serB.toBinary(old))).toBe(want);
        }
      }
    });
  });

  test("the later version's reader keeps removed fields as unknown fields and relays them to the earlier reader", () => {
    check("relay through newer", 50, versions, ([a, b, samplesA]) => {
      const { serA, serB, A } = readers(a, b);
      for (const sample of samplesA) {
        const bytes = esBytesOf(a.root, sample);
        for (const input of [bytes, padWithUnknown(a.root, bytes, { versions: [b.root] }).bytes]) {
          const newer = serB.fromBinary(input);
          const relay = serB.toBinary(newer);
          expect(esContent(a.root, relay)).toBe(esContent(a.root, input));
          expect(esContent(b.root, relay)).toBe(esContent(b.root, input));
          expect(serA.fromBinary(relay).equals(serA.fromBinary(input))).toBe(true);
          if (input === bytes) expect(contentOf(serA.fromBinary(relay))).toEqual(contentOf(DynamicMessage.create(A, sample.ours)));
        }
      }
    });
  });

  test("restore-then-upgrade: values the restored earlier reader decoded, written in a batch by the later serializer", () => {
    check("upgrade batches", 50, versions, ([a, b, samplesA]) => {
      const { serA, serB, B } = readers(a, b);
      const bodies = samplesA.flatMap((x) => {
        const bytes = esBytesOf(a.root, x);
        return [bytes, padWithUnknown(a.root, bytes, { versions: [b.root] }).bytes];
      });
      // decodeAll (eager) and fromBinary (lazy for the padded ones) values, mixed.
      const old = [...serA.decodeAll(new Uint8Array(bodies.flatMap((x) => [...frame(x)]))), ...bodies.map((x) => serA.fromBinary(x))];
      const wants = [...bodies, ...bodies].map((x) => esContent(B, x));
      const upgraded = serB.encodeAll(old);
      expect(splitFrames(upgraded).map((x) => esContent(B, x))).toEqual(wants);
      const back = serB.decodeAll(upgraded);
      expect(back.map((v) => esContent(B, serB.toBinary(v)))).toEqual(wants);
      // The old values are unchanged, and read back through the earlier schema as they were.
      old.forEach((v, i) => expect(esContent(a.root, serA.toBinary(v))).toBe(esContent(a.root, [...bodies, ...bodies][i]!)));
    });
  });
});
