// What the two read paths share: the read plans (how each slot's value is stored), the value
// conversions, and the copies decoded values keep. The tape reader (reader.ts) and the
// TypeScript reader of small messages (small-reader.ts) build the same values through these.
import { CodecError } from "../errors.js";
import { ScalarType, type DescMessage } from "@bufbuild/protobuf";
import { DynamicMessage } from "../message/dynamic-message.js";
import { K_ENUM, K_LIST, K_MAP, K_MESSAGE, L_BIGINT, L_NUMBER, L_STRING, messageInfo } from "../message/field-info.js";
import { EMPTY_BYTES, scalarZero } from "../message/coerce.js";
import { copyBytes } from "../bytes.js";
import { MID_CHUNK, readArena, SMALL_CHUNK, SMALL_PIECE } from "./arena.js";
import type { MessageLayout } from "./layout.js";
import { StoredUnknown } from "../message/unknown-fields.js";
import type { FieldTable } from "./small-reader.js";

// How a slot's value is stored in its message's values array.
export const S_IMPLICIT = 0; // singular, implicit presence: zero means absent
export const S_EXPLICIT = 1; // singular with presence (optional, oneof member, message)
export const S_LIST = 2;
export const S_MAP = 3; // the slot opens map entries
export const S_ENTRY = 4; // key or value inside a map entry

export interface SlotPlan {
  /** ScalarType, or ScalarType.INT32 for enums, or 0 for a message. */
  readonly scalar: number;
  readonly store: number;
  /** L_BIGINT / L_STRING / L_NUMBER for 64-bit values. */
  readonly long: number;
  /** Index of the slot's oneof in its message (`ReadPlan.oneofs`), or -1. */
  readonly oneof: number;
  /** Child plan of a message-valued slot (a message type or a map entry type). */
  child: ReadPlan | undefined;
}

export interface ReadPlan {
  readonly layout: MessageLayout;
  /** undefined for a map entry type. */
  readonly desc: DescMessage | undefined;
  readonly slots: SlotPlan[];
  /** For map entry types: the key's scalar type and the value's zero. */
  readonly keyScalar: number;
  /** Number of oneofs of the message type. */
  readonly oneofs: number;
  /**
   * The least height of a value of this plan: 2 for a map entry whose value is a message (the
   * reader puts the value type's default instance there when the wire has no value, one level
   * below the entry, and a write writes it), else 1. Without it a value read from `0a 02 08 01`
   * (map<int32, Inner>, key only) under maxDepth 2 was recorded 2 high, and a deterministic
   * write copied out the 3 levels its fields make, which the same serializer refused to read
   * (test/adversarial/decode-map-missing-message-value.test.ts). The core's validating walk
   * counts the level the same way (B_MAP_MESSAGE, assembly/validate.ts).
   */
  readonly minHeight: number;
  /** The TypeScript reader's field lookup, built on its first use (small-reader.ts). */
  table: FieldTable | undefined;
}

const plans = new WeakMap<MessageLayout, ReadPlan>();

/**
 * The read plan of a layout and of every layout it reaches, built without recursion (a chain of
 * nested types may be as long as the schema) and registered only once all of them are complete.
 */
export function planFor(root: MessageLayout): ReadPlan {
  const known = plans.get(root);
  if (known !== undefined) return known;
  const built = new Map<MessageLayout, ReadPlan>();
  const work: MessageLayout[] = [root];
  built.set(root, basePlan(root));
  while (work.length > 0) {
    const layout = work.pop()!;
    for (const lf of layout.fields) {
      const m = lf.message;
      if (m === undefined || plans.has(m) || built.has(m)) continue;
      built.set(m, basePlan(m));
      work.push(m);
    }
  }
  for (const [layout, plan] of built) {
    for (const lf of layout.fields) {
      if (lf.message !== undefined) plan.slots[lf.slot]!.child = plans.get(lf.message) ?? built.get(lf.message)!;
    }
  }
  for (const [layout, plan] of built) plans.set(layout, plan);
  return built.get(root)!;
}

