// What a FileDescriptorSet's bytes would become, counted before @bufbuild/protobuf decodes them.
// Its decoder builds an object with every field of the type per message: an empty
// FileDescriptorProto or DescriptorProto is 2 bytes on the wire and ~386 bytes of heap, a field
// ~66 (measured, Node 20), so 32 MB of empty files (inside the snapshot format's 64 MiB) took
// over 4 GB and aborted the process. Real sets are ~6-9x (googleapis: 208 KB -> 1.2 MB without
// source info, 1.16 MB -> 10 MB with it). The walk follows descriptor.proto's own descriptor,
// keeps an explicit stack (nesting comes from the input) and allocates nothing per element.
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { concatBytes, varintBytes } from "../bytes.js";

/**
 * Most messages a descriptor set may hold (every file, type, field, enum value, option, range…):
 * ~400 MB of decoded heap at the worst measured cost. A normalized set of 100,000 types with a
 * field each holds ~200,000; googleapis' 123 files ~24,000.
 */
export const MAX_SET_MESSAGES = 1_048_576;
/** Most other values (strings, numbers, unknown fields; a packed run counts its bytes). */
export const MAX_SET_VALUES = 4_194_304;

export interface SetScan {
  readonly messages: number;
  readonly values: number;
  /** Which limit the set passes, as text for an error; undefined when within both. */
  readonly over: string | undefined;
  /** The set without `source_code_info` (when asked and present; otherwise the input). */
  readonly bytes: Uint8Array;
}

/** FileDescriptorProto.source_code_info: comments and spans, never needed to decode data. */
const SOURCE_CODE_INFO = 9;
const DECODER_DEPTH = 101;

interface Frame {
  readonly desc: DescMessage | undefined;
  readonly end: number;
  /** The field number of an open group (wire type 3), 0 for a length-delimited message. */
  readonly group: number;
}

const fieldMaps = new WeakMap<DescMessage, Map<number, DescField>>();

function fieldsOf(desc: DescMessage): Map<number, DescField> {
  let m = fieldMaps.get(desc);
  if (m === undefined) {
    m = new Map(desc.fields.map((f) => [f.number, f]));
    fieldMaps.set(desc, m);
  }
  return m;
}

/** The message type a field holds per length-delimited occurrence, if it holds messages. */
function messageOf(f: DescField | undefined): DescMessage | undefined {
  if (f === undefined) return undefined;
  if (f.fieldKind === "message") return f.message;
  if (f.fieldKind === "list" && f.listKind === "message") return f.message;
  return undefined;
}

const TOO_MANY_MESSAGES = `more than ${MAX_SET_MESSAGES.toLocaleString("en-US")} messages (files, types, fields, enum values, options…)`;

/**
 * Counts the messages and values of a FileDescriptorSet, stopping as soon as a limit is passed.
 * Malformed wire data stops the count where it is found and is left for the decoder to report
 * in its own words. With `dropSourceInfo`, the result's bytes omit every file's source_code_info.
 */
export function scanDescriptorSet(bytes: Uint8Array, dropSourceInfo = false): SetScan {
  let messages = 0;
  let values = 0;
  // Per source_code_info record dropped: its file record's [start, payload start, end) and its
  // own [from, to).
  const drops: number[] = [];
  const stack: Frame[] = [{ desc: FileDescriptorSetSchema, end: bytes.length, group: 0 }];
  let pos = 0;
  let fileStart = 0;
  let filePayload = 0;
  let fileEnd = 0;
  const varint = (): number => {
    let v = 0;
    let shift = 0;
    for (;;) {
      if (pos >= bytes.length || shift > 63) return -1;
      const b = bytes[pos++]!;
      if (shift < 49) v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return shift < 49 ? v : Number.MAX_SAFE_INTEGER;
      shift += 7;
    }
  };
  const result = (over: string | undefined): SetScan => ({ messages, values, over, bytes: over === undefined ? withoutDrops(bytes, drops) : bytes });
  walk: while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (pos >= top.end) {
      if (top.group !== 0 || pos > top.end) break; // an unterminated group or an overrun: malformed
      stack.pop();
      continue;
    }
    const tagAt = pos;
    const tag = varint();
    if (tag < 0) break;
    const number = Math.floor(tag / 8);
    const wire = tag % 8;
    const field = top.desc === undefined ? undefined : fieldsOf(top.desc).get(number);
    switch (wire) {
      case 0:
        if (varint() < 0) break walk;
        values++;
        break;
      case 1:
      case 5:
        pos += wire === 1 ? 8 : 4;
        values++;
        break;
      case 2: {
        const length = varint();
        if (length < 0 || length > top.end - pos) break walk;
        const child = messageOf(field);
        if (child !== undefined) {
          if (stack.length === 1) {
            fileStart = tagAt;
            filePayload = pos;
            fileEnd = pos + length;
          } else if (stack.length === 2 && number === SOURCE_CODE_INFO && dropSourceInfo) {
            drops.push(fileStart, filePayload, fileEnd, tagAt, pos + length);
            pos += length;
            break;
          }
          // @bufbuild/protobuf refuses nesting past 100 (recursionLimit): deeper input is
          // malformed for it, and it says so.
          if (stack.length > DECODER_DEPTH) break walk;
          messages++;
          stack.push({ desc: child, end: pos + length, group: 0 });
          continue walk;
        }
        // A string, bytes or packed run: its bytes bound its element count.
        values += field !== undefined && field.fieldKind === "list" && field.listKind !== "message" ? Math.max(1, length) : 1;
        pos += length;
        break;
      }
      case 3:
        // A group (descriptor.proto declares none, so it is unknown data the decoder skips):
        // counted as a message, and everything in it as unknown.
        if (stack.length > DECODER_DEPTH) break walk;
        messages++;
        stack.push({ desc: undefined, end: top.end, group: number });
        continue walk;
      case 4:
        if (top.group !== number) break walk;
        stack.pop();
        continue walk;
      default:
        break walk;
    }
    // An unknown field the decoder keeps is an object of its own.
    if (field === undefined) messages++;
    if (messages > MAX_SET_MESSAGES) return result(TOO_MANY_MESSAGES);
    if (values > MAX_SET_VALUES) return result(`more than ${MAX_SET_VALUES.toLocaleString("en-US")} values (names, numbers, unknown fields…)`);
  }
  if (messages > MAX_SET_MESSAGES) return result(TOO_MANY_MESSAGES);
  return result(undefined);
}

/** `bytes` without the dropped ranges, each file record that held one rewritten with its new length. */
function withoutDrops(bytes: Uint8Array, drops: readonly number[]): Uint8Array {
  if (drops.length === 0) return bytes;
  const parts: Uint8Array[] = [];
  let copied = 0;
  for (let i = 0; i < drops.length; ) {
    const [fileStart, payload, end] = [drops[i]!, drops[i + 1]!, drops[i + 2]!];
    const kept: Uint8Array[] = [];
    let keptLength = 0;
    let from = payload;
    for (; i < drops.length && drops[i] === fileStart; i += 5) {
      kept.push(bytes.subarray(from, drops[i + 3]!));
      keptLength += drops[i + 3]! - from;
      from = drops[i + 4]!;
    }
    kept.push(bytes.subarray(from, end));
    keptLength += end - from;
    parts.push(bytes.subarray(copied, fileStart));
    // The record again as field 1, length-delimited, with the length of what it keeps.
    parts.push(Uint8Array.from([0x0a, ...varintBytes(keptLength)]), ...kept);
    copied = end;
  }
  parts.push(bytes.subarray(copied));
  return concatBytes(parts);
}
