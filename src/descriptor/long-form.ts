// How a descriptor's 64-bit integer fields are held in JavaScript (jstype), for the codec and the
// evaluator alike: a module of its own so that the evaluator's bundle does not carry the codec's
// field tables (test/bundle-size.test.ts).
import { ScalarType, type DescField } from "@bufbuild/protobuf";

/** How a 64-bit integer is held: `bigint`, decimal `string` (jstype JS_STRING), `number` (JS_NUMBER). */
export const L_BIGINT = 0;
export const L_STRING = 1;
export const L_NUMBER = 2;

// FieldOptions.JSType.JS_NUMBER
const JS_NUMBER = 2;

export function is64(t: ScalarType | 0): boolean {
  return (
    t === ScalarType.INT64 ||
    t === ScalarType.UINT64 ||
    t === ScalarType.SINT64 ||
    t === ScalarType.FIXED64 ||
    t === ScalarType.SFIXED64
  );
}

/** A 64-bit field held as a JS number (jstype = JS_NUMBER): its wire values must stay within ±(2^53 − 1). */
export function holdsJsNumber(f: DescField): boolean {
  return longMode(f) === L_NUMBER;
}

/** L_BIGINT, L_STRING or L_NUMBER for 64-bit scalars (singular and list); L_BIGINT otherwise. */
export function longMode(f: DescField): number {
  if (f.fieldKind !== "scalar" && !(f.fieldKind === "list" && f.listKind === "scalar")) return L_BIGINT;
  if (!is64(f.scalar)) return L_BIGINT;
  if (f.longAsString) return L_STRING;
  return f.proto.options?.jstype === JS_NUMBER ? L_NUMBER : L_BIGINT;
}