/** A plan without its children. */
function basePlan(layout: MessageLayout): ReadPlan {
  const slots: SlotPlan[] = [];
  if (layout.desc !== undefined) {
    const info = messageInfo(layout.desc);
    for (const lf of layout.fields) {
      const fi = info.fields[lf.slot]!;
      const scalar = fi.elemKind === K_MESSAGE ? 0 : fi.elemKind === K_ENUM ? ScalarType.INT32 : (fi.scalar as number);
      let store = fi.explicit ? S_EXPLICIT : S_IMPLICIT;
      if (fi.kind === K_LIST) store = S_LIST;
      else if (fi.kind === K_MAP) store = S_MAP;
      // The generated kind's layouts hold jstype = JS_NUMBER fields as bigint, as protobuf-es does
      // (only JS_STRING changes its form there).
      const long = fi.kind === K_MAP ? 0 : fi.long === L_NUMBER && !layout.jsNumbers ? L_BIGINT : fi.long;
      slots.push({ scalar, store, long, oneof: fi.oneof, child: undefined });
    }
    return { layout, desc: layout.desc, slots, keyScalar: 0, oneofs: info.oneofs.length, minHeight: 1, table: undefined };
  }
  const f = layout.mapField!;
  const keyScalar = f.fieldKind === "map" ? f.mapKey : ScalarType.STRING;
  slots.push({ scalar: keyScalar, store: S_ENTRY, long: 0, oneof: -1, child: undefined });
  const valueScalar = f.fieldKind === "map" ? (f.mapKind === "message" ? 0 : f.mapKind === "enum" ? ScalarType.INT32 : f.scalar) : 0;
  slots.push({ scalar: valueScalar, store: S_ENTRY, long: 0, oneof: -1, child: undefined });
  const minHeight = f.fieldKind === "map" && f.mapKind === "message" ? 2 : 1;
  return { layout, desc: undefined, slots, keyScalar, oneofs: 0, minHeight, table: undefined };
}


const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

// Up to this many bytes a string is decoded in JS; above it a TextDecoder call is cheaper
// (measured: ~110-280 ns vs ~100-350 ns per call overhead for 5-40 byte strings, Node 20). A
// read-side threshold, unrelated to wire.ts' SHORT_STRING (the writer's one-byte-length bound).
const SHORT_DECODE = 64;

/**
 * ASCII bytes `input[off .. off + len)` (len ≤ SHORT_DECODE) as a string, built in JavaScript: for
 * runtimes without a native latin1 slice (browsers; ops.ts, NATIVE_LATIN1). Measured in
 * Chromium 153: 27 ns for 8 bytes, 71 ns for 29, 136 ns for 64, against 180-280 ns for a
 * TextDecoder call (a pre-sized array and one fromCharCode.apply beat a string grown per char:
 * 128 ns for 29).
 */
export function asciiString(input: Uint8Array, off: number, len: number): string {
  const a = new Array<number>(len);
  for (let i = 0; i < len; i++) a[i] = input[off + i]!;
  return String.fromCharCode.apply(null, a);
}

/** The longest ASCII string asciiString builds (longer ones: one TextDecoder call pays off). */
export const SHORT_ASCII = SHORT_DECODE;

