// A batch that fails in a pool rejects with the error the single-thread call throws on the same
// input: same class, code, message, path and offset (offsets of frames are the whole input's, not
// a chunk's), the first failure in input order when several chunks fail, and the type's settings
// (maxMessageBytes, maxDepth) applied in the workers. Input that cannot reach a worker is a
// PoolError.
import protobuf from "protobufjs";
import { afterAll, describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, PoolError, ProtobufType } from "../src/index.js";
import type { CodecPool } from "../src/pool/index.js";
import { poolOf } from "./support/pool.js";
import { varint } from "./support/wire-scramble.js";
import { thrown } from "./support/thrown.js";
import { setMaxListElements } from "../src/codec/read-plan.js";

const Node = protobuf.parse('syntax = "proto3"; package t; message Node { string s = 1; Node child = 2; bytes b = 3; }', { keepCase: true }).root.lookupType("t.Node");
const type = ProtobufType.newBuilder(Node).maxMessageBytes(4096).maxDepth(5).build();
const ser = type.createSerializer();
const wide = ProtobufType.of(Node).createSerializer();

const pools: CodecPool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.destroy()));
});
const pool = poolOf({ type, size: 3 });
pools.push(pool);

/** 1,000 frames of ~1 KB (cut into 6 chunks), frame `i` replaced by `bad(i)` where it gives one. */
function frames(bad: (i: number) => Uint8Array | undefined = () => undefined): Uint8Array {
  const parts: Uint8Array[] = [];
  for (let i = 0; i < 1000; i++) parts.push(bad(i) ?? wide.encode({ s: `value ${i} `.padEnd(1000, "x") }));
  return Buffer.concat(parts);
}

/** A frame whose string holds invalid UTF-8. */
function badUtf8(): Uint8Array {
  const f = wide.encode({ s: "x".repeat(900) });
  f[f.length - 10] = 0xff;
  return f;
}

function nested(depth: number): Record<string, unknown> {
  let v: Record<string, unknown> = { s: "leaf" };
  for (let i = 1; i < depth; i++) v = { child: v };
  return v;
}

async function expectSameError(pooled: Promise<unknown>, single: () => unknown): Promise<void> {
  const expected = thrown(single);
  const got = await pooled.then(
    () => new Error("expected the pool to reject"),
    (e: Error) => e,
  );
  expect(got.constructor).toBe(expected.constructor);
  const fields = (e: Error) => ({ name: e.name, message: e.message, code: (e as CodecError).code, path: (e as CodecError).path, offset: (e as CodecError).offset });
  expect(fields(got)).toEqual(fields(expected));
}

describe("frames: the error decodeAll and validateAll throw", () => {
  const cases: [string, Uint8Array][] = [
    ["invalid UTF-8 in frame 700", frames((i) => (i === 700 ? badUtf8() : undefined))],
    ["invalid UTF-8 in frames 100 and 900 (the first wins)", frames((i) => (i === 100 || i === 900 ? badUtf8() : undefined))],
    ["a frame over maxMessageBytes (4096) at frame 500", frames((i) => (i === 500 ? wide.encode({ s: "y".repeat(5000) }) : undefined))],
    ["a frame nested deeper than maxDepth (5) at frame 600", frames((i) => (i === 600 ? wide.encode(nested(7)) : undefined))],
    ["a length prefix longer than 10 bytes at frame 300", frames((i) => (i === 300 ? new Uint8Array(11).fill(0xff) : undefined))],
    ["a truncated last frame", frames().subarray(0, frames().length - 3)],
    ["a length announcing more than the input holds at frame 999", frames((i) => (i === 999 ? new Uint8Array([...varint(5000), 1, 2, 3]) : undefined))],
    ["wire type 3 (a group) in frame 0", frames((i) => (i === 0 ? new Uint8Array([2, 0x0b, 0x0c]) : undefined))],
    ["a bare message passed as frames (small input: the mix-up hint)", wide.toBinary({ s: "a bare message", b: new Uint8Array(40) })],
  ];
  test.each(cases)("%s", async (_name, input) => {
    await expectSameError(pool.decode(input), () => ser.decodeAll(input));
    await expectSameError(pool.decode(input, { as: "message" }), () => ser.decodeAll(input));
    await expectSameError(pool.validate(input), () => ser.validateAll(input));
  });

  test("not bytes at all: NOT_BYTES, as decodeAll", async () => {
    await expectSameError(pool.decode("frames" as never), () => ser.decodeAll("frames" as never));
    await expectSameError(pool.decode([new Uint8Array(0), null] as never), () => ser.fromBinary(null as never));
  });
});

