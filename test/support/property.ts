// Shared settings of the property tests: a fixed seed per property (so a run is reproducible and
// `npm test` stays within its time), overridable from the environment, and a string arbitrary
// that favours the strings codecs get wrong.
//
//   PROTOKEEL_SEED=<int>        run every property with this seed (fast-check prints the seed and
//                               the counterexample's path on failure: pass both back to replay it)
//   PROTOKEEL_RUNS_SCALE=<x>    multiply every property's run count (e.g. 10 for a long soak;
//                               the dist projects in vitest.config.ts run at a fraction)
import fc from "fast-check";

function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** fast-check parameters for the property `name`: its fixed seed, `numRuns` scaled. */
export function params(name: string, numRuns: number): fc.Parameters<unknown> {
  const env = process.env.PROTOKEEL_SEED;
  const scale = Number(process.env.PROTOKEEL_RUNS_SCALE ?? "1");
  return {
    seed: env !== undefined && env !== "" ? Number(env) : hash(name),
    numRuns: Math.max(1, Math.round(numRuns * (Number.isFinite(scale) && scale > 0 ? scale : 1))),
  };
}

/** Runs a property with `params(name, numRuns)`. */
export function check<Ts extends [unknown, ...unknown[]]>(name: string, numRuns: number, ...args: [...arbs: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> }, predicate: (...v: Ts) => void]): void {
  const predicate = args.pop() as (...v: Ts) => void;
  const arbs = args as unknown as { [K in keyof Ts]: fc.Arbitrary<Ts[K]> };
  fc.assert(fc.property(...arbs, predicate), params(name, numRuns));
}

/**
 * UTF-8 byte lengths around each internal threshold of the string paths (short strings decoded
 * in JS, longer ones through TextDecoder, SIMD widths, varint length sizes, the text area).
 */
export const STRING_BYTE_LENGTHS = [0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 42, 43, 44, 63, 64, 65, 127, 128, 129, 255, 256, 257] as const;
export const LONG_STRING_BYTE_LENGTHS = [16_383, 16_384, 16_385] as const;

const UNITS = ["a", "\u0000", "\u00e9", "\u8a9e", "\u{1F600}", "\uFEFF", "\uE000", "\u{10FFFF}"] as const;
const utf8Length = (s: string) => Buffer.byteLength(s, "utf8");

/** A well-formed string of exactly `bytes` UTF-8 bytes: optional BOM first, then `unit`s, then `pad`. */
export function stringOfBytes(bytes: number, bom: boolean, unit: string, pad: string, nulAt = -1): string {
  let out = bom && bytes >= 3 ? "\uFEFF" : "";
  let n = utf8Length(out);
  const u = utf8Length(unit);
  const reps = Math.floor((bytes - n) / u);
  out += unit.repeat(Math.max(0, reps));
  n += Math.max(0, reps) * u;
  out += pad.repeat(bytes - n);
  if (nulAt >= 0 && out.length > 0) {
    // One "a" at or after `nulAt` becomes NUL: same length, a NUL inside the text.
    const i = out.indexOf("a", nulAt % out.length);
    if (i >= 0) out = `${out.slice(0, i)}\u0000${out.slice(i + 1)}`;
  }
  return out;
}

/**
 * Strings that favour a leading U+FEFF, NUL, astral characters and UTF-8 lengths at every internal
 * threshold (and, rarely, the 16 KiB ones), mixed with arbitrary well-formed strings.
 */
export function trickyStrings(options: { long?: boolean } = {}): fc.Arbitrary<string> {
  const lengths = fc.oneof(
    { weight: 20, arbitrary: fc.constantFrom(...STRING_BYTE_LENGTHS) },
    { weight: options.long === false ? 0 : 1, arbitrary: fc.constantFrom(...LONG_STRING_BYTE_LENGTHS) },
  );
  const exact = fc
    .record({
      bytes: lengths,
      bom: fc.boolean(),
      unit: fc.constantFrom(...UNITS),
      pad: fc.constantFrom("a", "\u0000"),
      nulAt: fc.integer({ min: -1, max: 300 }),
    })
    .map(({ bytes, bom, unit, pad, nulAt }) => stringOfBytes(bytes, bom, unit, pad, nulAt));
  const free = fc.oneof(fc.string({ unit: "binary", maxLength: 20 }), fc.string({ unit: "grapheme", maxLength: 20 }));
  return fc
    .oneof({ weight: 3, arbitrary: exact }, { weight: 1, arbitrary: free }, { weight: 1, arbitrary: free.map((s) => `\uFEFF${s}`) })
    .filter((s) => (s as unknown as { isWellFormed(): boolean }).isWellFormed());
}
