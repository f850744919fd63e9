// Helpers of the differential and aliasing properties: @bufbuild/protobuf's notion of content,
// a deep copy of a protokeel value's content, frames, and padding a message past the lazy-decode
// size with an unknown field. Public API only, so that the properties also run against dist/.
import { fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import type { DynamicMessage } from "../../src/index.js";
import { tag, varint } from "./wire-scramble.js";

export function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.length).toString("hex");
}

/** Bare messages of at least this many bytes are decoded lazily by `fromBinary`/`deserialize`. */
export const LAZY_MIN_BYTES = 4096;

/** True when `v` is a lazily decoded value not yet materialized (an internal, read-only getter). */
export function isLazy(v: DynamicMessage): boolean {
  return (v as unknown as { _isLazy: boolean })._isLazy;
}

type EsMessage = Record<string, unknown> & { $unknown?: { no: number; wireType: number; data: Uint8Array }[] };

const JSON_WKT = new Set(["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"]);

/** A JSON value with object keys sorted at every level (Struct field order is map order). */
function sortedJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedJson);
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortedJson((v as Record<string, unknown>)[k]);
  return out;
}

/** Map keys sorted and unknown fields grouped by number (stable), in place, at every level. */
function normalizeEs(desc: DescMessage, m: EsMessage): void {
  if (m.$unknown !== undefined && m.$unknown.length > 1) {
    m.$unknown = m.$unknown.map((u, i) => [u, i] as const).sort((a, b) => a[0].no - b[0].no || a[1] - b[1]).map(([u]) => u);
  }
  for (const f of desc.fields) {
    let v: unknown;
    if (f.oneof !== undefined) {
      const c = m[f.oneof.localName] as { case?: string; value?: unknown };
      if (c.case !== f.localName) continue;
      v = c.value;
    } else v = m[f.localName];
    if (f.message !== undefined && JSON_WKT.has(f.message.typeName)) {
      // @bufbuild/protobuf holds Struct, Value and ListValue fields as JSON values, not messages.
      if (f.fieldKind === "list") m[f.localName] = (v as unknown[]).map(sortedJson);
      else if (f.oneof === undefined) m[f.localName] = sortedJson(v);
      else (m[f.oneof.localName] as { value?: unknown }).value = sortedJson(v);
      continue;
    }
    if (f.fieldKind === "map") {
      const obj = v as Record<string, unknown>;
      const sorted = Object.keys(obj).sort();
      const out: Record<string, unknown> = {};
      for (const k of sorted) out[k] = obj[k];
      m[f.localName] = out;
      if (f.mapKind === "message") for (const k of sorted) normalizeEs(f.message, out[k] as EsMessage);
    } else if (f.fieldKind === "list" && f.listKind === "message") {
      for (const x of v as EsMessage[]) normalizeEs(f.message, x);
    } else if (f.message !== undefined && v !== undefined) normalizeEs(f.message, v as EsMessage);
  }
}

/**
 * @bufbuild/protobuf's content of a bare message, as hex: decoded, map entries by key, unknown
 * fields grouped by number (both orders are not content), encoded again.
 */
export function esContent(desc: DescMessage, bytes: Uint8Array): string {
  const m = fromBinary(desc, bytes) as unknown as EsMessage;
  normalizeEs(desc, m);
  return hex(toBinary(desc, m as never));
}

function plain(x: unknown): unknown {
  switch (typeof x) {
    case "bigint":
      return `${x}n`;
    case "number":
      return Object.is(x, -0) ? "-0" : String(x);
    case "string":
      return `s:${x}`;
    case "boolean":
      return x;
    default:
      if (x instanceof Uint8Array) return `0x${hex(x)}`;
      return contentOf(x as DynamicMessage);
  }
}

/**
 * A deep copy of a value's content, unknown fields and nested values included, that later changes
 * to the value's buffers cannot reach (bytes as hex, numbers with -0 and NaN kept). Reading it
 * materializes a lazy value.
 */
