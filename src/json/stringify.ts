// JSON value → text with an explicit stack: JSON.stringify recurses and throws RangeError for
// nesting of a few thousand levels, which maxDepth allows (up to 10,000). The parts are joined
// once (linear). Negative zero is written "-0", as protobuf C++, Java and Go write it (JSON.stringify
// writes 0 and loses the sign a double field carries).

interface Frame {
  readonly value: Record<string, unknown> | unknown[];
  readonly keys: string[] | undefined;
  i: number;
}

export function stringifyJson(root: unknown, indent: number): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const pad = indent > 0 ? " ".repeat(indent) : "";
  const newline = (level: number): void => {
    if (indent > 0) out.push("\n", pad.repeat(level));
  };
  const colon = indent > 0 ? ": " : ":";
  // Writes a value; a non-empty container is opened (pushed) and written by the loop.
  const write = (v: unknown): void => {
    switch (typeof v) {
      case "string":
        out.push(JSON.stringify(v));
        return;
      case "number":
        out.push(Object.is(v, -0) ? "-0" : Number.isFinite(v) ? String(v) : "null");
        return;
      case "boolean":
        out.push(v ? "true" : "false");
        return;
      case "object":
        if (v === null) {
          out.push("null");
          return;
        }
        if (Array.isArray(v)) {
          if (v.length === 0) out.push("[]");
          else {
            out.push("[");
            stack.push({ value: v, keys: undefined, i: 0 });
          }
          return;
        }
        {
          const keys = Object.keys(v);
          if (keys.length === 0) out.push("{}");
          else {
            out.push("{");
            stack.push({ value: v as Record<string, unknown>, keys, i: 0 });
          }
        }
        return;
      default:
        // toJson never produces other values; undefined members are skipped below.
        out.push("null");
    }
  };
  write(root);
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    const keys = f.keys;
    const size = keys === undefined ? (f.value as unknown[]).length : keys.length;
    if (f.i === size) {
      stack.pop();
      newline(stack.length);
      out.push(keys === undefined ? "]" : "}");
      continue;
    }
    if (f.i > 0) out.push(",");
    newline(stack.length);
    const i = f.i++;
    if (keys === undefined) write((f.value as unknown[])[i]);
    else {
      const k = keys[i]!;
      out.push(JSON.stringify(k), colon);
      write((f.value as Record<string, unknown>)[k]);
    }
  }
  return out.join("");
}
