// JSON text → JSON value for fromJsonString, in one forward pass with an explicit stack (any
// nesting, linear time). Unlike JSON.parse it rejects duplicate keys (JSON.parse keeps the last,
// silently), keeps `__proto__` an ordinary key (objects have no prototype), stops at a nesting
// bound, and keeps the exact digits of integers beyond 2^53 (JSON.parse rounds them), so that an
// unquoted 64-bit integer reads exactly.

import { quoted } from "../descriptor/names.js";

/** An integer literal beyond Number.MAX_SAFE_INTEGER: its exact digits and the rounded number. */
export class JsonBigInteger {
  constructor(
    /** The exact decimal digits, with a sign when negative. */
    readonly text: string,
    readonly value: number,
    /** Written with an exponent or a fraction (1e18): error messages show the number as such. */
    readonly scaled = false,
  ) {}
}

/** A syntax error at a character index of the text. */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(message);
  }
}

/** Nesting deeper than the bound the caller gave. */
export class JsonTooDeep extends Error {
  constructor(readonly index: number) {
    super("too deep");
  }
}

/** True for the character code of a decimal digit (NaN, past the text's end, is none). */
export function digit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** The end of the digits of `text` from i (i itself when there are none). */
export function digitsEnd(text: string, i: number): number {
  while (digit(text.charCodeAt(i))) i++;
  return i;
}

/**
 * The end of the JSON number (RFC 8259 §6) that starts at i, or -1 when none does: the longest
 * prefix that is one, as a sticky regular expression would match it ("1." ends before the dot,
 * which the caller then refuses). A scan, not a regular expression: V8 compiles one on first use
 * and on tier-up, and compiled with little stack left it throws a SyntaxError of its own (the
 * binary writer met that, test/adversarial/low-stack-no-regexp.test.ts); the scan also takes
 * 14-18 ns a literal where the expression's exec took 34 or more (Node 20, one process).
 */
export function jsonNumberEnd(text: string, i: number): number {
  if (text.charCodeAt(i) === 45) i++; // -
  const c = text.charCodeAt(i);
  if (c === 48) i++;
  else if (c >= 49 && c <= 57) i = digitsEnd(text, i + 1);
  else return -1;
  if (text.charCodeAt(i) === 46 && digit(text.charCodeAt(i + 1))) i = digitsEnd(text, i + 2);
  const e = text.charCodeAt(i);
  if (e === 101 || e === 69) {
    let j = i + 1;
    const sign = text.charCodeAt(j);
    if (sign === 43 || sign === 45) j++;
    if (digit(text.charCodeAt(j))) i = digitsEnd(text, j + 1);
  }
  return i;
}

/** True when a number literal has a fraction or an exponent. */
function scaledLiteral(lexeme: string): boolean {
  for (let k = 0; k < lexeme.length; k++) {
    const c = lexeme.charCodeAt(k);
    if (c === 46 || c === 101 || c === 69) return true;
  }
  return false;
}

/** True when the whole of `text` is one JSON number ("1.5e3", "-0"; not "+1", "1.", ".5", "01"). */
export function isJsonNumber(text: string): boolean {
  return text.length > 0 && jsonNumberEnd(text, 0) === text.length;
}

/**
 * The exact decimal integer a number literal with a fraction or an exponent denotes ("1.5e3" ->
 * "1500"), or undefined when it has a non-zero fraction. Called only for literals whose value is
 * a finite double beyond 2^53, so the digits are at most ~310 more than the literal's.
 */
function integerDigits(lexeme: string): string | undefined {
  const negative = lexeme.charCodeAt(0) === 45;
  const intStart = negative ? 1 : 0;
  const intEnd = digitsEnd(lexeme, intStart);
  let fraction = "";
  let expAt = intEnd;
  if (lexeme.charCodeAt(intEnd) === 46) {
    expAt = digitsEnd(lexeme, intEnd + 1);
    fraction = lexeme.slice(intEnd + 1, expAt);
  }
  let digits = lexeme.slice(intStart, intEnd) + fraction;
  const scale = (expAt < lexeme.length ? Number(lexeme.slice(expAt + 1)) : 0) - fraction.length;
  if (scale < 0) {
    const keep = digits.length + scale;
    for (let k = keep; k < digits.length; k++) if (digits.charCodeAt(k) !== 48) return undefined;
    digits = digits.slice(0, keep);
  } else digits += "0".repeat(scale);
  let lead = 0;
  while (lead < digits.length - 1 && digits.charCodeAt(lead) === 48) lead++;
  return (negative ? "-" : "") + digits.slice(lead);
}

