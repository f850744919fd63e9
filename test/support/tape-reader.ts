// A minimal reader of the decode tape (format in assembly/tape.ts) for tests: it turns a tape
// into plain objects keyed by field name, the way the real decoder walks it (one forward pass,
// a stack of open messages, ASCII strings sliced from the window's text area, the next window
// asked for when one is read).
import type { MessageLayout } from "../../src/codec/layout.js";
import { views } from "../../src/wasm/memory.js";
import { resumeWalk, tapeText, type TapeResult } from "../../src/wasm/ops.js";
import {
  F_ASCII, OP_BYTES, OP_END, OP_FIXED32, OP_FIXED64, OP_PACKED, OP_START, OP_UNKNOWN, OP_VARINT,
  flagsOf, opOf, slotOf,
} from "../../src/wasm/tape.js";
import {
  KIND_BOOL, KIND_DOUBLE, KIND_ENUM, KIND_FIXED32, KIND_FIXED64, KIND_FLOAT, KIND_INT32, KIND_INT64, KIND_SFIXED32, KIND_SFIXED64,
  KIND_SINT32, KIND_SINT64, KIND_STRING, KIND_UINT32, KIND_UINT64,
} from "../../src/wasm/table.js";

export type Plain = { [name: string]: unknown };

const utf8 = new TextDecoder("utf-8", { fatal: true });

function scalar(kind: number, e: number): unknown {
  const { u32, i32, f32, f64, i64, u64 } = views;
  switch (kind) {
    case KIND_DOUBLE: return f64[(e >>> 1) + 1];
    case KIND_FLOAT: return f32[e + 2];
    case KIND_INT64: case KIND_SINT64: case KIND_SFIXED64: return i64[(e >>> 1) + 1];
    case KIND_UINT64: case KIND_FIXED64: return u64[(e >>> 1) + 1];
    case KIND_INT32: case KIND_SINT32: case KIND_SFIXED32: case KIND_ENUM: return i32[e + 2];
    case KIND_UINT32: case KIND_FIXED32: return u32[e + 2];
    case KIND_BOOL: return u32[e + 2] === 1;
  }
  throw new Error(`kind ${kind} is not a scalar`);
}

function packed(kind: number, addr: number, count: number): unknown[] {
  const b = views.buffer;
  switch (kind) {
    case KIND_DOUBLE: return Array.from(new Float64Array(b, addr, count));
    case KIND_FLOAT: return Array.from(new Float32Array(b, addr, count));
    case KIND_INT64: case KIND_SINT64: case KIND_SFIXED64: return Array.from(new BigInt64Array(b, addr, count));
    case KIND_UINT64: case KIND_FIXED64: return Array.from(new BigUint64Array(b, addr, count));
    case KIND_INT32: case KIND_SINT32: case KIND_SFIXED32: case KIND_ENUM: return Array.from(new Int32Array(b, addr, count));
    case KIND_UINT32: case KIND_FIXED32: return Array.from(new Uint32Array(b, addr, count));
    case KIND_BOOL: return Array.from(new Uint8Array(b, addr, count), (x) => x === 1);
  }
  throw new Error(`kind ${kind} cannot be packed`);
}

interface Open {
  layout: MessageLayout;
  out: Plain;
}

/** A window's text area as one string, and where its next ASCII string starts. */
export interface TextCursor {
  all: string;
  at: number;
}

/** Moves to the tape's next window and its text. */
function nextWindow(tape: TapeResult, text: TextCursor): void {
  resumeWalk(tape);
  text.all = tapeText(tape);
  text.at = 0;
}

/**
 * Reads the message starting at entry `first` (a START) of the current window; returns it and
 * the entry after its END (in the window then current). Reads further windows as needed.
 */
export function readTape(
  tape: TapeResult, root: MessageLayout, input: Uint8Array, first = 0, text: TextCursor = { all: tapeText(tape), at: 0 },
): { value: Plain; next: number } {
  const stack: Open[] = [];
  let cur: Open | undefined;
  let result: Plain | undefined;
  for (let k = first; ; k++) {
    if (k === tape.count) {
      if (tape.done) break;
      nextWindow(tape, text);
      k = 0;
    }
    const u32 = views.u32;
    const e = tape.start + 4 * k;
    const w0 = u32[e]!;
    const op = opOf(w0);
    if (op === OP_START) {
      const layout = cur ? cur.layout.fields[slotOf(w0)]!.message! : root;
      const out: Plain = {};
      if (cur) add(cur, slotOf(w0), out);
      if (cur) stack.push(cur);
      cur = { layout, out };
      continue;
    }
    if (op === OP_END) {
      const done = cur!;
      cur = stack.pop();
      if (!cur) {
        result = done.out;
        return { value: result, next: k + 1 };
      }
      continue;
    }
    const c = cur!;
    if (op === OP_UNKNOWN) {
      const list = ((c.out["$unknown"] as number[][] | undefined) ??= []);
      list.push(Array.from(input.subarray(u32[e + 2]!, u32[e + 2]! + u32[e + 3]!)));
      continue;
    }
    const f = c.layout.fields[slotOf(w0)]!;
    switch (op) {
      case OP_VARINT: case OP_FIXED32: case OP_FIXED64:
        add(c, f.slot, scalar(f.kind, e));
        break;
      case OP_BYTES: {
        const at = u32[e + 2]!;
        const n = u32[e + 3]!;
        if (f.kind === KIND_STRING) {
          if (flagsOf(w0) & F_ASCII) {
            add(c, f.slot, text.all.substring(text.at, text.at + n));
            text.at += n;
          } else add(c, f.slot, utf8.decode(input.subarray(at, at + n)));
        } else {
          add(c, f.slot, Array.from(input.subarray(at, at + n)));
        }
        break;
      }
      case OP_PACKED:
        for (const v of packed(f.kind, u32[e + 2]!, u32[e + 1]!)) add(c, f.slot, v);
        break;
      default:
        throw new Error(`bad op ${op} at entry ${k}`);
    }
  }
  throw new Error("tape ended inside a message");
}

/** Every message of a tape of frames (or of one message), window after window. */
export function readAll(tape: TapeResult, root: MessageLayout, input: Uint8Array): Plain[] {
  const out: Plain[] = [];
  const text: TextCursor = { all: tapeText(tape), at: 0 };
  let k = 0;
  for (;;) {
    if (k === tape.count) {
      if (tape.done) return out;
      nextWindow(tape, text);
      k = 0;
    }
    const r = readTape(tape, root, input, k, text);
    out.push(r.value);
    k = r.next;
  }
}

function add(o: Open, slot: number, v: unknown): void {
  const f = o.layout.fields[slot]!;
  const name = f.entryPart ?? f.field.name;
  if (f.repeated) ((o.out[name] as unknown[] | undefined) ??= []).push(v);
  else o.out[name] = v;
}
