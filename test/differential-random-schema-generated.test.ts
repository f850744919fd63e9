// The generated kind over random schemas (issue 14; the random-schema differential of issue 11,
// run on the generated kind): for a random proto3 schema used as a protobuf-es schema and random
// values of its root, the generated serializer and @bufbuild/protobuf agree in both directions —
// protobuf-es' bytes (and other legal encodings of them) decode to exactly what its fromBinary
// gives, protokeel's bytes are protobuf-es' bytes and read back in it as the same value, and a
// relay through protokeel keeps protobuf-es' bytes.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";
import { messageArb } from "./support/arbitrary-message.js";
import { schemaArb, type Schema } from "./support/arbitrary-schema.js";
import { check, trickyStrings } from "./support/property.js";
import { rng, scramble } from "./support/wire-scramble.js";

const strings = trickyStrings();

function schemaAndValues(n: number) {
  return schemaArb({}).chain((s) =>
    fc.tuple(fc.constant(s), fc.array(messageArb(s.root, 2, { maxItems: 3, maxMapEntries: 3, strings }), { minLength: 1, maxLength: n })),
  );
}

const valueOf = (s: Schema, es: Record<string, unknown>) => create(s.root, es as never);

describe("random schemas, generated kind", () => {
  test("protobuf-es bytes decode to what protobuf-es decodes; protokeel's bytes read back in protobuf-es", () => {
    check("generated random schemas", 60, schemaAndValues(3), ([s, samples]) => {
      const ser = ProtobufType.ofGenerated(s.root).createSerializer();
      const values = samples.map((x) => valueOf(s, x.es));
      const bytes = values.map((v) => toBinary(s.root, v));
      const expected = bytes.map((b) => fromBinary(s.root, b));
      for (let i = 0; i < values.length; i++) {
        expect(ser.fromBinary(bytes[i]!)).toEqual(expected[i]);
        expect(fromBinary(s.root, ser.toBinary(values[i]!))).toEqual(expected[i]);
        // The direct writer writes protobuf-es' own bytes (test/generated-writer.test.ts has more).
        expect(ser.toBinary(values[i]!)).toEqual(bytes[i]);
        // A relay of a decoded value: protobuf-es writes declared fields in its order, so the
        // relay is compared through protobuf-es.
        expect(toBinary(s.root, ser.fromBinary(ser.toBinary(ser.fromBinary(bytes[i]!))))).toEqual(toBinary(s.root, expected[i]!));
      }
      expect(ser.decodeAll(ser.encodeAll(values))).toEqual(expected);
    });
  });

  test("other legal encodings (field order, packing, split occurrences) decode as in protobuf-es", () => {
    let seed = 7;
    check("generated random schemas scrambled", 40, schemaAndValues(1), ([s, samples]) => {
      const ser = ProtobufType.ofGenerated(s.root).createSerializer();
      const bytes = scramble(s.root, toBinary(s.root, valueOf(s, samples[0]!.es)), rng(seed++));
      expect(ser.fromBinary(bytes)).toEqual(fromBinary(s.root, bytes));
    });
  });
});
