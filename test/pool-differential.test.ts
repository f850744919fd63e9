// protokeel/pool gives what one thread gives: on the all-types fixture and on random schemas
// (test/support/arbitrary-schema.ts), every operation of a pool of 3 workers — decode (frames and
// bare messages, as objects and as messages), validate, encode (frames and bare) and evaluate —
// equals the single-thread serializer call on the same input. Batches are made large enough to be
// cut into several chunks, so results are also reassembled in input order.
import fc from "fast-check";
import { afterAll, describe, expect, test } from "vitest";
import { DynamicMessage, evaluateSchemaChange, ProtobufType } from "../src/index.js";
import type { CodecPool } from "../src/pool/index.js";
import { messageArb } from "./support/arbitrary-message.js";
import { evolvePlanArb, evolveSchema, schemaArb } from "./support/arbitrary-schema.js";
import { registryFromDir } from "./support/buf.js";
import { poolOf } from "./support/pool.js";
import { params } from "./support/property.js";

const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
// @bufbuild/protobuf's create() takes JSON for these (as in decode-differential.test.ts).
const JSON_TYPES = ["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"];

/** The property's seed and run count (test/support/property.ts) for fc.sample. */
const sampled = <T>(arb: fc.Arbitrary<T>, name: string, runs: number): T[] => fc.sample(arb, params(name, runs) as fc.Parameters<T>);

const pools: CodecPool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.destroy()));
});

/** `inits` repeated until their frames pass `minBytes` (or `maxCount` values): a batch the pool cuts. */
function batchOf(type: ProtobufType, inits: Record<string, unknown>[], minBytes: number, maxCount: number): Record<string, unknown>[] {
  const ser = type.createSerializer();
  const out: Record<string, unknown>[] = [];
  let bytes = 0;
  while (bytes < minBytes && out.length < maxCount) {
    for (const init of inits) {
      out.push(init);
      bytes += ser.encode(init).length;
    }
    if (bytes === 0 && out.length >= maxCount) break;
  }
  return out;
}

/** Every operation of `pool` against the serializer of its type, on `inits`. */
async function expectSameAsOneThread(pool: CodecPool, inits: Record<string, unknown>[]): Promise<void> {
  const ser = pool.type.createSerializer();
  const frames = ser.encodeAll(inits);
  const bare = inits.map((v) => ser.toBinary(v));
  const values = ser.decodeAll(frames);
  const objects = values.map((v) => v.toObject());

  expect(await pool.decode(frames)).toEqual(objects);
  expect(await pool.decode(bare, { as: "object" })).toEqual(bare.map((b) => ser.fromBinary(b).toObject()));
  for (const input of [frames, bare]) {
    const messages = await pool.decode(input, { as: "message" });
    expect(messages.length).toBe(values.length);
    messages.forEach((m, i) => {
      expect(m.descriptor).toBe(pool.type.descriptor);
      expect(m.equals(values[i]), `value ${i}`).toBe(true);
    });
    // Read back, they write the same bytes (unknown fields included).
    expect(ser.encodeAll(messages)).toEqual(ser.encodeAll(values));
  }
  await expect(pool.validate(frames)).resolves.toBeUndefined();
  await expect(pool.validate(bare)).resolves.toBeUndefined();
  expect(await pool.encode(inits)).toEqual(frames);
  expect(await pool.encode(inits, { form: "bare" })).toEqual(bare);
}

describe("the all-types fixture", () => {
  const type = ProtobufType.of(All);
  const samples = sampled(messageArb(All, 2, { skipTypes: JSON_TYPES }), "pool all-types", 60);
  const inits = batchOf(type, samples.map((s) => s.ours), 450_000, 8_000);

  test("the batch is large enough to be cut into chunks", () => {
    expect(type.createSerializer().encodeAll(inits).length).toBeGreaterThan(3 * 128 * 1024);
  });

  test("decode, validate and encode equal the single-thread calls, in input order", async () => {
    const pool = poolOf({ type, size: 3 });
    pools.push(pool);
    await expectSameAsOneThread(pool, inits);
  }, 600_000);

  test("with transfer: the same results from moved buffers", async () => {
    const pool = poolOf({ type, size: 3, transfer: true });
    pools.push(pool);
    const ser = type.createSerializer();
    const expected = ser.decodeAll(ser.encodeAll(inits)).map((v) => v.toObject());
    expect(await pool.decode(ser.encodeAll(inits).slice())).toEqual(expected);
    expect(await pool.decode(inits.map((v) => ser.toBinary(v).slice()))).toEqual(expected);
  }, 600_000);

  test("deterministic and aliasing settings travel with the type", async () => {
    const det = ProtobufType.newBuilder(All).deterministic(true).aliasThreshold(1).build();
    const pool = poolOf({ type: det, size: 2 });
    pools.push(pool);
    await expectSameAsOneThread(pool, inits.slice(0, 200));
  }, 600_000);
});

describe("random schemas", () => {
  const schemas = sampled(
    schemaArb({ wideOneofWeight: 1 }).chain((s) => fc.tuple(fc.constant(s), fc.array(messageArb(s.root, 2, { maxItems: 3, maxMapEntries: 3 }), { minLength: 1, maxLength: 5 }), evolvePlanArb)),
    "pool random schemas",
    10,
  );

  test.each(schemas.map((s, i) => [i, s] as const))("schema %i: every operation equals the single-thread call", async (_i, [schema, samples, evolve]) => {
    const type = ProtobufType.of(schema.root);
    const pool = poolOf({ type, size: 3 });
    pools.push(pool);
    try {
      await expectSameAsOneThread(pool, batchOf(type, samples.map((s) => s.ours), 200_000, 2_000));
      // evaluate: an evolved version as saved, and the type itself.
      const saved = ProtobufType.of(evolveSchema(schema, evolve).root);
      const options = { savedSettings: saved.settings, currentSettings: type.settings };
      expect(await pool.evaluate([saved, type, saved])).toEqual([
        evaluateSchemaChange(saved.descriptor, type.descriptor, options),
        evaluateSchemaChange(type.descriptor, type.descriptor, { savedSettings: type.settings, currentSettings: type.settings }),
        evaluateSchemaChange(saved.descriptor, type.descriptor, options),
      ]);
    } finally {
      await pool.close();
    }
  }, 600_000);

  test("an empty batch gives an empty result", async () => {
    const type = ProtobufType.of(schemas[0]![0].root);
    const pool = poolOf({ type, size: 2 });
    pools.push(pool);
    expect(await pool.decode(new Uint8Array(0))).toEqual([]);
    expect(await pool.decode([])).toEqual([]);
    expect(await pool.encode([])).toEqual(new Uint8Array(0));
    expect(await pool.evaluate([])).toEqual([]);
    expect(DynamicMessage.getDefaultInstance(type.descriptor).equals((await pool.decode(new Uint8Array([0]), { as: "message" }))[0])).toBe(true);
  });
});