export function contentOf(v: DynamicMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { $type: v.descriptor.typeName };
  for (const f of v.descriptor.fields) {
    if (f.fieldKind === "list") {
      const a = v.getField(f) as readonly unknown[];
      if (a.length > 0) out[f.name] = a.map(plain);
    } else if (f.fieldKind === "map") {
      const m = v.getField(f) as ReadonlyMap<unknown, unknown>;
      // Entries by key: map order is not content.
      if (m.size > 0) out[f.name] = [...m].map(([k, x]) => [plain(k), plain(x)] as [string, unknown]).sort((p, q) => (p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : 0));
    } else if (v.hasField(f)) out[f.name] = plain(v.getField(f));
  }
  const unknown = [...v.unknownFields].map(([no, occurrences]) => [no, occurrences.map(hex)]);
  if (unknown.length > 0) out.$unknown = unknown;
  return out;
}

/** Every Uint8Array an eager value holds (fields and unknown fields, nested values included). */
export function bytesIn(v: DynamicMessage, out: Uint8Array[] = []): Uint8Array[] {
  const visit = (x: unknown) => {
    if (x instanceof Uint8Array) out.push(x);
    else if (x !== null && typeof x === "object" && "descriptor" in x) bytesIn(x as DynamicMessage, out);
  };
  for (const f of v.descriptor.fields) {
    if (f.fieldKind === "list") (v.getField(f) as readonly unknown[]).forEach(visit);
    else if (f.fieldKind === "map") for (const x of (v.getField(f) as ReadonlyMap<unknown, unknown>).values()) visit(x);
    else if (v.hasField(f)) visit(v.getField(f));
  }
  for (const occurrences of v.unknownFields.values()) out.push(...occurrences);
  return out;
}

/** One frame: varint length, then the body. */
export function frame(body: Uint8Array): Uint8Array {
  const head = varint(body.length);
  const out = new Uint8Array(head.length + body.length);
  out.set(head);
  out.set(body, head.length);
  return out;
}

/** The bodies of a buffer of frames. */
export function splitFrames(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let p = 0;
  while (p < bytes.length) {
    let len = 0;
    let shift = 1;
    for (;;) {
      const b = bytes[p++]!;
      len += (b & 0x7f) * shift;
      shift *= 128;
      if (b < 0x80) break;
    }
    out.push(bytes.subarray(p, p + len));
    p += len;
  }
  return out;
}

/** A field number that none of `descs` declares (the largest free one). */
export function freeNumber(...descs: DescMessage[]): number {
  const used = new Set(descs.flatMap((d) => d.fields.map((f) => f.number)));
  let n = 536_870_911;
  while (used.has(n)) n--;
  return n;
}

export interface Padding {
  /** The bare message with one unknown length-delimited field appended. */
  readonly bytes: Uint8Array;
  readonly number: number;
  /** The unknown field's occurrence: tag, length, payload. */
  readonly occurrence: Uint8Array;
}

/**
 * `bytes` with an unknown field (a number that `desc` — and every other version of it given in
 * `versions` — does not declare) appended so that the message is at least `size` bytes, the size
 * at which `fromBinary` decodes lazily by default.
 */
export function padWithUnknown(desc: DescMessage, bytes: Uint8Array, options: { versions?: DescMessage[]; size?: number } = {}): Padding {
  const size = options.size ?? LAZY_MIN_BYTES;
  const number = freeNumber(desc, ...(options.versions ?? []));
  const head = tag(number, 2);
  const n = Math.max(0, size - bytes.length - head.length - 1);
  const occurrence = new Uint8Array([...head, ...varint(n), ...new Uint8Array(n).fill(0x5a)]);
  const out = new Uint8Array(bytes.length + occurrence.length);
  out.set(bytes);
  out.set(occurrence, bytes.length);
  return { bytes: out, number, occurrence };
}

/** A copy of `bytes` in a buffer of its own (outputs of a serializer may share one). */
export function own(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

/** A scalar as the path-comparison tests print it: bigint with n, -0 and NaN by name, strings quoted. */
export function scalarShape(v: unknown): unknown {
  switch (typeof v) {
    case "bigint":
      return `${v}n`;
    case "number":
      return Object.is(v, -0) ? "-0" : Number.isNaN(v) ? "NaN" : v;
    case "string":
      return JSON.stringify(v);
    default:
      return v;
  }
}