/** UTF-8 that the core already validated: no checks needed, only decoding. */
export function utf8String(input: Uint8Array, off: number, len: number): string {
  if (len > SHORT_DECODE) return utf8.decode(input.subarray(off, off + len));
  const a: number[] = [];
  const end = off + len;
  let i = off;
  while (i < end) {
    const b = input[i]!;
    if (b < 0x80) {
      a.push(b);
      i++;
    } else if (b < 0xe0) {
      a.push(((b & 0x1f) << 6) | (input[i + 1]! & 0x3f));
      i += 2;
    } else if (b < 0xf0) {
      a.push(((b & 0x0f) << 12) | ((input[i + 1]! & 0x3f) << 6) | (input[i + 2]! & 0x3f));
      i += 3;
    } else {
      const c = (((b & 0x07) << 18) | ((input[i + 1]! & 0x3f) << 12) | ((input[i + 2]! & 0x3f) << 6) | (input[i + 3]! & 0x3f)) - 0x10000;
      a.push(0xd800 + (c >> 10), 0xdc00 + (c & 0x3ff));
      i += 4;
    }
  }
  return String.fromCharCode.apply(null, a);
}

export function long(big: bigint, mode: number): unknown {
  return mode === L_NUMBER ? Number(big) : mode === L_STRING ? String(big) : big;
}


// Roots' source bytes: the whole input of a call is copied once (one TypedArray.set: ~30 ns
// for 91 B against ~120 ns for a byte loop, measured) and every root decoded from it refers to
// its range (DynamicMessage makes the view only when a writer needs it, saving ~240 ns per
// small message). The copy comes from the read arena: inputs up to 4 KiB share its chunks, up to
// 32 KiB its mid-size tier's, larger ones get their own buffer.

/** Where a root's source range lives: `store[base + offset from the input start]`. */
export interface SourceRef {
  readonly store: Uint8Array;
  readonly base: number;
}

/**
 * A copy of the whole input that roots' source ranges point into. `len` is the input's length as
 * the engine's own getter gives it: given, the input may be any genuine Uint8Array (isBytes), a
 * subclass with getters of its own included, since the copy reads it through internal slots only.
 */
export class SourceCopy implements SourceRef {
  readonly store: Uint8Array;
  readonly base: number;
  constructor(input: Uint8Array, len = input.length) {
    const arena = len > readArena.maxPiece ? readArena.next! : readArena;
    if (len > arena.maxPiece) {
      // Not input.slice(): a Node Buffer's slice is a view, not a copy.
      this.store = new Uint8Array(len);
      this.store.set(input);
      this.base = 0;
    } else {
      this.base = arena.reserve(len);
      this.store = arena.chunk;
      this.store.set(input, this.base);
    }
  }
}


/**
 * A decoded value is accepted by its own reader's descriptors as is: every nested value carries
 * the declared type of its field, unknown fields carry only undeclared numbers, and the walker
 * checked the wire form. Recording that (with the nesting height) makes re-writing it with a
 * serializer of the same descriptor instance skip the checks (the relay path, docs/design.md §13).
 */
export function accepted(value: DynamicMessage, height: number): DynamicMessage {
  value._okFor = value.descriptor;
  value._height = height;
  return value;
}

// A read whose root keeps a copy of its input (the dynamic kind's source copy) cuts its bytes and
// unknown fields from that copy instead of copying them a second time: the copy is already the
// decoder's own, never written again, and holds exactly those bytes. A second copy was a fresh
// view plus a fill: bench.Classic's 16-byte digest took 1,370 instructions per decode that way
// and takes 580 as a view (valgrind).
// A view keeps its whole buffer alive, so a piece is cut only where it keeps no more alive than
// the arena copy it replaces would: from a store of up to 64 KiB (the small tier's chunk), or of
// up to 256 KiB for pieces over 4 KiB (the mid tier's); else it is copied. Only a plain
// Uint8Array store is cut (a Node Buffer's subarray would be a Buffer).

/** The store a read may cut pieces from (pieceOf's `cut`), or undefined when it must copy them. */
export function cutStore(source: SourceRef | undefined): Uint8Array | undefined {
  if (source === undefined) return undefined;
  const store = source.store;
  // A SourceCopy's store is a plain Uint8Array (an arena chunk or its own): asking for its
  // prototype went to the runtime, ~3% of a small decode.
  return store.length <= MID_CHUNK && (source instanceof SourceCopy || Object.getPrototypeOf(store) === Uint8Array.prototype) ? store : undefined;
}

