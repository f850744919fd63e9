// JSON value → text with an explicit stack: JSON.stringify recurses and throws RangeError for
// nesting of a few thousand levels, which maxDepth allows (up to 10,000). The parts are joined
// once (linear). Negative zero is written "-0", as protobuf C++, Java and Go write it (JSON.stringify
// writes 0 and loses the sign a double field carries).

/**
 * The longest JSON text written: V8's maximum string length (2^29 - 24 on 64-bit; Node, Deno,
 * workerd and Chromium). JavaScriptCore (Bun) holds strings up to 2^31 - 1; one limit in every
 * runtime means a text one of them writes, every other can hold.
 */
export const MAX_JSON_TEXT = 536_870_888;

interface Frame {
  readonly value: Record<string, unknown> | unknown[];
  readonly keys: string[] | undefined;
  i: number;
}

/**
 * The text of `root`, or undefined when it would be longer than `limit` characters: the length is
 * counted as the parts are made, so text past the limit is never joined (a deep value pretty
 * printed grows by depth x indent per line: 1 MB of binary made 474 MB of text at indent 10).
 */
export function stringifyJson(root: unknown, indent: number, limit = MAX_JSON_TEXT): string | undefined {
  // The parts, in arrays of PARTS_PER_JOIN: one array of every part (two per element of a list of
  // 90 million zeros) passed V8's largest array, which aborts the process ("Fatal JavaScript
  // invalid size error") rather than throw. Nothing is joined before the end: a part holds a
  // shared indentation string by reference, and text past the limit is never built.
  const full: string[][] = [];
  let out: string[] = [];
  const stack: Frame[] = [];
  let length = 0;
  const push = (s: string): void => {
    if (out.length === PARTS_PER_JOIN) {
      full.push(out);
      out = [];
    }
    out.push(s);
    length += s.length;
  };
  // One string per level, shared by every line at that level: the parts hold references, not
  // copies of the indentation.
  const pads: string[] = [];
  const newline = (level: number): void => {
    if (indent === 0) return;
    let p = pads[level];
    if (p === undefined) {
      p = `\n${" ".repeat(indent * level)}`;
      pads[level] = p;
    }
    push(p);
  };
  const colon = indent > 0 ? ": " : ":";
  // A string's text, or "" once the text would pass the limit (`length` then says so): a string
  // whose escaped form is past the runtime's longest string made JSON.stringify throw a RangeError,
  // which toJsonString took for that limit, also when it was a stack overflow.
  const quoted = (v: string): string => {
    const room = limit - length;
    if (v.length + 2 > room || (6 * v.length + 2 > room && escapedLength(v) > room)) {
      length = limit + 1;
      return "";
    }
    return JSON.stringify(v);
  };
  // Writes a value; a non-empty container is opened (pushed) and written by the loop.
  const write = (v: unknown): void => {
    switch (typeof v) {
      case "string":
        push(quoted(v));
        return;
      case "number":
        push(Object.is(v, -0) ? "-0" : Number.isFinite(v) ? String(v) : "null");
        return;
      case "boolean":
        push(v ? "true" : "false");
        return;
      case "object":
        if (v === null) {
          push("null");
          return;
        }
        if (Array.isArray(v)) {
          if (v.length === 0) push("[]");
          else {
            push("[");
            stack.push({ value: v, keys: undefined, i: 0 });
          }
          return;
        }
        {
          const keys = Object.keys(v);
          if (keys.length === 0) push("{}");
          else {
            push("{");
            stack.push({ value: v as Record<string, unknown>, keys, i: 0 });
          }
        }
        return;
      default:
        // toJson never produces other values; undefined members are skipped below.
        push("null");
    }
  };
  write(root);
  while (stack.length > 0) {
    if (length > limit) return undefined;
    const f = stack[stack.length - 1]!;
    const keys = f.keys;
    const size = keys === undefined ? (f.value as unknown[]).length : keys.length;
    if (f.i === size) {
      stack.pop();
      newline(stack.length);
      push(keys === undefined ? "]" : "}");
      continue;
    }
    if (f.i > 0) push(",");
    newline(stack.length);
    const i = f.i++;
    if (keys === undefined) write((f.value as unknown[])[i]);
    else {
      const k = keys[i]!;
      push(quoted(k));
      push(colon);
      write((f.value as Record<string, unknown>)[k]);
    }
  }
  if (length > limit) return undefined;
  if (full.length === 0) return out.join("");
  full.push(out);
  return full.map((parts) => parts.join("")).join("");
}

/** Parts per array (stringifyJson): far below V8's largest array (~134 million elements). */
export const PARTS_PER_JOIN = 1 << 16;

/** The length of JSON.stringify(s): quotes, two characters per short escape, six per \uXXXX. */
export function escapedLength(s: string): number {
  let n = s.length + 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20) n += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 1 : 5;
    else if (c === 0x22 || c === 0x5c) n += 1;
    else if (c >= 0xd800 && c <= 0xdfff) {
      // A lone surrogate is written as \uXXXX (well-formed JSON.stringify); a pair as itself.
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
      else n += 5;
    }
  }
  return n;
}
