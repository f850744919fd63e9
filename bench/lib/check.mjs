// Reference checks, run on every codec before it is timed. A codec that fails one is marked in the
// table with the reason and not ranked for that operation (its time is still shown).
//
// What each check compares:
// - decode: the decoded value, mapped to a canonical form (neutralize: proto field names, 64-bit
//   integers as bigint, bytes as hex, defaults of implicit-presence fields omitted, a oneof as its
//   selected member), equals the generator's content field by field.
// - encode: the bytes written from a value built from the content (never a decoded value) equal the
//   reference bytes. Different bytes pass only if @bufbuild/protobuf decodes them to the same
//   content (a note says so).
// - encode-plain (encode from a plain object): the bytes written from the codec's plain object
//   form, as for encode; the input must be plain (every message level an object literal, not a
//   built value or class instance) and left exactly as it was (a codec that memoized on it would
//   have the timed loop, which writes the same object again, time its cache).
// - relay: decode then encode of the reference bytes gives the reference bytes (same fallback), and
//   of the reference bytes with two unknown fields appended gives exactly those bytes (when not
//   byte-equal: @bufbuild/protobuf must find the same content and both unknown fields).
// - validate: accepts the reference bytes and throws on (or returns false for) the reference bytes
//   with the last byte cut and, where the message has a string, with one string's bytes made
//   invalid UTF-8. Codecs without a validate-only call are checked (and timed) with a full decode.
// - frames decode/encode/encode-plain: all 1000 frames as above, on the varint-delimited buffer.
import { fromBinary } from "@bufbuild/protobuf";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { firstDifference, neutralize } from "./content.mjs";
import { UNKNOWN_FIELDS } from "./build-fixtures.mjs";

/** Operations per fixture kind, in table order. */
export const OPERATIONS = { message: ["decode", "encode", "encode-plain", "relay", "validate"], frames: ["decode", "encode", "encode-plain"] };

const ok = (note) => (note === undefined ? { ok: true } : { ok: true, note });
const fail = (reason) => ({ ok: false, reason });

const sameBytes = (a, b) => a instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);

const message = (e) => (e instanceof Error ? e.message : String(e)).split("\n")[0];

function attempt(what, fn) {
  try {
    return { value: fn() };
  } catch (e) {
    return { error: fail(`${what} threw: ${message(e)}`) };
  }
}

/** Content difference of a decoded value from neutral content, or null. */
function contentDifference(desc, content, decoded) {
  return firstDifference(neutralize(desc, content), neutralize(desc, decoded));
}

/** Compares written bytes with the reference: exact, else same content per @bufbuild/protobuf. */
function compareWritten(op, desc, content, out, reference) {
  if (!(out instanceof Uint8Array)) return fail(`${op} returned ${typeof out}, not a Uint8Array`);
  if (sameBytes(out, reference)) return ok();
  const parsed = attempt(`@bufbuild/protobuf parsing the ${op} output`, () => fromBinary(desc, out));
  if (parsed.error) return parsed.error;
  const d = contentDifference(desc, content, parsed.value);
  return d === null ? ok(`${op}: bytes differ from the reference, same content`) : fail(`${op}: ${d}`);
}

/** A oneof member in the { case, value } (@bufbuild/protobuf) or { oneofKind } (protobuf-ts) form. */
function oneofMember(value, field) {
  const o = field.oneof === undefined ? undefined : value[field.oneof.localName];
  if (o?.case === field.localName) return o.value;
  if (o?.oneofKind === field.localName) return o[field.localName];
  return undefined;
}

/** Where a plain input is not plain: a message level that is not an object literal. */
function notPlain(desc, value, path) {
  const proto = value === null || typeof value !== "object" ? undefined : Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return `${path || "the input"} is ${value?.constructor?.name ?? typeof value}, not a plain object`;
  for (const field of desc.fields) {
    const kind = field.fieldKind === "list" ? field.listKind : field.fieldKind;
    if (kind !== "message") continue;
    const v = value[field.name] ?? value[field.localName] ?? oneofMember(value, field);
    if (v === undefined || v === null) continue;
    const items = field.fieldKind === "list" ? Array.from(v) : [v];
    for (let i = 0; i < items.length; i++) {
      const d = notPlain(field.message, items[i], `${path ? path + "." : ""}${field.name}${field.fieldKind === "list" ? `[${i}]` : ""}`);
      if (d !== null) return d;
    }
  }
  return null;
}

