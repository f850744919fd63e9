// Name helpers shared by the rules, the protobufjs lowering and normalization. They follow protoc
// (descriptor.cc ToJsonName and MapEntryName) so that every input path yields the same names.

import { isFieldSet, type DescField } from "@bufbuild/protobuf";
import { FieldDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";

/**
 * A field's JSON name: its `json_name`, or protoc's when the descriptor sets none (normalization
 * records the same). Not `DescField.jsonName`, which @bufbuild/protobuf leaves "" for a field of a
 * hand-made set without json_name: every such field was written to JSON under the key "" (all but
 * the last lost), and the evaluator compared "" with "".
 */
export function jsonNameOf(f: DescField): string {
  return isFieldSet(f.proto, FieldDescriptorProtoSchema.field.jsonName) ? f.proto.jsonName : protocJsonName(f.name);
}

/** The JSON name protoc gives a field that declares no `json_name`: drop `_`, upper-case the next char. */
export function protocJsonName(fieldName: string): string {
  let out = "";
  let upperNext = false;
  for (const ch of fieldName) {
    if (ch === "_") {
      upperNext = true;
    } else if (upperNext) {
      out += ch.toUpperCase();
      upperNext = false;
    } else {
      out += ch;
    }
  }
  return out;
}

/** The nested entry type protoc generates for map field `fieldName` (`labels` → `LabelsEntry`). */
export function mapEntryName(fieldName: string): string {
  let out = "";
  let upperNext = true;
  for (const ch of fieldName) {
    if (ch === "_") {
      upperNext = true;
    } else if (upperNext) {
      out += ch >= "a" && ch <= "z" ? ch.toUpperCase() : ch;
      upperNext = false;
    } else {
      out += ch;
    }
  }
  return out + "Entry";
}

const encoder = new TextEncoder();

/** UTF-8 length without allocating for the common ASCII case. */
export function utf8Length(s: string): number {
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  return ascii ? s.length : encoder.encode(s).length;
}

/** Names and input text up to this length appear in error messages whole; longer ones are cut. */
const SHORT_MAX = 200;
const SHORT_HEAD = 120;

/** Where to cut `s` for a short form: never between the halves of a surrogate pair. */
function headEnd(s: string): number {
  const c = s.charCodeAt(SHORT_HEAD - 1);
  return c >= 0xd800 && c <= 0xdbff ? SHORT_HEAD - 1 : SHORT_HEAD;
}

/** A short form of a possibly huge name for error messages (a 70 KB name must not flood logs). */
export function shortName(name: string): string {
  return name.length <= SHORT_MAX ? name : `${name.slice(0, headEnd(name))}…(${name.length} chars)`;
}

/**
 * Input text quoted for an error message: `"labels"`, or for a huge one its quoted head and its
 * length, `"aaaa…"…(1000000 chars)`. Keys, property names, type URLs and number lexemes come from
 * the input, and an error that repeats a 1 MB key twice is a 2 MB log line.
 */
export function quoted(s: string): string {
  return s.length <= SHORT_MAX ? JSON.stringify(s) : `${JSON.stringify(s.slice(0, headEnd(s)))}…(${s.length} chars)`;
}

/**
 * A field path for an error message: a long one (a depth error is usually a long chain; at
 * maxDepth 10,000 the whole path is ~90 KB) keeps its first two and last three steps. The error's
 * `path` property keeps the whole path.
 */
export function shortPath(path: string, rootName: string): string {
  if (!path.startsWith(`${rootName}.`)) return path;
  const steps = path.slice(rootName.length + 1).split(".");
  if (steps.length <= 8) return path;
  return `${rootName}.${steps.slice(0, 2).join(".")}...${steps.slice(-3).join(".")}`;
}

/** The path segment of a list index or map key: `[0]`, `["k"]`, `[true]`; "" for none. */
export function keySegment(key: unknown): string {
  if (key === undefined) return "";
  return typeof key === "string" ? `[${quoted(key)}]` : `[${String(key)}]`;
}
