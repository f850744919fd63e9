// The generated kind's tape reader over random schemas (src/codec/generated-reader.ts): it sets
// fields as it reads them and merges later occurrences of singular messages into the earlier ones.
// Over random schemas and split, merged, reordered encodings, its objects are protobuf-es' own,
// down to the key order. (A file of its own: it forces the core's path through an internal, which
// keeps a file out of the dist projects, and the random-schema differential runs there.)
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";
import { setSmallDecodeThreshold } from "../src/codec/reader.js";
import { messageArb } from "./support/arbitrary-message.js";
import { schemaArb } from "./support/arbitrary-schema.js";
import { check, trickyStrings } from "./support/property.js";
import { keyOrder } from "./support/key-order.js";
import { rng, scramble } from "./support/wire-scramble.js";

const strings = trickyStrings();
const schemaAndValue = schemaArb({}).chain((s) => fc.tuple(fc.constant(s), messageArb(s.root, 2, { maxItems: 3, maxMapEntries: 3, strings })));

describe("random schemas, generated kind, the core's reader", () => {
  // The shapes where its bookkeeping has edge cases, such as a merged message with no property, are
  // rows of test/generated-read-presence.test.ts: random schemas rarely split one.
  test("the core's reader, split and merged occurrences: protobuf-es' objects, key order included", () => {
    const initial = setSmallDecodeThreshold(0);
    try {
      let seed = 11;
      check("generated random schemas merged", 60, schemaAndValue, ([s, sample]) => {
        const ser = ProtobufType.ofGenerated(s.root).createSerializer();
        const bytes = scramble(s.root, toBinary(s.root, create(s.root, sample.es as never)), rng(seed++), { splitMessages: true });
        const ours = ser.fromBinary(bytes);
        const theirs = fromBinary(s.root, bytes);
        expect(ours).toStrictEqual(theirs);
        expect(keyOrder(ours)).toEqual(keyOrder(theirs));
      });
    } finally {
      setSmallDecodeThreshold(initial);
    }
  });
});