/** A deep print of a plain input (own keys, symbols included), to see whether writing changed it. */
function snapshot(v) {
  if (typeof v === "bigint") return `${v}n`;
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? String(v);
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}[${Array.from(v).join(",")}]`;
  if (v instanceof Map) return `Map{${[...v].map(([k, x]) => `${snapshot(k)}:${snapshot(x)}`).join(",")}}`;
  const keys = Reflect.ownKeys(v);
  return `{${keys.map((k) => `${String(k)}:${snapshot(v[k])}`).join(",")}}`;
}

/** Writes a plain input (frames: a list of them) with `write`, then checks it was plain and stayed as it was. */
function writePlain(desc, plain, write) {
  const d = Array.isArray(plain) ? plain.reduce((found, p, i) => found ?? notPlain(desc, p, `frame ${i}`), null) : notPlain(desc, plain, "");
  if (d !== null) return { error: fail(`encode-plain: ${d}`) };
  const before = snapshot(plain);
  const r = attempt("encode-plain", () => write(plain));
  if (r.error) return r;
  if (snapshot(plain) !== before) return { error: fail("encode-plain: writing changed the plain object") };
  return r;
}

function unknownNumbers(esMessage) {
  return new Set((esMessage.$unknown ?? []).map((u) => u.no));
}

const rejects = (fn, bytes) => {
  try {
    return fn(bytes) === false;
  } catch {
    return true;
  }
};

function checkMessage(bound, fixture, op) {
  const { desc, content } = fixture;
  switch (op) {
    case "decode": {
      const r = attempt("decode", () => bound.decode(fixture.bytes));
      if (r.error) return r.error;
      const d = contentDifference(desc, content, r.value);
      return d === null ? ok() : fail(`decode: ${d}`);
    }
    case "encode": {
      const r = attempt("encode", () => bound.encode(bound.value));
      return r.error ?? compareWritten("encode", desc, content, r.value, fixture.bytes);
    }
    case "encode-plain": {
      const r = writePlain(desc, bound.plain, bound.encodePlain);
      return r.error ?? compareWritten("encode-plain", desc, content, r.value, fixture.bytes);
    }
    case "relay": {
      const r = attempt("relay", () => bound.relay(fixture.bytes));
      if (r.error) return r.error;
      const plain = compareWritten("relay", desc, content, r.value, fixture.bytes);
      if (!plain.ok) return plain;
      const u = attempt("relay with unknown fields", () => bound.relay(fixture.withUnknown));
      if (u.error) return u.error;
      if (sameBytes(u.value, fixture.withUnknown)) return plain;
      const parsed = attempt("@bufbuild/protobuf parsing the relay output", () => fromBinary(desc, u.value));
      if (parsed.error) return parsed.error;
      const kept = unknownNumbers(parsed.value);
      const dropped = UNKNOWN_FIELDS.filter((f) => !kept.has(f.number)).map((f) => f.number);
      if (dropped.length > 0) return fail(`relay drops unknown fields (${dropped.join(", ")})`);
      const d = contentDifference(desc, content, parsed.value);
      return d === null ? ok("relay: bytes with unknown fields reordered, same content") : fail(`relay: ${d}`);
    }
    case "validate": {
      const fn = bound.validate ?? bound.decode;
      const r = attempt("validate", () => fn(fixture.bytes));
      if (r.error) return r.error;
      if (r.value === false) return fail("validate rejects the reference bytes");
      const missed = [];
      if (!rejects(fn, fixture.truncated)) missed.push("a truncated message (last byte cut)");
      if (fixture.invalidUtf8 !== null && !rejects(fn, fixture.invalidUtf8)) missed.push("invalid UTF-8 in a string");
      if (missed.length > 0) return fail(`accepts ${missed.join(" and ")}`);
      return ok(bound.validate === undefined ? "full decode (no validate-only call)" : undefined);
    }
    default:
      throw new Error(`unknown operation ${op}`);
  }
}

function parseFrames(desc, buf) {
  const reader = new BinaryReader(buf);
  const out = [];
  while (reader.pos < reader.len) out.push(fromBinary(desc, reader.bytes()));
  return out;
}

function framesDifference(desc, contents, decoded) {
  if (!Array.isArray(decoded) && !(decoded?.length >= 0)) return `returned ${typeof decoded}, not a list of messages`;
  const list = Array.from(decoded);
  if (list.length !== contents.length) return `expected ${contents.length} messages, got ${list.length}`;
  for (let i = 0; i < list.length; i++) {
    const d = contentDifference(desc, contents[i], list[i]);
    if (d !== null) return `frame ${i}: ${d}`;
  }
  return null;
}

function checkFrames(bound, fixture, op) {
  const { desc, contents } = fixture;
  if (op === "decode") {
    const r = attempt("decodeFrames", () => bound.decodeFrames(fixture.bytes));
    if (r.error) return r.error;
    const d = framesDifference(desc, contents, r.value);
    return d === null ? ok() : fail(`frames decode: ${d}`);
  }
  if (op === "encode" || op === "encode-plain") {
    const r = op === "encode" ? attempt("encodeFrames", () => bound.encodeFrames(bound.values)) : writePlain(desc, bound.plains, (plains) => bound.encodePlainFrames(plains));
    if (r.error) return r.error;
    if (!(r.value instanceof Uint8Array)) return fail(`frames ${op} returned ${typeof r.value}, not a Uint8Array`);
    if (sameBytes(r.value, fixture.bytes)) return ok();
    const parsed = attempt("@bufbuild/protobuf parsing the frames", () => parseFrames(desc, r.value));
    if (parsed.error) return parsed.error;
    const d = framesDifference(desc, contents, parsed.value);
    return d === null ? ok(`frames ${op}: bytes differ from the reference, same content`) : fail(`frames ${op}: ${d}`);
  }
  throw new Error(`unknown frames operation ${op}`);
}

/**
 * Checks one prepared codec (an adapter's `prepare(fixture)` result) on one operation.
 * @returns {{ ok: true, note?: string } | { ok: false, reason: string }}
 */
export function checkOperation(bound, fixture, op) {
  return fixture.kind === "frames" ? checkFrames(bound, fixture, op) : checkMessage(bound, fixture, op);
}
