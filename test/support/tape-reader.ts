// A minimal reader of the decode tape (format in assembly/tape.ts) for tests: it turns a tape
// into plain objects keyed by field name, the way the real decoder walks it (one forward pass,
// a stack of open messages, strings sliced from one latin1 decode when the message is ASCII).
import type { MessageLayout } from "../../src/codec/layout.js";
import { views } from "../../src/wasm/memory.js";
import type { TapeResult } from "../../src/wasm/ops.js";
import {
  F_ASCII_SELF, OP_BYTES, OP_END, OP_FIXED32, OP_FIXED64, OP_PACKED, OP_START, OP_UNKNOWN, OP_VARINT,
  flagsOf, opOf, slotOf,
} from "../../src/wasm/tape.js";
import {
  K_BOOL, K_DOUBLE, K_ENUM, K_FIXED32, K_FIXED64, K_FLOAT, K_INT32, K_INT64, K_SFIXED32, K_SFIXED64,
  K_SINT32, K_SINT64, K_STRING, K_UINT32, K_UINT64,
} from "../../src/wasm/table.js";

export type Plain = { [name: string]: unknown };

const utf8 = new TextDecoder("utf-8", { fatal: true });
const latin1 = new TextDecoder("latin1");

function scalar(kind: number, e: number): unknown {
  const { u32, i32, f32, f64, i64, u64 } = views;
  switch (kind) {
    case K_DOUBLE: return f64[(e >>> 1) + 1];
    case K_FLOAT: return f32[e + 2];
    case K_INT64: case K_SINT64: case K_SFIXED64: return i64[(e >>> 1) + 1];
    case K_UINT64: case K_FIXED64: return u64[(e >>> 1) + 1];
    case K_INT32: case K_SINT32: case K_SFIXED32: case K_ENUM: return i32[e + 2];
    case K_UINT32: case K_FIXED32: return u32[e + 2];
    case K_BOOL: return u32[e + 2] === 1;
  }
  throw new Error(`kind ${kind} is not a scalar`);
}

function packed(kind: number, addr: number, count: number): unknown[] {
  const b = views.buffer;
  switch (kind) {
    case K_DOUBLE: return Array.from(new Float64Array(b, addr, count));
    case K_FLOAT: return Array.from(new Float32Array(b, addr, count));
    case K_INT64: case K_SINT64: case K_SFIXED64: return Array.from(new BigInt64Array(b, addr, count));
    case K_UINT64: case K_FIXED64: return Array.from(new BigUint64Array(b, addr, count));
    case K_INT32: case K_SINT32: case K_SFIXED32: case K_ENUM: return Array.from(new Int32Array(b, addr, count));
    case K_UINT32: case K_FIXED32: return Array.from(new Uint32Array(b, addr, count));
    case K_BOOL: return Array.from(new Uint8Array(b, addr, count), (x) => x === 1);
  }
  throw new Error(`kind ${kind} cannot be packed`);
}

interface Open {
  layout: MessageLayout;
  out: Plain;
  text: string | undefined;
  bodyStart: number;
}

/** Reads the message starting at entry `first` (a START); returns it and the entry after its END. */
export function readTape(tape: TapeResult, root: MessageLayout, input: Uint8Array, first = 0): { value: Plain; next: number } {
  const u32 = views.u32;
  const stack: Open[] = [];
  let cur: Open | undefined;
  let result: Plain | undefined;
  for (let k = first; k < tape.count; k++) {
    const e = tape.start + 4 * k;
    const w0 = u32[e]!;
    const op = opOf(w0);
    if (op === OP_START) {
      const start = u32[e + 2]!;
      const len = u32[e + 3]!;
      const layout = cur ? cur.layout.fields[slotOf(w0)]!.message! : root;
      const out: Plain = {};
      if (cur) add(cur, slotOf(w0), out);
      const text = flagsOf(w0) & F_ASCII_SELF ? latin1.decode(input.subarray(start, start + len)) : undefined;
      if (cur) stack.push(cur);
      cur = { layout, out, text, bodyStart: start };
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
        if (f.kind === K_STRING) {
          add(c, f.slot, c.text !== undefined ? c.text.substring(at - c.bodyStart, at - c.bodyStart + n) : utf8.decode(input.subarray(at, at + n)));
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

function add(o: Open, slot: number, v: unknown): void {
  const f = o.layout.fields[slot]!;
  const name = f.entryPart ?? f.field.name;
  if (f.repeated) ((o.out[name] as unknown[] | undefined) ??= []).push(v);
  else o.out[name] = v;
}
