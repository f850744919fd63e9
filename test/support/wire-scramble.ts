// Rewrites a message's bytes into other encodings that protobuf defines as the same content
// (https://protobuf.dev/programming-guides/encoding/): fields in any order (relative order kept
// within a field number, since later occurrences override or append), packed runs split into
// several runs or written unpacked and unpacked elements packed, a singular scalar preceded by
// occurrences that the last one overrides, an absent implicit-presence field written as a value
// then an explicit zero, a singular message written as several occurrences that merge (parsing
// A then B equals parsing A‖B), and map entries with value before key. Decoding the result must
// give the same content as decoding the input.
import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";

export interface WireRecord {
  readonly no: number;
  readonly wt: number;
  /** Payload: varint bytes, fixed bytes, or the content of a length-delimited field. */
  readonly data: Uint8Array;
}

export interface ScrambleOptions {
  /** Split singular messages into merging occurrences (protobufjs replaces instead of merging). */
  readonly splitMessages?: boolean;
}

/** A small seeded PRNG (mulberry32), so that fast-check seeds reproduce a scramble. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function varint(n: bigint | number): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

export function tag(no: number, wt: number): number[] {
  return varint(BigInt(no) * 8n + BigInt(wt));
}

export function parseRecords(bytes: Uint8Array): WireRecord[] {
  const out: WireRecord[] = [];
  let p = 0;
  const readVarint = (): bigint => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = bytes[p++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
  };
  while (p < bytes.length) {
    const t = readVarint();
    const no = Number(t >> 3n);
    const wt = Number(t & 7n);
    const start = p;
    switch (wt) {
      case 0:
        readVarint();
        out.push({ no, wt, data: bytes.subarray(start, p) });
        break;
      case 1:
        p += 8;
        out.push({ no, wt, data: bytes.subarray(start, p) });
        break;
      case 5:
        p += 4;
        out.push({ no, wt, data: bytes.subarray(start, p) });
        break;
      case 2: {
        const len = Number(readVarint());
        out.push({ no, wt, data: bytes.subarray(p, p + len) });
        p += len;
        break;
      }
      default:
        throw new Error(`wire-scramble: wire type ${wt} in valid input`);
    }
  }
  return out;
}

export function writeRecords(records: readonly WireRecord[]): Uint8Array {
  const out: number[] = [];
  for (const r of records) {
    out.push(...tag(r.no, r.wt));
    if (r.wt === 2) out.push(...varint(r.data.length));
    for (const b of r.data) out.push(b);
  }
  return new Uint8Array(out);
}

/** The wire type of one scalar element. */
export function scalarWireType(t: ScalarType): number {
  switch (t) {
    case ScalarType.DOUBLE:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return 1;
    case ScalarType.FLOAT:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return 5;
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return 2;
    default:
      return 0;
  }
}

function elementScalar(f: DescField): ScalarType | undefined {
  if (f.fieldKind === "list") return f.listKind === "scalar" ? f.scalar : f.listKind === "enum" ? ScalarType.INT32 : undefined;
  if (f.fieldKind === "scalar") return f.scalar;
  if (f.fieldKind === "enum") return ScalarType.INT32;
  return undefined;
}

/** Splits a packed payload into its elements' encodings. */
function unpack(data: Uint8Array, wt: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let p = 0;
  while (p < data.length) {
    const start = p;
    if (wt === 1) p += 8;
    else if (wt === 5) p += 4;
    else while (data[p++]! >= 0x80);
    out.push(data.subarray(start, p));
  }
  return out;
}

/** The parts back to back in one new array. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, x) => n + x.length, 0));
  let p = 0;
  for (const x of parts) {
    out.set(x, p);
    p += x.length;
  }
  return out;
}

const enc = new TextEncoder();

/**
 * A value the wire type allows that a later occurrence overrides (valid for the scalar type;
 * within ±(2^53 − 1) for `jsNumber` fields, whose every occurrence protokeel checks).
 */
function decoy(t: ScalarType, r: () => number, jsNumber = false): Uint8Array {
  switch (scalarWireType(t)) {
    case 1: {
      const b = new Uint8Array(8).map(() => (r() * 256) | 0);
      if (jsNumber) {
        b[6]! &= 0x1f;
        b[7] = 0;
      }
      return b;
    }
    case 5:
      return new Uint8Array(4).map(() => (r() * 256) | 0);
    case 2:
      return t === ScalarType.STRING ? enc.encode("decoy é😀") : new Uint8Array([1, 2, 3]);
    default:
      return new Uint8Array(t === ScalarType.BOOL ? [1] : [1 + ((r() * 127) | 0)]);
  }
}

