// Descriptor-driven helpers over message content, independent of any one library's representation:
// - mapContent: the neutral init form (see generate.mjs) → one library's init form;
// - neutralize: any library's decoded value → a canonical plain form for comparison;
// - firstDifference: the first place two canonical forms differ, as a readable path.
import { ScalarType } from "@bufbuild/protobuf";

const LONG_TYPES = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64]);
const UNSIGNED_LONG = new Set([ScalarType.UINT64, ScalarType.FIXED64]);

/** Whether a field is a 64-bit integer (scalar or list element). */
export const isLong = (field) => field.scalar !== undefined && LONG_TYPES.has(field.scalar);

function elementKind(field) {
  return field.fieldKind === "list" ? field.listKind : field.fieldKind;
}

/**
 * Maps neutral content to a library's init form.
 * @param {import("@bufbuild/protobuf").DescMessage} desc
 * @param {Record<string, unknown>} content
 * @param {{ key: (field: any) => string, long: (v: bigint, field: any) => unknown, oneof: "case" | "kind" | "member" }} style
 *   oneof: "case" is @bufbuild/protobuf's `{ case, value }`, "kind" protobuf-ts's
 *   `{ oneofKind: member, [member]: value }`, "member" the member's own key
 */
export function mapContent(desc, content, style) {
  const out = {};
  for (const field of desc.fields) {
    const v = content[field.name];
    if (v === undefined || v === null) continue;
    if (field.fieldKind === "map") throw new Error(`bench content: map field ${field.name} is not supported`);
    const one = (x) => (elementKind(field) === "message" ? mapContent(field.message, x, style) : isLong(field) ? style.long(x, field) : x);
    const mapped = field.fieldKind === "list" ? v.map(one) : one(v);
    if (field.oneof !== undefined && style.oneof === "case") out[field.oneof.localName] = { case: field.localName, value: mapped };
    else if (field.oneof !== undefined && style.oneof === "kind") out[field.oneof.localName] = { oneofKind: field.localName, [field.localName]: mapped };
    else out[style.key(field)] = mapped;
  }
  return out;
}

const isAccessor = (v) => typeof v.get === "function" && typeof v.has === "function" && !(v instanceof Map);

function readField(value, field) {
  if (isAccessor(value)) return value.has(field.name) ? value.get(field.name) : undefined;
  if (field.name in value) return value[field.name];
  return value[field.localName];
}

/** The selected member of a real oneof in any representation, or undefined. */
function oneofCase(value, oneof) {
  if (!isAccessor(value)) {
    const marker = value[oneof.localName] ?? value[oneof.name];
    // @bufbuild/protobuf: { case, value }
    if (marker !== null && typeof marker === "object" && "case" in marker) {
      const field = oneof.fields.find((f) => f.localName === marker.case);
      return field === undefined ? undefined : { field, v: marker.value };
    }
    // protobuf-ts: { oneofKind, [member]: value }
    if (marker !== null && typeof marker === "object" && "oneofKind" in marker) {
      const field = oneof.fields.find((f) => f.localName === marker.oneofKind);
      return field === undefined ? undefined : { field, v: marker[field.localName] };
    }
    // protobufjs virtual oneof property and pbf: the member's name
    if (typeof marker === "string") {
      const field = oneof.fields.find((f) => f.localName === marker || f.name === marker);
      if (field !== undefined) return { field, v: readField(value, field) };
    }
  }
  for (const field of oneof.fields) {
    const v = readField(value, field);
    if (v !== undefined && v !== null) return { field, v };
  }
  return undefined;
}