// A detached input (its buffer transferred earlier) failed in the pool with the engine's
// TypeError from the copy into a chunk, and with transfer: true read as an empty input.
describe("a detached Uint8Array: NOT_BYTES, as the single-thread calls", () => {
  const detached = () => {
    const b = wide.encode({ s: "gone" }).slice();
    structuredClone(b.buffer, { transfer: [b.buffer] });
    return b;
  };
  test.each([
    ["frames", false],
    ["frames, transfer: true", true],
  ])("%s", async (_name, transfer) => {
    await expectSameError(pool.decode(detached(), { transfer }), () => ser.decodeAll(detached()));
    await expectSameError(pool.decode(detached(), { transfer, as: "message" }), () => ser.decodeAll(detached()));
    await expectSameError(pool.validate(detached(), { transfer }), () => ser.validateAll(detached()));
  });
  test.each([
    ["bare messages", false],
    ["bare messages, transfer: true", true],
  ])("%s", async (_name, transfer) => {
    const items = () => [wide.toBinary({ s: "here" }).slice(), detached()];
    await expectSameError(pool.decode(items(), { transfer }), () => items().map((b) => ser.fromBinary(b)));
    await expectSameError(pool.validate(items(), { transfer }), () => items().forEach((b) => ser.validate(b)));
  });
  test("the message names the rule", async () => {
    const e = (await pool.decode(detached()).catch((x: unknown) => x)) as CodecError;
    expect([e.name, e.code, e.message]).toEqual([
      "CodecError",
      "NOT_BYTES",
      "cannot decode t.Node: the Uint8Array is detached (its buffer was transferred, to a worker or by a pool call with transfer: true, or a resizable buffer shrank below it); pass bytes that are not transferred, or a copy made before the transfer",
    ]);
  });
});

describe("inputs around the sizes where a batch starts to be cut (chunks over 64 KiB, at least 128 KiB of work)", () => {
  /** Frames totalling exactly `total` bytes: 1,000-byte frames, then one frame holding the rest. */
  const exactly = (total: number) => {
    const parts: Uint8Array[] = [];
    let left = total;
    while (left > 2200) {
      parts.push(wide.encode({ s: "x".repeat(996) }));
      left -= parts[parts.length - 1]!.length;
    }
    const last = wide.encode({ s: "y".repeat(left - 5) });
    parts.push(last);
    const out = Buffer.concat(parts);
    expect(out.length).toBe(total);
    return out;
  };
  const sizes = [64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 128 * 1024 - 1, 128 * 1024, 128 * 1024 + 1, 3 * 64 * 1024 + 7, 6 * 128 * 1024 + 1];
  test.each(sizes)("%i bytes: the values, and the error of the last frame cut short or made invalid", async (total) => {
    const input = exactly(total);
    expect(await pool.decode(input)).toEqual(ser.decodeAll(input).map((v) => v.toObject()));
    const cut = input.subarray(0, total - 1);
    await expectSameError(pool.decode(cut), () => ser.decodeAll(cut));
    const bad = Buffer.from(input);
    bad[total - 2] = 0xff;
    await expectSameError(pool.decode(bad, { as: "message" }), () => ser.decodeAll(bad));
  });
});

describe("bare messages: the error fromBinary throws on the first bad one", () => {
  const good = (i: number) => wide.toBinary({ s: `value ${i} `.padEnd(1000, "x") });
  const items = (bad: Record<number, Uint8Array>) => Array.from({ length: 1000 }, (_, i) => bad[i] ?? good(i));
  const badBare = () => {
    const b = wide.toBinary({ s: "x".repeat(900) });
    b[b.length - 10] = 0xff;
    return b;
  };
  test.each([
    ["item 5 and item 800 invalid", items({ 5: badBare(), 800: wide.toBinary({ s: "z".repeat(5000) }) })],
    ["item 800 over maxMessageBytes", items({ 800: wide.toBinary({ s: "z".repeat(5000) }) })],
    ["item 999 too deep", items({ 999: wide.toBinary(nested(6)) })],
    ["item 3 is a frame (the mix-up hint)", items({ 3: wide.encode({ s: "framed" }) })],
  ])("%s", async (_name, input) => {
    const single = () => input.map((b) => ser.fromBinary(b));
    await expectSameError(pool.decode(input), single);
    await expectSameError(pool.decode(input, { as: "message" }), single);
    await expectSameError(pool.validate(input), () => input.forEach((b) => ser.validate(b)));
  });
});

