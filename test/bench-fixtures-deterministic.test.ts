// The benchmark's seeded generators: same seed, same content and bytes; no Math.random.
import { afterEach, describe, expect, test, vi } from "vitest";
import { buildFixtures, compileFixtures, type Fixture } from "../bench/lib/fixtures.mjs";
import { createRandom, DEFAULT_SEED } from "../bench/lib/generate.mjs";

const { registry } = compileFixtures();

afterEach(() => vi.restoreAllMocks());

const contentOf = (f: Fixture) => (f.kind === "message" ? f.content : f.contents);

describe("bench fixtures", () => {
  test("a seed gives the same random sequence every time", () => {
    const a = createRandom(7);
    const b = createRandom(7);
    const seqA = Array.from({ length: 64 }, () => a.next());
    const seqB = Array.from({ length: 64 }, () => b.next());
    expect(seqA).toEqual(seqB);
    expect(new Set(seqA).size).toBe(64);
    const c = createRandom(8);
    expect(Array.from({ length: 64 }, () => c.next())).not.toEqual(seqA);
  });

  test("the same seed builds identical content and reference bytes, without Math.random", () => {
    const random = vi.spyOn(Math, "random");
    const first = buildFixtures(registry, DEFAULT_SEED);
    const second = buildFixtures(registry, DEFAULT_SEED);
    expect(random).not.toHaveBeenCalled();
    expect(second.map((f) => f.id)).toEqual(first.map((f) => f.id));
    for (let i = 0; i < first.length; i++) {
      expect(second[i].bytes).toEqual(first[i].bytes);
      expect(contentOf(second[i])).toEqual(contentOf(first[i]));
    }
  });

  test("another seed builds different bytes", () => {
    const a = buildFixtures(registry, 1);
    const b = buildFixtures(registry, 2);
    for (let i = 0; i < a.length; i++) expect(b[i].bytes).not.toEqual(a[i].bytes);
  });

  const fixtures = new Map(buildFixtures(registry).map((f) => [f.id, f]));

  test.each([
    // id, min bytes, max bytes, min strings, max strings
    ["small", 70, 100, 5, 5],
    ["classic", 70, 100, 1, 1],
    ["span", 16_000, 20_000, 640, 720],
    ["numeric", 12_000, 20_000, 0, 0],
    ["nested", 1_500, 3_000, 80, 80],
    ["frames", 75_000, 95_000, 4_000, 5_000],
  ] as const)("%s has the documented shape", (id, minBytes, maxBytes, minStrings, maxStrings) => {
    const f = fixtures.get(id)!;
    expect(f.stats.bytes).toBeGreaterThanOrEqual(minBytes);
    expect(f.stats.bytes).toBeLessThanOrEqual(maxBytes);
    expect(f.stats.strings).toBeGreaterThanOrEqual(minStrings);
    expect(f.stats.strings).toBeLessThanOrEqual(maxStrings);
  });

  test("classic has the shape of protobufjs's bench message", () => {
    const c = (fixtures.get("classic") as Extract<Fixture, { kind: "message" }>).content;
    expect(Object.keys(c)).toEqual(["text", "count", "inner", "flag", "ratio", "level", "digest"]);
    expect(typeof c.text).toBe("string");
    expect(c.count).toBeGreaterThan(0);
    const values = (c.inner as { values: number[] }).values;
    expect(values).toHaveLength(8);
    expect(values.some((v) => v < 0)).toBe(true); // a negative int32 takes 10 bytes as a varint
    expect(values.every((v) => Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31)).toBe(true);
    expect(c.flag).toBe(true);
    expect(Number.isInteger(c.ratio)).toBe(false);
    expect(c.level).toBeGreaterThan(0);
    expect((c.digest as Uint8Array).length).toBe(16);
  });

  test("span, numeric, nested and frames hold what the README says", () => {
    const span = fixtures.get("span") as Extract<Fixture, { kind: "message" }>;
    const spans = span.content.spans as Array<Record<string, unknown>>;
    expect(spans).toHaveLength(50);
    expect((spans[0].trace_id as Uint8Array).length).toBe(16);
    expect((spans[0].span_id as Uint8Array).length).toBe(8);
    expect(spans[0].start_time_unix_nano as bigint).toBeGreaterThan(2n ** 53n);

    const numeric = (fixtures.get("numeric") as Extract<Fixture, { kind: "message" }>).content;
    expect((numeric.samples as number[]).length).toBe(1000);
    expect((numeric.deltas as bigint[]).length).toBe(1000);
    expect((numeric.counters as number[]).length).toBe(1000);
    expect((numeric.deltas as bigint[]).some((d) => d > 2n ** 53n || d < -(2n ** 53n))).toBe(true);

    let depth = 0;
    for (let n: Record<string, unknown> | undefined = (fixtures.get("nested") as Extract<Fixture, { kind: "message" }>).content; n; n = n.child as Record<string, unknown> | undefined) depth++;
    expect(depth).toBe(80);

    expect((fixtures.get("frames") as Extract<Fixture, { kind: "frames" }>).count).toBe(1000);
  });
});
