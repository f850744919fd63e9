// fast-check arbitraries for any message descriptor: each sample is the same content as a
// protokeel init (proto names, Map values with typed keys) and a @bufbuild/protobuf init
// (localName keys, oneof {case, value}, maps as objects, unboxed wrappers), so that one library
// can check the other's bytes.
import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";

export interface Sample {
  readonly ours: Record<string, unknown>;
  readonly es: Record<string, unknown>;
}

export interface ArbOptions {
  /** Levels of nested messages below the root. Defaults to 2. */
  depth?: number;
  /** Largest repeated field / map. Defaults to 4. */
  maxItems?: number;
  /** Largest number of map entries (1 keeps map order out of byte comparisons). */
  maxMapEntries?: number;
  /** Message types never generated (fields of these types stay unset). */
  skipTypes?: readonly string[];
  /** String values and string map keys. Defaults to short strings of every width. */
  strings?: fc.Arbitrary<string>;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

const strings = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 8 }),
  fc.constantFrom("", "héllo", "日本語", "😀🎉", "a\u0000b", "\u{10FFFF}", "x".repeat(200), "é".repeat(70)),
).filter((s) => (s as unknown as { isWellFormed(): boolean }).isWellFormed());

export function scalarArb(t: ScalarType, forKey = false, stringArb?: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  switch (t) {
    case ScalarType.DOUBLE:
      return fc.oneof(fc.double(), fc.constantFrom(Number.NaN, -0, 0, Infinity, -Infinity, Number.MAX_VALUE, Number.MIN_VALUE));
    case ScalarType.FLOAT:
      return fc.oneof(fc.float(), fc.constantFrom(Number.NaN, -0, Infinity, -Infinity, Math.fround(3.4e38)));
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return fc.oneof(fc.integer({ min: -2147483648, max: 2147483647 }), fc.constantFrom(-2147483648, 2147483647, -1, 0, 1));
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return fc.oneof(fc.integer({ min: 0, max: 4294967295 }), fc.constantFrom(0, 4294967295, 127, 128));
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return fc.oneof(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), fc.constantFrom(INT64_MIN, INT64_MAX, -1n, 0n, 2n ** 53n + 1n));
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return fc.oneof(fc.bigInt({ min: 0n, max: UINT64_MAX }), fc.constantFrom(0n, UINT64_MAX, 2n ** 63n));
    case ScalarType.BOOL:
      return fc.boolean();
    case ScalarType.STRING:
      return stringArb ?? (forKey ? fc.string({ maxLength: 6 }) : strings);
    default:
      return fc.uint8Array({ maxLength: 16 });
  }
}

function enumArb(f: DescField): fc.Arbitrary<number> {
  const values = f.enum!.values.map((v) => v.number);
  return fc.oneof(fc.constantFrom(...values), fc.integer({ min: -2147483648, max: 2147483647 }));
}

function isWrapper(m: DescMessage): boolean {
  return m.file.name === "google/protobuf/wrappers";
}

/** A 64-bit field that protokeel holds as a JS number (`[jstype = JS_NUMBER]`; maps ignore it). */
function isJsNumber(f: DescField): boolean {
  return f.fieldKind !== "map" && f.proto.options?.jstype === 2 && typeof f.scalar === "number" && [ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64].includes(f.scalar);
}

function longToEs(f: DescField, v: unknown): unknown {
  return typeof v === "bigint" && f.fieldKind !== "map" && "longAsString" in f && f.longAsString ? String(v) : v;
}

type Options = Required<Omit<ArbOptions, "strings">> & Pick<ArbOptions, "strings">;

function elemArb(f: DescField, depth: number, o: Options): fc.Arbitrary<Sample | unknown> | undefined {
  if (f.message !== undefined) {
    if (o.skipTypes.includes(f.message.typeName)) return undefined;
    return depth > 0 ? messageArb(f.message, depth - 1, o) : undefined;
  }
  if (f.enum !== undefined) return enumArb(f);
  if (isJsNumber(f)) {
    const unsigned = f.scalar === ScalarType.UINT64 || f.scalar === ScalarType.FIXED64;
    const max = BigInt(Number.MAX_SAFE_INTEGER);
    return fc.oneof(fc.bigInt({ min: unsigned ? 0n : -max, max }), fc.constantFrom(0n, max, unsigned ? 1n : -max));
  }
  return scalarArb(f.scalar!, false, o.strings);
}

