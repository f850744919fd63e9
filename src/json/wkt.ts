// The well-known types whose ProtoJSON form is not an object of their fields (Timestamp as an RFC
// 3339 string, wrappers as the bare scalar, …). A type is recognised by full name and shape: a
// user's own message that reuses a google.protobuf name with other fields stays an ordinary one.
import { ScalarType, type DescMessage } from "@bufbuild/protobuf";
import { digit, digitsEnd } from "./parse.js";

export const W_NONE = 0;
export const W_ANY = 1;
export const W_TIMESTAMP = 2;
export const W_DURATION = 3;
export const W_FIELD_MASK = 4;
export const W_STRUCT = 5;
export const W_VALUE = 6;
export const W_LIST_VALUE = 7;
export const W_WRAPPER = 8;

const kinds = new WeakMap<DescMessage, number>();

type Shape = readonly (readonly [name: string, number: number, kind: string, scalar?: ScalarType])[];

const SHAPES: Readonly<Record<string, readonly [number, Shape]>> = {
  "google.protobuf.Any": [W_ANY, [["type_url", 1, "scalar", ScalarType.STRING], ["value", 2, "scalar", ScalarType.BYTES]]],
  "google.protobuf.Timestamp": [W_TIMESTAMP, [["seconds", 1, "scalar", ScalarType.INT64], ["nanos", 2, "scalar", ScalarType.INT32]]],
  "google.protobuf.Duration": [W_DURATION, [["seconds", 1, "scalar", ScalarType.INT64], ["nanos", 2, "scalar", ScalarType.INT32]]],
  "google.protobuf.FieldMask": [W_FIELD_MASK, [["paths", 1, "list", ScalarType.STRING]]],
  "google.protobuf.Struct": [W_STRUCT, [["fields", 1, "map"]]],
  "google.protobuf.Value": [W_VALUE, [["null_value", 1, "enum"], ["number_value", 2, "scalar", ScalarType.DOUBLE], ["string_value", 3, "scalar", ScalarType.STRING], ["bool_value", 4, "scalar", ScalarType.BOOL], ["struct_value", 5, "message"], ["list_value", 6, "message"]]],
  "google.protobuf.ListValue": [W_LIST_VALUE, [["values", 1, "list"]]],
  "google.protobuf.DoubleValue": [W_WRAPPER, [["value", 1, "scalar", ScalarType.DOUBLE]]],
  "google.protobuf.FloatValue": [W_WRAPPER, [["value", 1, "scalar", ScalarType.FLOAT]]],
  "google.protobuf.Int64Value": [W_WRAPPER, [["value", 1, "scalar", ScalarType.INT64]]],
  "google.protobuf.UInt64Value": [W_WRAPPER, [["value", 1, "scalar", ScalarType.UINT64]]],
  "google.protobuf.Int32Value": [W_WRAPPER, [["value", 1, "scalar", ScalarType.INT32]]],
  "google.protobuf.UInt32Value": [W_WRAPPER, [["value", 1, "scalar", ScalarType.UINT32]]],
  "google.protobuf.BoolValue": [W_WRAPPER, [["value", 1, "scalar", ScalarType.BOOL]]],
  "google.protobuf.StringValue": [W_WRAPPER, [["value", 1, "scalar", ScalarType.STRING]]],
  "google.protobuf.BytesValue": [W_WRAPPER, [["value", 1, "scalar", ScalarType.BYTES]]],
};

/** W_NONE for an ordinary message (Empty included: its JSON form is `{}` like any message). */
export function wktKind(desc: DescMessage): number {
  let k = kinds.get(desc);
  if (k !== undefined) return k;
  k = W_NONE;
  const entry = desc.typeName.startsWith("google.protobuf.") ? SHAPES[desc.typeName] : undefined;
  if (entry !== undefined && shapeOk(desc, entry[1]) && (!JSON_VALUE_TYPES.has(desc.typeName) || jsonValueTypesOk(desc))) k = entry[0];
  kinds.set(desc, k);
  return k;
}

/** Each field of `shape`, and no other, by number, name, kind and scalar type. */
function shapeOk(desc: DescMessage, shape: Shape): boolean {
  const fields = desc.fields;
  return (
    fields.length === shape.length &&
    shape.every(([name, number, fieldKind, scalar]) => {
      const f = fields.find((x) => x.number === number);
      return f !== undefined && f.name === name && f.fieldKind === fieldKind && (scalar === undefined || f.scalar === scalar);
    })
  );
}

const JSON_VALUE_TYPES = new Set(["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"]);