describe("encode: the error encodeAll throws", () => {
  const values = (bad: Record<number, unknown>) => Array.from({ length: 1000 }, (_, i) => (bad[i] ?? { s: `value ${i}` }) as Record<string, unknown>);
  test.each([
    ["a string field given a number at value 700", values({ 700: { s: 5 } })],
    ["an unknown field name at value 100 and a bad value at 900", values({ 100: { nope: 1 }, 900: { s: 5 } })],
    ["a value over maxMessageBytes at value 300", values({ 300: { s: "q".repeat(5000) } })],
    ["a value deeper than maxDepth at value 999", values({ 999: nested(6) })],
  ])("%s", async (_name, input) => {
    await expectSameError(pool.encode(input), () => ser.encodeAll(input));
    await expectSameError(pool.encode(input, { form: "bare" }), () => input.map((v) => ser.toBinary(v)));
  });

  test("a DynamicMessage value cannot cross to a worker: POOL_INPUT_NOT_CLONEABLE naming it", async () => {
    const input = [{ s: "a" }, DynamicMessage.create(type.descriptor, { s: "b" })];
    const e = (await pool.encode(input as never).catch((x: unknown) => x)) as PoolError;
    expect(e).toBeInstanceOf(PoolError);
    expect(e.code).toBe("POOL_INPUT_NOT_CLONEABLE");
    expect(e.message).toBe(
      "cannot encode t.Node in a pool: values[1] is a DynamicMessage, which cannot cross to a worker; pass plain init objects, or encode DynamicMessage values with serializer.encodeAll on this thread",
    );
  });

  // A DynamicMessage below the top level failed structured clone on one of its methods, and the
  // message quoted that method's source text instead of naming the value.
  test.each<[string, () => unknown[], string]>([
    ["a field", () => [{ s: "a" }, { s: "b", child: DynamicMessage.create(type.descriptor, { s: "c" }) }], "values[1].child"],
    ["a nested field, in the second chunk of a large batch", () => {
      const values: unknown[] = Array.from({ length: 1000 }, (_, i) => ({ s: `value ${i}` }));
      values[900] = { child: { child: DynamicMessage.create(type.descriptor, {}) } };
      return values;
    }, "values[900].child.child"],
  ])("a DynamicMessage in %s: POOL_INPUT_NOT_CLONEABLE naming where", async (_name, make, where) => {
    const input = make();
    expect(() => ser.encodeAll(input as never)).not.toThrow(); // the single thread takes it
    const e = (await pool.encode(input as never).catch((x: unknown) => x)) as PoolError;
    expect(e).toBeInstanceOf(PoolError);
    expect([e.code, e.message]).toEqual([
      "POOL_INPUT_NOT_CLONEABLE",
      `cannot encode t.Node in a pool: ${where} is a DynamicMessage, which cannot cross to a worker; pass plain init objects, or encode DynamicMessage values with serializer.encodeAll on this thread`,
    ]);
  });

  // Structured clone made a class instance a plain object (the workers wrote what this thread
  // refuses), and a hole reached a worker's transfer list and killed it (POOL_WORKER_EXITED).
  class Reading {
    s = "x";
  }
  test.each<[string, () => unknown[]]>([
    ["a class instance as a value", () => [{ s: "a" }, new Reading()]],
    ["a class instance as a nested message, in the second chunk of a large batch", () => Array.from({ length: 1000 }, (_, i) => (i === 900 ? { s: "a", child: new Reading() } : { s: `value ${i}` }))],
    ["a class instance in a list of a nested init object", () => [{ child: { child: { s: "a" } } }, { child: [new Reading()] }]],
    ["a cyclic init object", () => {
      const a: Record<string, unknown> = { s: "a" };
      a.child = a;
      return [a];
    }],
    // eslint-disable-next-line no-sparse-arrays
    ["a hole", () => [, { s: "a" }]],
    ["undefined", () => [undefined, { s: "a" }]],
  ])("%s: the error this thread throws", async (_name, make) => {
    const input = make() as never[];
    await expectSameError(pool.encode(input), () => ser.encodeAll(input));
    await expectSameError(pool.encode(input, { form: "bare" }), () => Array.from(input, (v) => ser.toBinary(v)));
    // The workers still run.
    expect(await pool.encode([{ s: "a" }], { form: "bare" })).toEqual([ser.toBinary({ s: "a" })]);
  });

  test("a value holding a function cannot cross to a worker: POOL_INPUT_NOT_CLONEABLE", async () => {
    const e = (await pool.encode([{ s: "a" }, { s: () => "b" }] as never).catch((x: unknown) => x)) as PoolError;
    expect(e).toBeInstanceOf(PoolError);
    expect(e.code).toBe("POOL_INPUT_NOT_CLONEABLE");
    expect(e.message).toMatch(/^cannot run encode of t\.Node in a pool: the input cannot be sent to a worker \(.*\); pass plain data \(objects, arrays, Map, bigint, Uint8Array\)$/);
    // The pool still works.
    expect(await pool.encode([{ s: "a" }])).toEqual(ser.encodeAll([{ s: "a" }]));
  });
});

