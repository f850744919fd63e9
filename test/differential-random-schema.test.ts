// Differential properties over random schemas AND random messages (issue 11, "Random schemas"):
// for a generated proto3 schema (test/support/arbitrary-schema.ts) and generated values of its
// root, protokeel and @bufbuild/protobuf (which passes the conformance suite) agree in both
// directions: protokeel's bytes (plain and deterministic) read in @bufbuild/protobuf as the
// generated content, @bufbuild/protobuf's bytes read in protokeel as that content (eager, lazy
// past 4 KiB, framed, through a FrameReader, many frames in one buffer), and deterministic output
// is @bufbuild/protobuf's bytes where its field order and map order are the same.
// Versions and other descriptor instances: differential-random-schema-versions.test.ts.
// Seeds and run counts: test/support/property.ts (PROTOKEEL_SEED, PROTOKEEL_RUNS_SCALE).
import { create, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, FrameReader, FrameWriter, ProtobufType, readSnapshot, writeSnapshot } from "../src/index.js";
import { messageArb, type ArbOptions, type Sample } from "./support/arbitrary-message.js";
import { buildSchema, schemaArb, schemaPlanArb, type Schema, type SchemaArbOptions } from "./support/arbitrary-schema.js";
import { contentOf, esContent, frame, hex, isLazy, padWithUnknown, splitFrames } from "./support/differential.js";
import { check, trickyStrings } from "./support/property.js";
import { rng, scramble } from "./support/wire-scramble.js";

const strings = trickyStrings();

/** A schema and 1..n values of its root. */
function schemaAndValues(schema: SchemaArbOptions, n: number, values: ArbOptions & { depth?: number } = {}) {
  return schemaArb(schema).chain((s) =>
    fc.tuple(fc.constant(s), fc.array(messageArb(s.root, values.depth ?? 2, { maxItems: 3, maxMapEntries: 3, strings, ...values }), { minLength: 1, maxLength: n })),
  );
}

interface Codec {
  readonly type: ProtobufType;
  readonly ser: ReturnType<ProtobufType["createSerializer"]>;
  readonly det: ReturnType<ProtobufType["createSerializer"]>;
}

function codec(s: Schema): Codec {
  const type = ProtobufType.of(s.root);
  return { type, ser: type.createSerializer(), det: ProtobufType.newBuilder(s.root).deterministic(true).build().createSerializer() };
}

const esBytesOf = (s: Schema, sample: Sample) => toBinary(s.root, create(s.root, sample.es as never));

describe("generated schemas", () => {
  test("every generated schema is accepted by ProtobufType.of, restores from its snapshot and transfer form as an equal type", () => {
    check("schemas accepted", 40, schemaArb({ wideOneofWeight: 1, chainWeight: 1 }), (s) => {
      const type = ProtobufType.of(s.root);
      expect(type.descriptor).toBe(s.root);
      const ser = type.createSerializer();
      expect(ser.fromBinary(new Uint8Array(0)).equals(DynamicMessage.getDefaultInstance(s.root))).toBe(true);
      const restored = readSnapshot(writeSnapshot(ser.snapshotConfiguration())).restoreSerializer();
      expect(restored.type.equals(type)).toBe(true);
      expect(ProtobufType.fromBytes(type.toBytes()).equals(type)).toBe(true);
    });
  });

  test("a shrunk plan is still a valid schema (the plan's references resolve modulo what exists)", () => {
    // Plans with every count cut to its minimum, as shrinking produces.
    check("plans shrink to valid schemas", 40, schemaPlanArb(), (plan) => {
      const cut = {
        ...plan,
        files: plan.files.map((f) => ({ ...f, enums: [], messages: f.messages.map((m) => ({ ...m, nested: [], enums: [] })) })),
      };
      expect(() => ProtobufType.of(buildSchema(cut).root)).not.toThrow();
    });
  });
});