/**
 * Struct, Value and ListValue are converted as one JSON value, so each is taken for the real one
 * only when all three are, as struct.proto declares them: Struct's map<string, Value>, ListValue's
 * repeated Value, Value's members in one oneof, NullValue with NULL_VALUE = 0. A look-alike (a
 * protobufjs schema, a hand-made set, a local struct.proto) with int32 map keys or string list
 * elements passed the field-by-field check: fromJson stored JSON keys in an int32 map and wrote
 * garbage ({a, b} came back as the one key 0), or threw untyped errors; a Value outside a oneof
 * lost all members but one. Such a type is an ordinary message.
 */
function jsonValueTypesOk(desc: DescMessage): boolean {
  const struct = desc.typeName === "google.protobuf.Struct" ? desc : structOf(desc);
  const value = struct === undefined ? undefined : struct.fields[0]?.fieldKind === "map" ? struct.fields[0].message : undefined;
  const list = value?.fields.find((f) => f.number === 6)?.message;
  if (struct === undefined || value === undefined || list === undefined) return false;
  if (![struct, value, list].includes(desc)) return false;
  for (const [d, name] of [
    [struct, "google.protobuf.Struct"],
    [value, "google.protobuf.Value"],
    [list, "google.protobuf.ListValue"],
  ] as const) {
    if (d.typeName !== name || !shapeOk(d, SHAPES[name]![1])) return false;
  }
  const map = struct.fields[0]!;
  if (map.fieldKind !== "map" || map.mapKey !== ScalarType.STRING) return false;
  const oneof = value.fields[0]!.oneof;
  if (oneof === undefined || oneof.fields.length !== 6 || value.fields.some((f) => f.oneof !== oneof)) return false;
  const byNumber = (n: number) => value.fields.find((f) => f.number === n)!;
  const nullValue = byNumber(1).enum;
  if (nullValue?.typeName !== "google.protobuf.NullValue" || nullValue.values.length !== 1 || nullValue.values[0]!.number !== 0) return false;
  if (byNumber(5).message !== struct) return false;
  const element = list.fields[0]!;
  return element.fieldKind === "list" && element.listKind === "message" && element.message === value;
}

/** The Struct a Value or ListValue reaches (a Value's struct_value; a ListValue's element's). */
function structOf(desc: DescMessage): DescMessage | undefined {
  const value = desc.typeName === "google.protobuf.Value" ? desc : desc.fields[0]?.message;
  return value?.fields.find((f) => f.number === 5)?.message;
}

/** True for the types that Any holds as `{"@type": …, "value": <form>}`. */
export function hasCustomForm(kind: number): boolean {
  return kind !== W_NONE;
}

// Ranges ProtoJSON allows (the spec's, as protobuf C++, Go and @bufbuild/protobuf check them).
const TIMESTAMP_MIN_S = -62135596800; // 0001-01-01T00:00:00Z
const TIMESTAMP_MAX_S = 253402300799; // 9999-12-31T23:59:59Z
export const DURATION_MAX_S = 315576000000;

/** Fraction digits as protobuf writes them: none, 3, 6 or 9. */
function fraction(nanos: number): string {
  if (nanos === 0) return "";
  const s = String(nanos + 1_000_000_000).slice(1);
  if (s.endsWith("000000")) return `.${s.slice(0, 3)}`;
  if (s.endsWith("000")) return `.${s.slice(0, 6)}`;
  return `.${s}`;
}

/** RFC 3339 text of a Timestamp, or the reason it has none. */
export function timestampText(seconds: number, nanos: number): string | { error: string } {
  if (!(seconds >= TIMESTAMP_MIN_S && seconds <= TIMESTAMP_MAX_S)) {
    return { error: `seconds ${seconds} is outside 0001-01-01T00:00:00Z..9999-12-31T23:59:59Z` };
  }
  if (!(nanos >= 0 && nanos <= 999_999_999)) return { error: `nanos ${nanos} is outside 0..999999999` };
  const iso = new Date(seconds * 1000).toISOString(); // "YYYY-MM-DDTHH:MM:SS.000Z"
  return `${iso.slice(0, 19)}${fraction(nanos)}Z`;
}

/** The value of the `n` decimal digits of `text` at i, or -1 when one of them is not a digit. */
function fixedDigits(text: string, i: number, n: number): number {
  let v = 0;
  for (let k = i; k < i + n; k++) {
    const c = text.charCodeAt(k);
    if (!digit(c)) return -1;
    v = v * 10 + (c - 48);
  }
  return v;
}

/**
 * The nanoseconds of the fraction at i ("." and 1 to 9 digits; none: 0) and where it ends, or
 * undefined when a dot is followed by no digit or by more than 9. Texts are scanned, not matched
 * by a regular expression (see jsonNumberEnd in parse.ts).
 */