function singleToEs(f: DescField, v: unknown): unknown {
  if (f.message !== undefined) {
    const s = v as Sample;
    if (isWrapper(f.message) && f.fieldKind === "message") {
      const inner = f.message.fields[0]!;
      return s.es[inner.localName] ?? (inner.scalar === ScalarType.STRING ? "" : inner.scalar === ScalarType.BYTES ? new Uint8Array(0) : inner.scalar === ScalarType.BOOL ? false : [ScalarType.INT64, ScalarType.UINT64].includes(inner.scalar!) ? 0n : 0);
    }
    return s.es;
  }
  return longToEs(f, v);
}

function singleToOurs(f: DescField, v: unknown): unknown {
  if (isJsNumber(f)) return Number(v);
  return f.message !== undefined ? (v as Sample).ours : v;
}

/** A field's arbitrary as [ours, es] values, or undefined when the depth budget is spent. */
function fieldArb(f: DescField, depth: number, o: Options): fc.Arbitrary<[unknown, unknown]> | undefined {
  if (f.fieldKind === "list") {
    const e = elemArb(f, depth, o);
    if (e === undefined) return undefined;
    return fc.array(e, { maxLength: o.maxItems }).map((arr) => [arr.map((x) => singleToOurs(f, x)), arr.map((x) => longToEs(f, singleToEs({ ...f, fieldKind: "list" } as DescField, x)))]);
  }
  if (f.fieldKind === "map") {
    const e = elemArb(f, depth, o);
    if (e === undefined) return undefined;
    const keyArb = scalarArb(f.mapKey, true, o.strings);
    return fc
      .uniqueArray(fc.tuple(keyArb, e), { maxLength: o.maxMapEntries, selector: (t) => t[0] })
      .map((unsorted) => {
        // Key order, so that insertion order, deterministic order and JS object order agree.
        const entries = [...unsorted].sort((a, b) => ((a[0] as number) < (b[0] as number) ? -1 : (a[0] as number) > (b[0] as number) ? 1 : 0));
        const ours = new Map(entries.map(([k, v]) => [k, singleToOurs(f, v)]));
        const es: Record<string, unknown> = {};
        for (const [k, v] of entries) es[String(k)] = f.message !== undefined ? (v as Sample).es : v;
        return [ours, es];
      });
  }
  const e = elemArb(f, depth, o);
  if (e === undefined) return undefined;
  return e.map((v) => [singleToOurs(f, v), singleToEs(f, v)]);
}

// Per descriptor instance (generated schemas reuse type names), then depth and options.
const cache = new WeakMap<DescMessage, Map<string, fc.Arbitrary<Sample>>>();
const stringArbIds = new Map<fc.Arbitrary<string>, number>();

export function messageArb(desc: DescMessage, depth = 2, options: ArbOptions = {}): fc.Arbitrary<Sample> {
  const o: Options = {
    depth,
    maxItems: options.maxItems ?? 4,
    maxMapEntries: options.maxMapEntries ?? 4,
    skipTypes: options.skipTypes ?? [],
    strings: options.strings,
  };
  if (o.strings !== undefined && !stringArbIds.has(o.strings)) stringArbIds.set(o.strings, stringArbIds.size + 1);
  const key = `${depth}|${o.maxItems}|${o.maxMapEntries}|${o.skipTypes.join(",")}|${o.strings === undefined ? 0 : stringArbIds.get(o.strings)}`;
  let byDesc = cache.get(desc);
  if (byDesc === undefined) cache.set(desc, (byDesc = new Map()));
  const hit = byDesc.get(key);
  if (hit) return hit;
  const parts: fc.Arbitrary<(s: { ours: Record<string, unknown>; es: Record<string, unknown> }) => void>[] = [];
  for (const f of desc.fields) {
    if (f.oneof !== undefined) continue;
    const a = fieldArb(f, depth, o);
    if (a === undefined) continue;
    parts.push(
      fc.option(a, { freq: 2 }).map((pair) => (s) => {
        if (pair === null) return;
        s.ours[f.name] = pair[0];
        s.es[f.localName] = pair[1];
      }),
    );
  }
  for (const oneof of desc.oneofs) {
    const members = oneof.fields
      .map((f) => {
        const a = fieldArb(f, depth, o);
        return a?.map((pair) => (s: Sample) => {
          (s.ours as Record<string, unknown>)[f.name] = pair[0];
          (s.es as Record<string, unknown>)[oneof.localName] = { case: f.localName, value: pair[1] };
        });
      })
      .filter((x) => x !== undefined);
    if (members.length > 0) parts.push(fc.option(fc.oneof(...members), { freq: 2 }).map((fn) => (s) => fn?.(s)));
  }
  const arb = fc.tuple(...parts).map((fns) => {
    const s = { ours: {} as Record<string, unknown>, es: {} as Record<string, unknown> };
    for (const fn of fns) fn(s);
    return s;
  });
  byDesc.set(key, arb);
  return arb;
}