/**
 * The bytes `input[off .. off + len)` that a decoded value keeps (a bytes field, an unknown
 * field): a view of the input with aliasing on (`alias` = the aliasThreshold setting) and
 * `len >= alias`; else cut from `cut` (the input's copy, from `cutStore`, the input starting at
 * `cutAt`) where that keeps no more memory alive than a copy; else a copy from the read arena.
 */
export function pieceOf(input: Uint8Array, off: number, len: number, alias: number, cut: Uint8Array | undefined, cutAt: number): Uint8Array {
  if (len === 0) return EMPTY_BYTES;
  if (alias > 0 && len >= alias) {
    // A plain Uint8Array view, also over a Node Buffer: a subarray would be a Buffer, whose
    // slice() does not copy (docs/design.md §7: bytes are Uint8Array, whatever the input's class).
    return new Uint8Array(input.buffer, input.byteOffset + off, len);
  }
  if (cuts(cut, len)) return cutView(cut, cutAt + off, len);
  const out = readArena.alloc(len);
  copyBytes(out, 0, input, off, len);
  return out;
}

// The last store pieces were cut from, with its buffer and offset: a view made on the buffer is
// ~12 ns where `subarray` is ~20 (it looks up the species constructor) and asking the store for its
// `.buffer` each time ~10 more (Node 20, one process); a span batch cuts ~300 pieces per decode
// from one store, and consecutive small decodes cut from one arena chunk. Kept across calls (a
// reset per call cost the one piece of a small decode more than the view saves): it keeps one
// buffer alive until pieces are cut from another, so only buffers of at most MID_CHUNK bytes are
// kept (a store of that size may be a view of a larger one: a pool's lazy bodies share one
// buffer per chunk of items, which a memo held after every value was gone).
let memoCut: Uint8Array | undefined;
let memoBuf: ArrayBufferLike | undefined;
let memoOff = 0;

/** `cut[at .. at + len)` as a plain Uint8Array view (a store is a plain Uint8Array, see cutStore). */
function cutView(cut: Uint8Array, at: number, len: number): Uint8Array {
  if (cut !== memoCut) {
    const buf = cut.buffer;
    if (buf.byteLength > MID_CHUNK) return new Uint8Array(buf, cut.byteOffset + at, len);
    memoBuf = buf;
    memoOff = cut.byteOffset;
    memoCut = cut;
  }
  return new Uint8Array(memoBuf!, memoOff + at, len);
}

/** Whether a piece of `len` bytes is cut from `cut` rather than copied (see the comment above cutStore). */
function cuts(cut: Uint8Array | undefined, len: number): cut is Uint8Array {
  return cut !== undefined && (cut.length <= SMALL_CHUNK || len > SMALL_PIECE);
}

/**
 * A decoded unknown occurrence `input[off .. off + len)` numbered `number`: a range of `cut` where
 * pieceOf would cut it, else of a read-arena chunk it is copied to; no view is made until the
 * application reads its bytes (StoredUnknown).
 */
export function unknownOf(number: number, input: Uint8Array, off: number, len: number, cut: Uint8Array | undefined, cutAt: number): StoredUnknown {
  if (cuts(cut, len)) return new StoredUnknown(number, cut, cutAt + off, len);
  if (len > SMALL_PIECE) return new StoredUnknown(number, pieceOf(input, off, len, 0, undefined, 0), 0, len);
  const at = readArena.reserve(len);
  const chunk = readArena.chunk;
  copyBytes(chunk, at, input, off, len);
  return new StoredUnknown(number, chunk, at, len);
}

/**
 * Adds a closed map entry (`plan`, its values `vs`) to the map at `slot` of `parent`: a missing
 * key or value is its zero (a message value: the default instance); a later key wins.
 */