function toBigInt(v, field) {
  const unsigned = UNSIGNED_LONG.has(field.scalar);
  if (typeof v === "bigint") return unsigned ? BigInt.asUintN(64, v) : BigInt.asIntN(64, v);
  if (typeof v === "string") return BigInt(v);
  // a double that cannot hold the value keeps its rounded value, so precision loss shows up
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : NaN;
  // protobufjs Long { low, high, unsigned }
  if (v !== null && typeof v === "object" && "low" in v && "high" in v) {
    const bits = (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
    return unsigned ? bits : BigInt.asIntN(64, bits);
  }
  return v;
}

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

function neutralScalar(field, v) {
  if (isLong(field)) return toBigInt(v, field);
  // protobufjs reflection leaves an unset bytes field as a plain empty array
  if (field.scalar === ScalarType.BYTES) return v instanceof Uint8Array || Array.isArray(v) ? `bytes:${hex(v)}` : v;
  if (field.scalar === ScalarType.FLOAT) return Math.fround(v);
  return v;
}

function isDefault(field, v) {
  if (v === undefined || v === null) return true;
  if (field.fieldKind === "message") return false;
  if (isLong(field)) return v === 0n;
  if (field.scalar === ScalarType.BYTES) return v === "bytes:";
  return v === 0 || v === "" || v === false;
}

/**
 * The canonical form of a decoded value: proto field names; implicit-presence fields at their
 * default omitted; 64-bit integers as bigint; bytes as hex strings; lists as arrays (typed arrays
 * included); a oneof as its selected member.
 */
export function neutralize(desc, value) {
  const out = {};
  const done = new Set();
  for (const oneof of desc.oneofs) {
    for (const f of oneof.fields) done.add(f);
    const c = oneofCase(value, oneof);
    if (c !== undefined) out[c.field.name] = c.field.fieldKind === "message" ? neutralize(c.field.message, c.v) : neutralScalar(c.field, c.v);
  }
  for (const field of desc.fields) {
    if (done.has(field)) continue;
    if (field.fieldKind === "map") throw new Error(`bench content: map field ${field.name} is not supported`);
    const v = readField(value, field);
    if (v === undefined || v === null) continue;
    if (field.fieldKind === "list") {
      const items = Array.from(v, (x) => (field.listKind === "message" ? neutralize(field.message, x) : neutralScalar(field, x)));
      if (items.length > 0) out[field.name] = items;
    } else if (field.fieldKind === "message") {
      out[field.name] = neutralize(field.message, v);
    } else {
      const n = neutralScalar(field, v);
      // proto3 optional (explicit presence) keeps a set default; implicit presence does not
      if (field.presence === 1 || !isDefault(field, n)) out[field.name] = n;
    }
  }
  return out;
}

const show = (v) => (typeof v === "bigint" ? `${v}n` : typeof v === "string" ? JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v) : Array.isArray(v) ? `array(${v.length})` : v !== null && typeof v === "object" ? "message" : String(v));

/** The first difference between two canonical forms, e.g. `spans[3].start_time_unix_nano: expected 1n, got 0n`; null when equal. */
export function firstDifference(expected, actual, path = "") {
  if (Object.is(expected, actual)) return null;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
      const d = firstDifference(expected[i], actual[i], `${path}[${i}]`);
      if (d !== null) return d;
    }
    return expected.length === actual.length ? null : `${path}: expected ${expected.length} elements, got ${actual.length}`;
  }
  const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  if (isObj(expected) && isObj(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    for (const k of keys) {
      const sub = path === "" ? k : `${path}.${k}`;
      if (!(k in actual)) return `${sub}: missing (expected ${show(expected[k])})`;
      if (!(k in expected)) return `${sub}: unexpected ${show(actual[k])}`;
      const d = firstDifference(expected[k], actual[k], sub);
      if (d !== null) return d;
    }
    return null;
  }
  return `${path || "(root)"}: expected ${show(expected)}, got ${show(actual)}`;
}

/** Number of non-empty string values in neutral content (the fixture statistics). */
export function countStrings(desc, content) {
  let n = 0;
  for (const field of desc.fields) {
    const v = content[field.name];
    if (v === undefined || v === null) continue;
    const items = field.fieldKind === "list" ? v : [v];
    for (const x of items) {
      if (elementKind(field) === "message") n += countStrings(field.message, x);
      else if (field.scalar === ScalarType.STRING && x !== "") n++;
    }
  }
  return n;
}