describe("evaluate", () => {
  test("a non-type in the batch is a TypeError before anything runs", async () => {
    await expect(pool.evaluate([type, {} as never])).rejects.toThrow(new TypeError("pool.evaluate: saved[1] is not a ProtobufType"));
    // eslint-disable-next-line no-sparse-arrays
    await expect(pool.evaluate([, type] as never)).rejects.toThrow(new TypeError("pool.evaluate: saved[0] is not a ProtobufType"));
  });
});

describe("options", () => {
  test.each([
    ["size 0", () => poolOf({ type, size: 0 }), new RangeError("pool size must be an integer in 1..1024, got 0")],
    ["size 1.5", () => poolOf({ type, size: 1.5 }), new RangeError("pool size must be an integer in 1..1024, got 1.5")],
    ["results json", () => poolOf({ type, results: "json" as never }), new RangeError('decode results must be "object" or "message", got json')],
    ["no type", () => poolOf({ type: undefined as never }), new TypeError("createCodecPool needs { type }: a ProtobufType (ProtobufType.of(descriptor))")],
  ] as const)("%s", (_name, make, error) => {
    expect(make).toThrow(error);
  });

  test("a generated type is a PoolError naming the kind (it was told it was no ProtobufType)", async () => {
    const { OrderSchema } = await import("./fixtures/generated-es/gen/es_fixtures_pb.js");
    const e = thrown(() => poolOf({ type: ProtobufType.ofGenerated(OrderSchema) as never }));
    expect(e).toBeInstanceOf(PoolError);
    expect({ code: (e as PoolError).code, message: (e as Error).message }).toEqual({
      code: "POOL_TYPE_UNSUPPORTED",
      message: "cannot create a pool of esfix.Order: the pool runs dynamic types only (ProtobufType.of), not the generated kind",
    });
  });

  test("a bad per-call form is a RangeError, thrown by the call", () => {
    expect(() => pool.decode(new Uint8Array(0), { as: "json" as never })).toThrow(new RangeError('decode results must be "object" or "message", got json'));
    expect(() => pool.encode([], { form: "json" as never })).toThrow(new RangeError('encode form must be "frames" or "bare", got json'));
  });
});

// Each worker's part of a batch stays under decodeAll's frame limit, but their values are one
// array on the calling thread (and the split two numbers per frame): past the limit, the batch is
// refused as decodeAll refuses it, before any worker runs. The limit is lowered for the test.
test("a batch past the frame limit: TOO_MANY_FRAMES, as decodeAll", async () => {
  const prev = setMaxListElements(100);
  try {
    const zeros = new Uint8Array(101);
    expect(thrown(() => ser.decodeAll(zeros))).toMatchObject({ code: "TOO_MANY_FRAMES" });
    for (const call of [() => pool.decode(zeros), () => pool.decode(zeros, { as: "object" }), () => pool.validate(zeros)]) {
      await expect(call()).rejects.toMatchObject({ code: "TOO_MANY_FRAMES", path: "t.Node" });
    }
    expect((await pool.decode(zeros.subarray(1))).length).toBe(100);
  } finally {
    setMaxListElements(prev);
  }
});