function zeroOf(t: ScalarType): Uint8Array {
  const wt = scalarWireType(t);
  return wt === 1 ? new Uint8Array(8) : wt === 5 ? new Uint8Array(4) : wt === 2 ? new Uint8Array(0) : new Uint8Array([0]);
}

/** Returns bytes with the same content as `bytes` (a valid `desc`) in another legal encoding. */
export function scramble(desc: DescMessage, bytes: Uint8Array, r: () => number, o: ScrambleOptions = {}): Uint8Array {
  return writeRecords(scrambleRecords(desc, bytes, r, o));
}

function scrambleRecords(desc: DescMessage, bytes: Uint8Array, r: () => number, o: ScrambleOptions): WireRecord[] {
  // One queue of output records per field number; queues keep their order, fields interleave.
  const queues = new Map<number, WireRecord[]>();
  const push = (rec: WireRecord) => {
    let q = queues.get(rec.no);
    if (q === undefined) queues.set(rec.no, (q = []));
    q.push(rec);
  };
  const elements = new Map<number, { wt: number; items: Uint8Array[] }>();
  for (const rec of parseRecords(bytes)) {
    const f = desc.fields.find((x) => x.number === rec.no);
    if (f === undefined) {
      push(rec);
      continue;
    }
    const scalar = elementScalar(f);
    if (f.fieldKind === "list" && scalar !== undefined && scalar !== ScalarType.STRING && scalar !== ScalarType.BYTES) {
      const wt = scalarWireType(scalar);
      const e = elements.get(rec.no) ?? { wt, items: [] };
      elements.set(rec.no, e);
      if (rec.wt === 2) e.items.push(...unpack(rec.data, wt));
      else e.items.push(rec.data);
      continue;
    }
    if (f.fieldKind === "map") {
      push({ no: rec.no, wt: 2, data: scrambleEntry(f, rec.data, r, o) });
      continue;
    }
    if (f.message !== undefined) {
      const inner = scrambleRecords(f.message, rec.data, r, o);
      if (f.fieldKind === "message" && o.splitMessages && inner.length > 0 && r() < 0.3) {
        const k = (r() * (inner.length + 1)) | 0;
        push({ no: rec.no, wt: 2, data: writeRecords(inner.slice(0, k)) });
        push({ no: rec.no, wt: 2, data: writeRecords(inner.slice(k)) });
      } else push({ no: rec.no, wt: 2, data: writeRecords(inner) });
      continue;
    }
    if (scalar !== undefined && f.fieldKind !== "list" && r() < 0.25) push({ no: rec.no, wt: rec.wt, data: decoy(scalar, r, f.proto.options?.jstype === 2) });
    push(rec);
  }
  for (const [no, e] of elements) {
    // Chunks of the run, each packed or unpacked; sometimes an empty packed run, which is legal.
    let i = 0;
    while (i < e.items.length) {
      const n = 1 + ((r() * (e.items.length - i)) | 0);
      const chunk = e.items.slice(i, i + n);
      i += n;
      if (r() < 0.5) for (const x of chunk) push({ no, wt: e.wt, data: x });
      else push({ no, wt: 2, data: concat(chunk) });
    }
    if (r() < 0.1) push({ no, wt: 2, data: new Uint8Array(0) });
  }
  // An absent implicit-presence field: a value, then an explicit zero that overrides it.
  const implicit = desc.fields.filter(
    (f) => (f.fieldKind === "scalar" || f.fieldKind === "enum") && f.presence === 2 && !queues.has(f.number),
  );
  if (implicit.length > 0 && r() < 0.5) {
    const f = implicit[(r() * implicit.length) | 0]!;
    const t = elementScalar(f)!;
    const wt = scalarWireType(t);
    push({ no: f.number, wt, data: decoy(t, r, f.proto.options?.jstype === 2) });
    push({ no: f.number, wt, data: zeroOf(t) });
  }
  const out: WireRecord[] = [];
  const live = [...queues.values()];
  while (live.length > 0) {
    const j = (r() * live.length) | 0;
    const q = live[j]!;
    out.push(q.shift()!);
    if (q.length === 0) live.splice(j, 1);
  }
  return out;
}

function scrambleEntry(f: DescField & { fieldKind: "map" }, data: Uint8Array, r: () => number, o: ScrambleOptions): Uint8Array {
  const recs = parseRecords(data).map((rec) =>
    rec.no === 2 && f.mapKind === "message" ? { ...rec, data: scramble(f.message, rec.data, r, o) } : rec,
  );
  return writeRecords(r() < 0.5 ? recs.reverse() : recs);
}
