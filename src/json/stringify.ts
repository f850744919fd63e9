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
  const out: string[] = [];
  const stack: Frame[] = [];
  let length = 0;
  const push = (s: string): void => {
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
  // Writes a value; a non-empty container is opened (pushed) and written by the loop.
  const write = (v: unknown): void => {
    switch (typeof v) {
      case "string":
        push(JSON.stringify(v));
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
      push(JSON.stringify(k));
      push(colon);
      write((f.value as Record<string, unknown>)[k]);
    }
  }
  return length > limit ? undefined : out.join("");
}
