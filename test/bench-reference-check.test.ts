// The benchmark's reference checks: an exact codec passes, and each kind of loss is flagged with
// its reason (so the table marks the codec instead of ranking it).
import { create, fromBinary, toBinary, type DescMessage, type Message } from "@bufbuild/protobuf";
import { BinaryReader, BinaryWriter } from "@bufbuild/protobuf/wire";
import { describe, expect, test } from "vitest";
import { checkOperation, OPERATIONS, type Bound } from "../bench/lib/check.mjs";
import { buildFixtures, compileFixtures, toEsInit, type Fixture, type FramesFixture, type MessageFixture } from "../bench/lib/fixtures.mjs";

const { registry } = compileFixtures();
const fixtures = new Map(buildFixtures(registry).map((f) => [f.id, f]));
const messageFixture = (id: string) => fixtures.get(id) as MessageFixture;
const framesFixture = fixtures.get("frames") as FramesFixture;

/** An exact codec over @bufbuild/protobuf, the base the lossy variants below modify. */
function exact(fixture: Fixture): Bound {
  const desc = fixture.desc;
  const encodePlain = (init: unknown) => toBinary(desc, create(desc, init as Record<string, unknown>));
  const writeFrames = (items: unknown[], write: (item: unknown) => Uint8Array) => {
    const writer = new BinaryWriter();
    for (const v of items) writer.bytes(write(v));
    return writer.finish();
  };
  return {
    value: fixture.kind === "message" ? create(desc, toEsInit(desc, fixture.content)) : undefined,
    values: fixture.kind === "frames" ? fixture.contents.map((c) => create(desc, toEsInit(desc, c))) : undefined,
    plain: fixture.kind === "message" ? toEsInit(desc, fixture.content) : undefined,
    plains: fixture.kind === "frames" ? fixture.contents.map((c) => toEsInit(desc, c)) : undefined,
    decode: (bytes) => fromBinary(desc, bytes),
    encode: (value) => toBinary(desc, value as Message),
    encodePlain,
    relay: (bytes) => toBinary(desc, fromBinary(desc, bytes)),
    decodeFrames(buf) {
      const reader = new BinaryReader(buf);
      const out = [];
      while (reader.pos < reader.len) out.push(fromBinary(desc, reader.bytes()));
      return out;
    },
    encodeFrames: (values) => writeFrames(values, (v) => toBinary(desc, v as Message)),
    encodePlainFrames: (inits) => writeFrames(inits, encodePlain),
  };
}

/** A class instance standing where a plain object belongs (a built value, not the plain form). */
class Built {}

/** Every bigint in a decoded value rounded through a double, as a number-only codec stores it. */
function roundLongs(value: unknown): unknown {
  if (typeof value === "bigint") return BigInt(Number(value));
  if (value instanceof Uint8Array || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(roundLongs);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, roundLongs(v)]));
}

/** The message's first top-level field moved to the end: different bytes, same content. */
function firstFieldLast(bytes: Uint8Array): Uint8Array {
  const reader = new BinaryReader(bytes);
  const [, wireType] = reader.tag();
  reader.skip(wireType);
  const out = new Uint8Array(bytes.length);
  out.set(bytes.subarray(reader.pos));
  out.set(bytes.subarray(0, reader.pos), bytes.length - reader.pos);
  return out;
}