function fractionAt(text: string, i: number): [number, number] | undefined {
  if (text.charCodeAt(i) !== 46) return [0, i];
  const end = digitsEnd(text, i + 1);
  const n = end - i - 1;
  if (n < 1 || n > 9) return undefined;
  return [Number(text.slice(i + 1, end).padEnd(9, "0")), end];
}

/**
 * [seconds, nanos] of RFC 3339 text (YYYY-MM-DDTHH:MM:SS, a fraction of up to 9 digits, then Z
 * or +HH:MM / -HH:MM), or undefined when it is not a valid timestamp in range.
 */
export function parseTimestamp(text: string): [number, number] | undefined {
  const y = fixedDigits(text, 0, 4);
  const month = fixedDigits(text, 5, 2);
  const day = fixedDigits(text, 8, 2);
  const h = fixedDigits(text, 11, 2);
  const mi = fixedDigits(text, 14, 2);
  const s = fixedDigits(text, 17, 2);
  if (y < 0 || month < 0 || day < 0 || h < 0 || mi < 0 || s < 0) return undefined;
  if (text[4] !== "-" || text[7] !== "-" || text[10] !== "T" || text[13] !== ":" || text[16] !== ":") return undefined;
  const frac = fractionAt(text, 19);
  if (frac === undefined) return undefined;
  const [nanos, z] = frac;
  let zone = 0;
  if (text.length === z + 6 && (text[z] === "+" || text[z] === "-") && text[z + 3] === ":") {
    const oh = fixedDigits(text, z + 1, 2);
    const om = fixedDigits(text, z + 4, 2);
    if (oh < 0 || om < 0 || oh > 23 || om > 59) return undefined;
    zone = (text[z] === "-" ? -1 : 1) * (oh * 3600 + om * 60);
  } else if (text.length !== z + 1 || text[z] !== "Z") return undefined;
  if (month < 1 || month > 12 || day < 1 || h > 23 || mi > 59 || s > 59) return undefined;
  const ms = Date.UTC(y, month - 1, day, h, mi, s);
  // Date.UTC maps years 0..99 to 1900..1999; setUTCFullYear puts the year back.
  const date = new Date(ms);
  date.setUTCFullYear(y);
  if (date.getUTCDate() !== day) return undefined; // February 30th and the like
  const seconds = date.getTime() / 1000 - zone;
  if (seconds < TIMESTAMP_MIN_S || seconds > TIMESTAMP_MAX_S) return undefined;
  return [seconds, nanos];
}

/** Duration text ("1.5s", "-0.000000001s"), or the reason it has none. */
export function durationText(seconds: number, nanos: number): string | { error: string } {
  if (!(seconds >= -DURATION_MAX_S && seconds <= DURATION_MAX_S)) {
    return { error: `seconds ${seconds} is outside -${DURATION_MAX_S}..${DURATION_MAX_S}` };
  }
  if (!(nanos >= -999_999_999 && nanos <= 999_999_999)) return { error: `nanos ${nanos} is outside -999999999..999999999` };
  if ((seconds > 0 && nanos < 0) || (seconds < 0 && nanos > 0)) return { error: `nanos ${nanos} has another sign than seconds ${seconds}` };
  const sign = seconds < 0 || nanos < 0 ? "-" : "";
  return `${sign}${Math.abs(seconds)}${fraction(Math.abs(nanos))}s`;
}

/** [seconds, nanos] of duration text ("-1.5s": an optional minus, digits, a fraction of up to 9 digits, "s"), or undefined. */
export function parseDuration(text: string): [number, number] | undefined {
  const negative = text.charCodeAt(0) === 45;
  const at = negative ? 1 : 0;
  const digits = digitsEnd(text, at);
  if (digits === at) return undefined;
  const frac = fractionAt(text, digits);
  if (frac === undefined) return undefined;
  const [nanos, s] = frac;
  if (s !== text.length - 1 || text[s] !== "s") return undefined;
  const seconds = Number(text.slice(at, digits));
  if (seconds > DURATION_MAX_S) return undefined;
  return negative ? [seconds === 0 ? 0 : -seconds, -nanos] : [seconds, nanos];
}

/** protoc's JSON name of a snake_case name (used for FieldMask paths). */
export function lowerCamel(snake: string): string {
  let out = "";
  let up = false;
  for (const c of snake) {
    if (c === "_") up = true;
    else if (c >= "0" && c <= "9") {
      out += c;
      up = false;
    } else {
      out += up ? c.toUpperCase() : c;
      up = false;
    }
  }
  return out;
}

/** The reverse of lowerCamel where it is one. */
export function snake(camel: string): string {
  let out = "";
  for (let k = 0; k < camel.length; k++) {
    const c = camel.charCodeAt(k);
    out += c >= 65 && c <= 90 ? `_${String.fromCharCode(c + 32)}` : camel[k];
  }
  return out;
}