describe("protokeel writes, @bufbuild/protobuf reads", () => {
  test("plain and deterministic bytes of created values read back as the generated content", () => {
    check("ours to es", 70, schemaAndValues({ wideOneofWeight: 1 }, 3), ([s, samples]) => {
      const { ser, det } = codec(s);
      for (const sample of samples) {
        const value = DynamicMessage.create(s.root, sample.ours);
        const expected = esContent(s.root, esBytesOf(s, sample));
        expect(esContent(s.root, ser.toBinary(value))).toBe(expected);
        expect(esContent(s.root, det.toBinary(value))).toBe(expected);
        expect(esContent(s.root, splitFrames(ser.encode(value))[0]!)).toBe(expected);
      }
    });
  });

  test("deterministic bytes are @bufbuild/protobuf's bytes (fields declared by number, at most one map entry)", () => {
    check("det equals es bytes", 70, schemaAndValues({ sortedFields: true, wideOneofWeight: 1 }, 3, { maxMapEntries: 1 }), ([s, samples]) => {
      const { ser, det } = codec(s);
      for (const sample of samples) {
        const esBytes = esBytesOf(s, sample);
        expect(hex(det.toBinary(DynamicMessage.create(s.root, sample.ours)))).toBe(hex(esBytes));
        // Also for the value protokeel decoded from those bytes.
        expect(hex(det.toBinary(ser.fromBinary(esBytes)))).toBe(hex(esBytes));
      }
    });
  });
});

describe("@bufbuild/protobuf writes, protokeel reads", () => {
  test("eager, framed and FrameReader decodes of @bufbuild/protobuf's bytes and of other legal encodings give the generated content", () => {
    check("es to ours", 70, schemaAndValues({ wideOneofWeight: 1 }, 3), fc.integer(), ([s, samples], seed) => {
      const { ser, det } = codec(s);
      for (const sample of samples) {
        const expected = DynamicMessage.create(s.root, sample.ours);
        const esBytes = esBytesOf(s, sample);
        const want = esContent(s.root, esBytes);
        // Fields in another order, packed runs split or unpacked, overridden and merging occurrences.
        const scrambled = scramble(s.root, esBytes, rng(seed), { splitMessages: true });
        expect(esContent(s.root, scrambled)).toBe(want);
        ser.validate(scrambled);
        const pad = padWithUnknown(s.root, scrambled);
        const lazy = ser.fromBinary(pad.bytes);
        expect(esContent(s.root, det.toBinary(lazy))).toBe(esContent(s.root, new Uint8Array([...esBytes, ...pad.occurrence])));
        for (const decoded of [ser.fromBinary(esBytes), ser.decode(frame(esBytes)), ser.deserialize(new FrameReader(frame(esBytes))), ser.fromBinary(scrambled)]) {
          expect(decoded.descriptor).toBe(s.root);
          expect(decoded.equals(expected)).toBe(true);
          expect(esContent(s.root, det.toBinary(decoded))).toBe(want);
        }
      }
    });
  });

  test("lazily decoded values (bare messages of 4 KiB and more) give the generated content and relay it", () => {
    check("es to ours, lazy", 60, schemaAndValues({ wideOneofWeight: 1 }, 2), ([s, samples]) => {
      const { ser, det } = codec(s);
      for (const sample of samples) {
        const pad = padWithUnknown(s.root, esBytesOf(s, sample));
        const expected = DynamicMessage.create(s.root, sample.ours)
          .toBuilder()
          .setUnknownFields(new Map([[pad.number, [pad.occurrence]]]))
          .build();
        const want = esContent(s.root, pad.bytes);
        // Relayed before anything reads the value, then read, then written again.
        const lazy = ser.fromBinary(pad.bytes);
        expect(isLazy(lazy)).toBe(true);
        expect(esContent(s.root, ser.toBinary(lazy))).toBe(want);
        expect(esContent(s.root, det.toBinary(lazy))).toBe(want);
        expect(lazy.equals(expected)).toBe(true);
        expect(esContent(s.root, ser.toBinary(lazy))).toBe(want);
        // Through a FrameReader, which decodes bare bodies the same way.
        const viaReader = ser.deserialize(new FrameReader(frame(pad.bytes)));
        expect(isLazy(viaReader)).toBe(true);
        expect(viaReader.equals(expected)).toBe(true);
      }
    });
  });

  test("decodeAll of many frames in one buffer; encodeAll, FrameWriter frames read back in @bufbuild/protobuf", () => {
    check("many frames", 60, schemaAndValues({}, 8), ([s, samples]) => {
      const { ser } = codec(s);
      const expected = samples.map((x) => DynamicMessage.create(s.root, x.ours));
      const bodies = samples.map((x) => esBytesOf(s, x));
      const buffer = new Uint8Array(bodies.flatMap((b) => [...frame(b)]));
      const decoded = ser.decodeAll(buffer);
      expect(decoded.length).toBe(samples.length);
      decoded.forEach((d, i) => expect(d.equals(expected[i])).toBe(true));
      const want = bodies.map((b) => esContent(s.root, b));
      expect(splitFrames(ser.encodeAll(decoded)).map((b) => esContent(s.root, b))).toEqual(want);
      expect(splitFrames(ser.encodeAll(expected)).map((b) => esContent(s.root, b))).toEqual(want);
      const fw = new FrameWriter();
      for (const v of decoded) ser.serialize(v, fw);
      expect(hex(fw.view())).toBe(hex(ser.encodeAll(decoded)));
      const reader = new FrameReader(fw.view());
      const back: DynamicMessage[] = [];
      while (reader.hasMore()) back.push(ser.deserialize(reader));
      back.forEach((d, i) => expect(d.equals(expected[i])).toBe(true));
    });
  });
});