describe("bench reference checks", () => {
  test.each([...fixtures.keys()])("an exact codec passes every operation on %s", (id) => {
    const f = fixtures.get(id)!;
    for (const op of OPERATIONS[f.kind]) expect([op, checkOperation(exact(f), f, op)]).toEqual([op, op === "validate" ? { ok: true, note: "full decode (no validate-only call)" } : { ok: true }]);
  });

  const desc = (id: string): DescMessage => messageFixture(id).desc;

  test.each([
    [
      "64-bit integers read as doubles",
      "span",
      "decode",
      (b: Bound) => ({ ...b, decode: (bytes: Uint8Array) => roundLongs(fromBinary(desc("span"), bytes)) }),
      /^decode: spans\[0\]\.start_time_unix_nano: expected \d+n, got \d+n$/,
    ],
    [
      "unknown fields dropped on relay",
      "small",
      "relay",
      (b: Bound) => ({ ...b, relay: (bytes: Uint8Array) => toBinary(desc("small"), fromBinary(desc("small"), bytes), { writeUnknownFields: false }) }),
      "relay drops unknown fields (1000, 1001)",
    ],
    [
      "a repeated element lost on encode",
      "numeric",
      "encode",
      (b: Bound) => ({
        ...b,
        encode: () => {
          const f = messageFixture("numeric");
          const content = { ...f.content, counters: (f.content.counters as number[]).slice(0, -1) };
          return toBinary(f.desc, create(f.desc, toEsInit(f.desc, content)));
        },
      }),
      "encode: counters: expected 1000 elements, got 999",
    ],
    ["no validation at all", "nested", "validate", (b: Bound) => ({ ...b, validate: () => true }), "accepts a truncated message (last byte cut) and invalid UTF-8 in a string"],
    [
      "a field lost when writing from a plain object",
      "classic",
      "encode-plain",
      (b: Bound) => ({ ...b, encodePlain: (init: unknown) => b.encodePlain({ ...(init as object), digest: new Uint8Array(0) }) }),
      /^encode-plain: digest: missing \(expected "bytes:[0-9a-f]{32}"\)$/,
    ],
    [
      "a wrong packed element written from a plain object",
      "classic",
      "encode-plain",
      (b: Bound) => ({
        ...b,
        encodePlain: (init: unknown) => {
          const i = init as { inner: { values: number[] } };
          return b.encodePlain({ ...i, inner: { values: i.inner.values.map((v, k) => (k === 7 ? v + 1 : v)) } });
        },
      }),
      /^encode-plain: inner\.values\[7\]: expected -?\d+, got -?\d+$/,
    ],
    [
      "a built value handed in as the plain object",
      "classic",
      "encode-plain",
      (b: Bound) => ({ ...b, plain: Object.assign(new Built(), b.plain) }),
      "encode-plain: the input is Built, not a plain object",
    ],
    [
      "a built nested value inside the plain object",
      "classic",
      "encode-plain",
      (b: Bound) => ({ ...b, plain: { ...(b.plain as object), inner: Object.assign(new Built(), (b.plain as { inner: object }).inner) } }),
      "encode-plain: inner is Built, not a plain object",
    ],
    [
      "a codec that memoizes on the plain object",
      "span",
      "encode-plain",
      (b: Bound) => ({
        ...b,
        encodePlain: (init: unknown) => {
          (init as Record<symbol, number>)[Symbol.for("size")] = 18_000;
          return b.encodePlain(init);
        },
      }),
      "encode-plain: writing changed the plain object",
    ],
    ["rejecting valid input", "small", "validate", (b: Bound) => ({ ...b, validate: () => false }), "validate rejects the reference bytes"],
    ["a throwing decoder", "small", "decode", (b: Bound) => ({ ...b, decode: () => { throw new Error("boom\nstack") } }), "decode threw: boom"],
  ] as const)("flags %s (%s %s)", (_what, id, op, lossy, reason) => {
    const f = messageFixture(id);
    expect(checkOperation(lossy(exact(f)), f, op)).toEqual({ ok: false, reason: typeof reason === "string" ? reason : expect.stringMatching(reason) });
  });

  test("flags a lost frame and a changed frame in a batch", () => {
    const f = framesFixture;
    const b = exact(f);
    expect(checkOperation({ ...b, decodeFrames: (buf) => Array.from(b.decodeFrames(buf)).slice(0, 999) }, f, "decode")).toEqual({
      ok: false,
      reason: "frames decode: expected 1000 messages, got 999",
    });
    const swapped = [...b.values!];
    [swapped[3], swapped[4]] = [swapped[4], swapped[3]];
    const result = checkOperation({ ...b, encodeFrames: () => b.encodeFrames(swapped) }, f, "encode");
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.reason).toMatch(/^frames encode: frame 3: /);
    const plains = [...b.plains!];
    [plains[3], plains[4]] = [plains[4], plains[3]];
    const plain = checkOperation({ ...b, encodePlainFrames: () => b.encodePlainFrames(plains) }, f, "encode-plain");
    expect(plain.ok === false && plain.reason).toMatch(/^frames encode-plain: frame 3: /);
    expect(checkOperation({ ...b, plains: b.plains!.map((p, i) => (i === 9 ? Object.assign(new Built(), p) : p)) }, f, "encode-plain")).toEqual({
      ok: false,
      reason: "encode-plain: frame 9 is Built, not a plain object",
    });
  });

  test("accepts equivalent bytes in another field order, with a note", () => {
    const f = messageFixture("small");
    const b = exact(f);
    expect(checkOperation({ ...b, encode: (v) => firstFieldLast(b.encode(v)) }, f, "encode")).toEqual({ ok: true, note: "encode: bytes differ from the reference, same content" });
  });
});