export function putEntry(parent: unknown[], slot: number, plan: ReadPlan, vs: unknown[]): void {
  let key = vs[0];
  if (key === undefined) key = scalarZero(plan.keyScalar as ScalarType, 0);
  let value = vs[1];
  if (value === undefined) {
    const valuePlan = plan.slots[1]!;
    value =
      valuePlan.child !== undefined
        ? DynamicMessage.getDefaultInstance(valuePlan.child.desc!)
        : scalarZero(valuePlan.scalar as ScalarType, 0);
  }
  let map = parent[slot] as Map<unknown, unknown> | undefined;
  if (map === undefined) parent[slot] = map = new Map();
  else if (map.size >= MAX_MAP_ENTRIES && !map.has(key)) throw mapTooLarge(plan);
  map.set(key, value);
}

/**
 * The most entries a decoded map field holds: V8's Map throws a bare RangeError ("Map maximum
 * size exceeded") at 2^24, which 117 MB of distinct int32 keys reaches (maxMessageBytes raised).
 */
export let MAX_MAP_ENTRIES = 2 ** 24 - 1;

/** @internal For tests: sets MAX_MAP_ENTRIES (n >= 1), returns the previous value. */
export function setMaxMapEntries(n: number): number {
  const prev = MAX_MAP_ENTRIES;
  MAX_MAP_ENTRIES = n;
  return prev;
}

function mapTooLarge(entry: ReadPlan): CodecError {
  const f = entry.layout.mapField;
  const name = f === undefined ? "a map field" : `map field ${f.parent.typeName}.${f.name}(${f.number})`;
  const root = f === undefined ? "message" : f.parent.typeName;
  return new CodecError(
    "LIST_TOO_LONG",
    `cannot decode ${root}: ${name} holds more than ${MAX_MAP_ENTRIES.toLocaleString("en-US")} distinct keys, more than a JavaScript Map holds (V8's limit); split the map over several messages or frames`,
    { path: root },
  );
}

/**
 * The most elements one decoded repeated field holds. V8 aborts the process ("Fatal JavaScript
 * invalid size error", not an exception) when an array grows past ~134 million elements, and a
 * pushed array grows by half again: a packed bool field of 150 MB, which a raised
 * maxMessageBytes lets in, killed the process. 2^26 is above anything the default 64 MiB limit
 * holds (a byte per element at least) and below where growth can reach V8's limit.
 */
export let MAX_LIST_ELEMENTS = 1 << 26;

/** @internal For tests: sets MAX_LIST_ELEMENTS (n >= 1), returns the previous value. */
export function setMaxListElements(n: number): number {
  const prev = MAX_LIST_ELEMENTS;
  MAX_LIST_ELEMENTS = n;
  return prev;
}

/** The error for a repeated field of `typeName` past MAX_LIST_ELEMENTS. */
export function listTooLong(typeName: string): CodecError {
  return new CodecError(
    "LIST_TOO_LONG",
    `cannot decode ${typeName}: a repeated field of it holds more than ${MAX_LIST_ELEMENTS.toLocaleString("en-US")} elements, more than protokeel reads into one JavaScript array (V8 aborts the process past ~134 million); split the list over several messages or frames`,
    { path: typeName },
  );
}

/**
 * The error for a batch of `typeName` frames past MAX_LIST_ELEMENTS: its values, one array, would
 * pass what an array holds (a 150 MB buffer of zero bytes, 150 million empty frames, made V8
 * abort the process from decodeAll with default settings).
 */
export function tooManyFrames(typeName: string): CodecError {
  return new CodecError(
    "TOO_MANY_FRAMES",
    `cannot decode ${typeName}: the input holds more than ${MAX_LIST_ELEMENTS.toLocaleString("en-US")} frames, more than protokeel returns in one array (V8 aborts the process past ~134 million elements); read it with decodeStream or a FrameReader, which hold one value at a time`,
    { path: typeName },
  );
}