describe("long chains of types", () => {
  test("values nested along a chain of hundreds of types, both directions", () => {
    const chained = schemaArb({ chainWeight: 1_000_000, maxFiles: 2, maxFields: 3 });
    check("chains", 8, chained, fc.integer({ min: 1, max: 90 }), (s, depth) => {
      const { ser, det } = codec(s);
      const chainField = s.root.fields.find((f) => f.name.startsWith("chain_"))!;
      let init: Record<string, unknown> = { v: depth };
      for (let i = depth - 1; i > 0; i--) init = { v: i, next: init };
      const ours = { [chainField.name]: init };
      const value = DynamicMessage.create(s.root, ours);
      const esBytes = toBinary(s.root, create(s.root, { [chainField.localName]: init } as never));
      expect(hex(det.toBinary(value))).toBe(hex(esBytes));
      expect(ser.fromBinary(esBytes).equals(value)).toBe(true);
      expect(ser.fromBinary(padWithUnknown(s.root, esBytes).bytes).get(chainField.name)).toBeDefined();
    });
  });
});

describe("corrupt input", () => {
  /** "ok", or the CodecError's code (with offset and path when `where`); any other error fails the property. */
  function outcome(run: () => void, where = false): string {
    try {
      run();
      return "ok";
    } catch (e) {
      if (!(e instanceof CodecError)) throw e;
      return where ? `${e.code} at ${e.offset} in ${e.path}` : e.code;
    }
  }

  test("validate, fromBinary (eager and lazy), decode and decodeAll agree on typed errors; what protokeel accepts, @bufbuild/protobuf reads as the same content", () => {
    const how = fc.constantFrom("truncate", "flip", "insert", "delete");
    check("corrupt input", 80, schemaAndValues({}, 1), fc.integer(), how, ([s, [sample]], seed, kind) => {
      const { ser, det } = codec(s);
      const good = esBytesOf(s, sample!);
      const r = rng(seed);
      const at = Math.floor(r() * (good.length + 1));
      let bad: Uint8Array;
      if (kind === "truncate") bad = good.slice(0, Math.min(at, Math.max(0, good.length - 1)));
      else if (kind === "flip") {
        bad = good.slice();
        if (bad.length > 0) bad[at % bad.length]! ^= 1 << Math.floor(r() * 8);
      } else if (kind === "insert") bad = new Uint8Array([...good.subarray(0, at), Math.floor(r() * 256), ...good.subarray(at)]);
      else bad = new Uint8Array([...good.subarray(0, at), ...good.subarray(at + 1)]);
      let decoded: DynamicMessage | undefined;
      // The bare forms agree on the place too.
      expect(outcome(() => (decoded = ser.fromBinary(bad)), true)).toBe(outcome(() => ser.validate(bad), true));
      const v = outcome(() => ser.validate(bad));
      expect(outcome(() => ser.decode(frame(bad)))).toBe(v);
      expect(outcome(() => ser.validateAll(frame(bad)))).toBe(v);
      expect(outcome(() => ser.decodeAll(new Uint8Array([...frame(good), ...frame(bad)])))).toBe(v);
      // Lazily: the same verdict for the bytes followed by padding, at decode or first access.
      const padded = new Uint8Array([...bad, ...padWithUnknown(s.root, new Uint8Array(0)).bytes]);
      const lazyVerdict = outcome(() => ser.validate(padded));
      expect(outcome(() => contentOf(ser.fromBinary(padded)))).toBe(lazyVerdict);
      if (v === "ok") {
        let es = "";
        expect(() => (es = esContent(s.root, bad))).not.toThrow();
        expect(esContent(s.root, det.toBinary(decoded!))).toBe(es);
      }
    });
  });
});