type Container = Record<string, unknown> | unknown[];

interface Open {
  readonly value: Container;
  /** The key whose value comes next (objects). */
  key: string | undefined;
}

/** Parses JSON text; objects are created without a prototype. */
export function parseJsonText(text: string, maxNesting: number): unknown {
  const stack: Open[] = [];
  let i = 0;
  const n = text.length;

  const ws = (): void => {
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    }
  };
  const fail = (what: string, at = i): never => {
    throw new JsonSyntaxError(at >= n ? `${what}: the text ends at character ${n}` : `${what} at character ${at}`, at);
  };
  const string = (): string => {
    const start = ++i; // after the opening quote
    let escaped = false;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 34) break;
      if (c === 92) {
        escaped = true;
        i++;
      } else if (c < 32) fail("a control character inside a string (escape it)");
    }
    if (i >= n) fail("an unterminated string", start - 1);
    const end = i++;
    if (!escaped) return text.slice(start, end);
    try {
      return JSON.parse(text.slice(start - 1, end + 1)) as string;
    } catch {
      return fail("an invalid escape in a string", start - 1);
    }
  };
  // A value that is not a container; containers are opened by the loop.
  const scalar = (): unknown => {
    const c = text.charCodeAt(i);
    if (c === 34) return string();
    if (c === 116 && text.startsWith("true", i)) {
      i += 4;
      return true;
    }
    if (c === 102 && text.startsWith("false", i)) {
      i += 5;
      return false;
    }
    if (c === 110 && text.startsWith("null", i)) {
      i += 4;
      return null;
    }
    const end = jsonNumberEnd(text, i);
    if (end < 0) return fail("an unexpected character (a JSON value was expected)");
    const lexeme = text.slice(i, end);
    i = end;
    const v = Number(lexeme);
    if (Number.isSafeInteger(v)) return v;
    // Beyond 2^53 (or Infinity, 400 digits): an integer literal keeps its exact digits; 1e18 or
    // 1.0e19 is an integer too (its exact digits, scaled, for a 64-bit field).
    if (!scaledLiteral(lexeme)) return new JsonBigInteger(lexeme, v);
    if (Number.isInteger(v)) {
      const digits = integerDigits(lexeme);
      if (digits !== undefined) return new JsonBigInteger(digits, v, true);
    }
    return v;
  };

  let result: unknown;
  let done = false;
  ws();
  if (i >= n) fail("no JSON value");
  for (;;) {
    // Here a value starts at i.
    let value: unknown;
    const c = text.charCodeAt(i);
    if (c === 123 || c === 91) {
      if (stack.length >= maxNesting) throw new JsonTooDeep(i);
      const container: Container = c === 123 ? (Object.create(null) as Record<string, unknown>) : [];
      i++;
      ws();
      const closes = c === 123 ? 125 : 93;
      if (text.charCodeAt(i) === closes) {
        i++;
        value = container;
      } else {
        const open: Open = { value: container, key: undefined };
        stack.push(open);
        if (c === 123) {
          open.key = key();
        }
        continue;
      }
    } else {
      value = scalar();
    }
    // Place the value and move to the next one, closing containers as they end.
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) {
        result = value;
        done = true;
        break;
      }
      if (Array.isArray(top.value)) top.value.push(value);
      else top.value[top.key!] = value;
      ws();
      const d = text.charCodeAt(i);
      if (d === 44) {
        i++;
        ws();
        if (!Array.isArray(top.value)) top.key = key();
        break;
      }
      if (d === (Array.isArray(top.value) ? 93 : 125)) {
        i++;
        stack.pop();
        value = top.value;
        continue;
      }
      fail(Array.isArray(top.value) ? "expected , or ] after an array element" : "expected , or } after an object member");
    }
    if (done) break;
    ws();
    if (i >= n) fail("a value is missing");
  }
  ws();
  if (i < n) fail("unexpected text after the JSON value");
  return result;

  // `"key" :` at i (after whitespace); returns the key and leaves i at the value.
  function key(): string {
    if (text.charCodeAt(i) !== 34) fail("expected a string key");
    const at = i;
    const k = string();
    const top = stack[stack.length - 1]!.value as Record<string, unknown>;
    if (Object.hasOwn(top, k)) {
      throw new JsonSyntaxError(`the key ${quoted(k)} appears twice in one object at character ${at} (JSON.parse would keep only the last)`, at);
    }
    ws();
    if (text.charCodeAt(i) !== 58) fail("expected : after an object key");
    i++;
    ws();
    if (i >= n) fail("a value is missing");
    return k;
  }
}
