/**
 * DynamicMessage: an immutable proto3 value bound to one `DescMessage` instance (docs/design.md §7).
 *
 * Internal representation (the decoder builds it directly through `DynamicMessage._fromDecoded`):
 * - `_values: unknown[]` — one slot per field, indexed like `descriptor.fields` (declaration order).
 *   `undefined` means absent. For a type of more than WIDE fields the array holds only the slots
 *   set (message/values.ts): loop over such a value's fields with setSlots, never 0..fields.length.
 *   Stored forms:
 *   - int32, sint32, sfixed32, uint32, fixed32, float, double, enum → `number` (float already
 *     rounded to 32 bits; enum numbers may be values the enum does not declare);
 *   - int64, uint64, sint64, fixed64, sfixed64 → `bigint`; a decimal `string` when the field has
 *     `[jstype = JS_STRING]` (protobuf-es `longAsString`), a `number` with `[jstype = JS_NUMBER]`;
 *     map keys and map values always use `bigint`;
 *   - bool → `boolean`; string → `string` (well formed); bytes → `Uint8Array` (kept, not copied);
 *   - message → `DynamicMessage` (its descriptor may be another instance or schema version);
 *   - repeated → a non-empty array of the element forms; an empty list is `undefined`. Arrays
 *     are not frozen (see coerceList) and never the application's own array: do not modify
 *     what `get` returns;
 *   - map → a non-empty `Map` (keys: `number` for 32-bit, `bigint` for 64-bit, `boolean`, `string`);
 *     an empty map is `undefined`.
 *   A field with implicit presence (proto3 singular scalar or enum without `optional`) never holds
 *   its zero value: 0, 0n, "0" (JS_STRING), "", false, empty bytes and enum 0 are stored as
 *   `undefined`; −0 is not zero (protobuf writes it). Oneof members are separate slots; at most
 *   one member of a oneof is defined.
 * - `_unknown: readonly UnknownField[]` — unknown occurrences in stored order, each the complete
 *   encoded field (tag + payload).
 * - `_src: Uint8Array | undefined` — when set, exactly this message's encoding (no frame, no tag),
 *   as read by a decoder; a writer may copy it instead of re-encoding (the relay path).
 * - `_height`, `_okFor`: memos for the writer (nesting height, the paired declaration this value
 *   and its subtree were last accepted against by instance rules). They are valid forever because
 *   the value is immutable.
 */
import { MESSAGE_BRAND, hasBrand } from "../brand.js";
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { coerceElement, coerceMapKey, describeValue, isPlainObject, scalarZero } from "./coerce.js";
import { acceptBuilt, build, fieldByName, storedField, storedMessage } from "./create.js";
import { messagesEqual } from "./equals.js";
import { K_ENUM, K_LIST, K_MAP, K_MESSAGE, messageInfo, type FieldInfo, type MessageInfo } from "./field-info.js";
import { plainToJson } from "../json/to-json.js";
import { readOnlyMap, readOnlyValue } from "./read-only.js";
import type { JsonValue } from "../json/options.js";
import { jsonSafe, toPlainObject } from "./to-object.js";
import {
  EMPTY_UNKNOWN,
  unknownFieldMap,
  unknownFieldsFrom,
  type UnknownField,
  type UnknownFieldMap,
} from "./unknown-fields.js";
import { copyValues, newValues, NONE_SET, setSlots, WIDE } from "./values.js";
import type { ScalarType } from "@bufbuild/protobuf";
import { keySegment } from "../descriptor/names.js";
import { sourceDetached } from "../errors.js";
import { copyBytes } from "../bytes.js";

/** Values accepted by `create`, builder `set` and friends: see DynamicMessage.create. */
export type DynamicInit = Readonly<Record<string, unknown>>;

const EMPTY_LIST: readonly unknown[] = Object.freeze([]);
const defaults = new WeakMap<DescMessage, DynamicMessage>();

function checkDesc(desc: unknown, api: string): DescMessage {
  if (desc === null || typeof desc !== "object" || (desc as { kind?: unknown }).kind !== "message") {
    const hint = describeValue(desc) === "a ProtobufType" ? "; pass type.descriptor" : "";
    throw new TypeError(`${api} expects a DescMessage (@bufbuild/protobuf), got ${describeValue(desc)}${hint}`);
  }
  return desc as DescMessage;
}

function defaultOf(fi: FieldInfo): unknown {
  switch (fi.kind) {
    case K_LIST:
      return EMPTY_LIST;
    case K_MAP:
      // One of its own per call: a Map's own refusing methods do not stop Map.prototype.set.call,
      // and an entry put into one shared empty map showed in every value's unset map fields.
      return readOnlyMap(new Map());
    case K_MESSAGE:
      return undefined;
    case K_ENUM:
      return fi.explicit ? undefined : (fi.field.enum!.values[0]?.number ?? 0);
    default:
      return fi.explicit ? undefined : scalarZero(fi.scalar, fi.long);
  }
}

/** The slot of the set member of oneof `o` (index in info.oneofs), or -1. */
function setMember(info: MessageInfo, values: readonly unknown[], o: number): number {
  const members = info.oneofs[o]!.members;
  if (members.length <= WIDE) {
    for (const m of members) if (values[m.index] !== undefined) return m.index;
    return -1;
  }
  for (const i of setSlots(values)) if (info.fields[i]!.oneof === o) return i;
  return -1;
}

/** @internal Reads a validated encoding into an eager value of the same descriptor. */
export interface LazySource {
  materialize(store: Uint8Array, off: number, len: number): DynamicMessage;
}

const EMPTY_VALUES: readonly unknown[] = [];

/**
 * What only some values carry, kept apart so that the others (every decoded sub-message) do not
 * pay three fields for it: a decoded root's encoding as a range of the decoder's store, a lazy
 * value's source, and the `unknownFields` memo. Decoded sub-messages are most of what a decode
 * allocates: 64 MiB of empty sub-messages (`0a 00`, valid for any repeated message field) built
 * 32 M values of 136 bytes of heap and exhausted Node's 4 GiB heap.
 */
class Extra {
  // The LazySource while a lazily decoded value is not materialized, then the memo of
  // `unknownFields` (which materializes first): one field for both keeps a root's Extra at 56
  // bytes (decodeAll builds one per frame). Private (#): a deep-freeze of application state
  // holding a lazy value reached the serializer's decoder through it and froze it (every later
  // decode threw the engine's TypeError); a WeakMap beside the value instead cost a relay of a
  // small lazy value 175 -> 356 ns. Extra is never handed out, so no Proxy ever reads it.
  #lazyOrMap: LazySource | UnknownFieldMap | undefined;

  constructor(
    public store: Uint8Array | undefined,
    public off: number,
    public len: number,
    lazyOrMap: LazySource | UnknownFieldMap | undefined,
  ) {
    this.#lazyOrMap = lazyOrMap;
  }

  get lazyOrMap(): LazySource | UnknownFieldMap | undefined {
    return this.#lazyOrMap;
  }

  set lazyOrMap(v: LazySource | UnknownFieldMap | undefined) {
    this.#lazyOrMap = v;
  }
}

/** True for a DynamicMessage of this copy of protokeel or of another one (the ESM and the CJS build in one process); use it where `instanceof` would miss the other copy's values. */
export function isDynamicMessage(v: unknown): v is DynamicMessage {
  return v instanceof DynamicMessage || (typeof v === "object" && hasBrand(v, MESSAGE_BRAND));
}

export class DynamicMessage {
  static {
    Object.defineProperty(this.prototype, MESSAGE_BRAND, { value: true });
  }

  // Read through a getter without a setter: a plain `descriptor` property could be assigned
  // (`readonly` is the type's only), and a value re-bound to another type was written by that
  // type's plan, unchecked (a trusted value's string field went out as an int32 varint). Not a
  // #private field: a Proxy of a value (Vue's reactive, logging wrappers) could not read one, and
  // deep-equality and structuredClone would see nothing of the value.
  private readonly _desc: DescMessage;

  /** The descriptor instance this value is bound to (read-only: assigning it throws a TypeError). */
  get descriptor(): DescMessage {
    return this._desc;
  }

  // Field values and unknown occurrences; undefined only while a lazily decoded value has not
  // been materialized (see `_lazyAt`).
  private fieldValues: readonly unknown[] | undefined;
  private unknownList: readonly UnknownField[] | undefined;
  // This message's exact encoding, when it came from a decoder, as a range of a shared store:
  // a typed-array view per decoded message cost ~240 ns of a ~1 us small-message decode
  // (measured, Node 20), so the view is made only when a writer asks for it, and then replaces
  // the store (offset 0, same length). Also the lazy source and the unknownFields memo.
  private extra: Extra | undefined;
  /** @internal Memoized nesting height (1 = no nested message; a map entry is a level), or -1. */
  _height: number;
  /** @internal The paired declaration this subtree was last accepted against by instance rules. */
  _okFor: DescMessage | undefined;
  // The oneof members a decode set in this value, while the decode that built it may continue it
  // (a later occurrence of its field merges: src/codec/reader.ts, reopen): 1 + the member's slot
  // for a type with one oneof (kept: a number costs the slot only), else an array of those per
  // oneof (dropped when the decode ends). Private (#): only the reader asks, of values it built,
  // and deep equality, structuredClone and Proxies never see it. The slot costs 8 bytes per value
  // (~6% of a small decoded message's heap), for span batch decodes 1.08-1.12x faster.
  #merge: unknown = undefined;

  /** @internal What the reader recorded of `m`'s set oneof members (see #merge). */
  static _mergeOf(m: DynamicMessage): unknown {
    return m.#merge;
  }

  /** @internal Records `m`'s set oneof members for the read that built it (see #merge). */
  static _setMerge(m: DynamicMessage, cases: unknown): void {
    m.#merge = cases;
  }

  private constructor(
    desc: DescMessage,
    values: readonly unknown[],
    unknown: readonly UnknownField[],
    src: Uint8Array | undefined,
  ) {
    this._desc = desc;
    this.fieldValues = values;
    this.unknownList = unknown;
    this.extra = src === undefined ? undefined : new Extra(src, 0, src.length, undefined);
    this._height = -1;
    this._okFor = undefined;
  }

  /** @internal Field values indexed like `descriptor.fields`; see the file comment. */
  get _values(): readonly unknown[] {
    const v = this.fieldValues;
    return v !== undefined ? v : this.materialize().fieldValues!;
  }

  /** @internal Unknown occurrences in stored order. */
  get _unknown(): readonly UnknownField[] {
    const u = this.unknownList;
    return u !== undefined ? u : this.materialize().unknownList!;
  }

  private materialize(): DynamicMessage {
    const x = this.extra!;
    const built = (x.lazyOrMap as LazySource).materialize(x.store!, x.off, x.len);
    // A value the application froze keeps nothing: it is built again at each access (assigning
    // threw the engine's TypeError from `get`; test/value-frozen.test.ts).
    if (!Object.isExtensible(this) || !Object.isExtensible(x)) return built;
    this.fieldValues = built.fieldValues;
    this.unknownList = built.unknownList;
    x.lazyOrMap = undefined;
    return this;
  }

  /** @internal True while a lazily decoded value has not been materialized. */
  get _isLazy(): boolean {
    return this.fieldValues === undefined;
  }

  /**
   * @internal The length of this message's exact encoding (see _src), or -1 without one. With
   * _copySrc, a root's relay copies it without the view _src makes: a relay of a small message
   * made that view and a second one for the copy (~360 of 8,200 instructions for bench.Classic).
   */
  _srcLength(): number {
    const x = this.extra;
    if (x === undefined || x.store === undefined) return -1;
    // A detached store reads as empty (its subarray throws the engine's TypeError).
    if (x.store.length < x.off + x.len) throw sourceDetached(this.descriptor.typeName);
    return x.len;
  }

  /**
   * @internal True when this value keeps its exact encoding (see _src). Its `_height` is then the
   * nesting of those bytes as a reader counts it, which may exceed its fields' height: a later
   * occurrence of a oneof member or of a map key replaced a deeper one on the wire.
   */
  get _hasSrc(): boolean {
    const x = this.extra;
    return x !== undefined && x.store !== undefined;
  }

  /** @internal Copies the encoding _srcLength measured to `out` at `at`. */
  _copySrc(out: Uint8Array, at: number): void {
    const x = this.extra!;
    copyBytes(out, at, x.store!, x.off, x.len);
  }

  /** @internal This message's exact encoding, when it came from a decoder. */
  get _src(): Uint8Array | undefined {
    const x = this.extra;
    if (x === undefined) return undefined;
    const b = x.store;
    if (b === undefined) return undefined;
    const o = x.off;
    const l = x.len;
    if (o === 0 && l === b.length) return b;
    // A detached store reads as empty (its subarray throws the engine's TypeError).
    if (b.length < o + l) throw sourceDetached(this.descriptor.typeName);
    if (!Object.isExtensible(x)) return b.subarray(o, o + l); // frozen: see materialize
    x.off = 0;
    return (x.store = b.subarray(o, o + l));
  }

  /**
   * @internal `_fromDecoded` for a root whose encoding is `store[off .. off + len)`; `store`
   * must never be written there again (the decoder's append-only source store).
   */
  static _fromDecodedAt(
    desc: DescMessage,
    values: unknown[],
    unknown: readonly UnknownField[] | undefined,
    store: Uint8Array,
    off: number,
    len: number,
  ): DynamicMessage {
    const m = new DynamicMessage(desc, values, unknown ?? EMPTY_UNKNOWN, undefined);
    m.extra = new Extra(store, off, len, undefined);
    return m;
  }

  /**
   * @internal A value whose encoding `store[off .. off + len)` was validated but not yet read:
   * the first access to a field or to the unknown fields materializes it through `source`,
   * which must produce exactly what an eager decode of those bytes produces (reading validated
   * bytes cannot fail). Writers that copy the source bytes never materialize it.
   */
  static _lazyAt(desc: DescMessage, store: Uint8Array, off: number, len: number, source: LazySource): DynamicMessage {
    const m = new DynamicMessage(desc, EMPTY_VALUES, EMPTY_UNKNOWN, undefined);
    m.fieldValues = undefined;
    m.unknownList = undefined;
    m.extra = new Extra(store, off, len, source);
    return m;
  }

  /**
   * @internal The decoder's constructor: no validation, no copies. `values` must follow the
   * representation in the file comment (indexed like `desc.fields`, absent = undefined, implicit
   * zeros absent, lists/maps non-empty); `unknown` in stored order; `src`, when given, must be
   * exactly this message's encoding.
   */
  static _fromDecoded(
    desc: DescMessage,
    values: unknown[],
    unknown: readonly UnknownField[] | undefined,
    src: Uint8Array | undefined,
  ): DynamicMessage {
    return new DynamicMessage(desc, values, unknown ?? EMPTY_UNKNOWN, src);
  }

  /**
   * Builds a value from an init object keyed by proto field names (`created_at`). Nested messages
   * may be DynamicMessage values or plain init objects; maps a `Map` or a plain object with string
   * keys; a oneof member is set by its field name (at most one per oneof). 64-bit integers take a
   * bigint or an integer number (and a decimal string with `[jstype = JS_STRING]`); enums a number
   * or a value name. `undefined` and `null` mean "not set". A `Uint8Array` is kept without copying:
   * do not modify it afterwards. Throws `TypeError` for a wrong type or an unknown field name and
   * `RangeError` for a value out of range, naming the field.
   */
  static create(desc: DescMessage, init?: DynamicInit): DynamicMessage {
    checkDesc(desc, "DynamicMessage.create");
    if (init === undefined) return DynamicMessage.getDefaultInstance(desc);
    if (!isPlainObject(init)) {
      throw new TypeError(
        `DynamicMessage.create(${desc.typeName}) expects a plain init object (an object literal or Object.create(null)), got ${describeValue(init)}`,
      );
    }
    return build(desc, init);
  }

  /** A builder for a new value of `desc`. */
  static newBuilder(desc: DescMessage): DynamicMessageBuilder {
    checkDesc(desc, "DynamicMessage.newBuilder");
    return new DynamicMessageBuilder(desc, newValues(messageInfo(desc).fields.length), EMPTY_UNKNOWN);
  }

  /** The value with no field set, cached per descriptor instance. */
  static getDefaultInstance(desc: DescMessage): DynamicMessage {
    checkDesc(desc, "DynamicMessage.getDefaultInstance");
    return DynamicMessage._defaultOf(desc);
  }

  /**
   * @internal getDefaultInstance without the argument check. Its values are the shared NONE_SET
   * (nothing may write to them: a decoder merging a later occurrence into it takes a new array).
   * Decoders return it for a sub-message with nothing on the wire: a value is immutable, so
   * sharing it is invisible, and 64 MiB of `0a 00` cost a list slot each (8 bytes) instead of a
   * value each.
   */
  static _defaultOf(desc: DescMessage): DynamicMessage {
    let d = defaults.get(desc);
    if (d === undefined) {
      d = new DynamicMessage(desc, NONE_SET, EMPTY_UNKNOWN, undefined);
      defaults.set(desc, d);
    }
    return d;
  }

  /** A builder that starts from this value's fields and unknown fields. */
  toBuilder(): DynamicMessageBuilder {
    return new DynamicMessageBuilder(this.descriptor, copyValues(this._values, this.descriptor.fields.length), this._unknown);
  }

  /**
   * The value of a field by proto name. An absent field gives its default: 0, 0n, "", false,
   * empty bytes, the first enum value, [] or an empty map; `undefined` for an absent message,
   * `optional` field or oneof member.
   */
  get(name: string): unknown {
    const fi = fieldByName(messageInfo(this.descriptor), name);
    const v = this._values[fi.index];
    return v === undefined ? defaultOf(fi) : fi.kind >= K_LIST ? readOnlyValue(v) : v;
  }

  /**
   * Presence as proto3 defines it: explicit fields (messages, `optional`, oneof members) are
   * present when set; implicit scalars when not zero; repeated and map fields when not empty.
   */
  has(name: string): boolean {
    return this._values[fieldByName(messageInfo(this.descriptor), name).index] !== undefined;
  }

  /** The value of a field of this value's own descriptor instance (see `get`). */
  getField(field: DescField): unknown {
    const fi = this.fieldInfo(field, "getField");
    const v = this._values[fi.index];
    return v === undefined ? defaultOf(fi) : fi.kind >= K_LIST ? readOnlyValue(v) : v;
  }

  /** Presence of a field of this value's own descriptor instance (see `has`). */
  hasField(field: DescField): boolean {
    return this._values[this.fieldInfo(field, "hasField").index] !== undefined;
  }

  private fieldInfo(field: DescField, api: string): FieldInfo {
    const fi =
      field !== null && typeof field === "object" && field.parent === this.descriptor
        ? messageInfo(this.descriptor).byField.get(field)
        : undefined;
    if (fi === undefined) {
      const f = field as Partial<DescField> | null;
      const what = f && typeof f === "object" && f.parent ? `field ${f.parent.typeName}.${f.name}` : describeValue(field);
      throw new TypeError(
        `${api}: ${what} does not belong to this ${this.descriptor.typeName} descriptor instance; resolve fields through the value (msg.descriptor.fields)`,
      );
    }
    return fi;
  }

  /** The name of the set member of a oneof, or undefined. */
  whichOneof(oneofName: string): string | undefined {
    const info = messageInfo(this.descriptor);
    const o = typeof oneofName === "string" ? info.oneofByName.get(oneofName) : undefined;
    if (o === undefined) throw new TypeError(`${this.descriptor.typeName} has no oneof "${String(oneofName)}"`);
    const i = setMember(info, this._values, o);
    return i < 0 ? undefined : info.fields[i]!.name;
  }

  /** Field number → raw encoded occurrences (tag + payload each), in stored order. */
  get unknownFields(): UnknownFieldMap {
    const u = this._unknown;
    // Reading _unknown first materializes a lazy value, which frees lazyOrMap for the memo.
    let x = this.extra;
    const made = () => readOnlyMap(unknownFieldMap(u, true) as Map<number, readonly Uint8Array[]>);
    // A frozen value (see materialize) makes its map at each call; a frozen lazy value's lazyOrMap
    // is still its decoder, never a map.
    if (x === undefined ? !Object.isExtensible(this) : !Object.isExtensible(x)) return made();
    if (x === undefined) this.extra = x = new Extra(undefined, 0, 0, undefined);
    let m = x.lazyOrMap as UnknownFieldMap | undefined;
    if (m === undefined) x.lazyOrMap = m = made();
    return m;
  }

  /**
   * Same descriptor instance and equal content, unknown fields included. Floats compare by value
   * with NaN equal to NaN (so a value equals its own decoded copy) and −0 equal to 0.
   */
  equals(other: unknown): boolean {
    if (other === this) return true;
    if (!isDynamicMessage(other) || other.descriptor !== this.descriptor) return false;
    return messagesEqual(this, other);
  }

  /**
   * A plain object keyed by proto field names, for printing and tests: every field with its value
   * or default, except absent messages, `optional` fields and oneof members; maps as plain
   * objects keyed by the key's string form; bigint and Uint8Array kept; unknown fields left out.
   * Every key is an own property, `__proto__` included.
   */
  toObject(): Record<string, unknown> {
    return toPlainObject(this, defaultOf);
  }

  /**
   * The ProtoJSON form, so that `JSON.stringify(message)` writes ProtoJSON: JSON names, 64-bit
   * integers as strings, bytes as base64, enums by name, well-known types in their JSON forms.
   * Without a serializer there are no options: a set `google.protobuf.Any` and unknown fields
   * throw `CodecError` (use `serializer.toJson(value, { registry, discardUnknownFields })`).
   * JSON.stringify itself recurses: for values nested thousands of levels deep, use
   * `serializer.toJsonString`.
   */
  toJSON(): JsonValue {
    return plainToJson(this);
  }

  toString(): string {
    return `DynamicMessage(${this.descriptor.typeName})`;
  }

  /** Node's `util.inspect` / `console.log`: the type and the fields, not the internals. */
  [Symbol.for("nodejs.util.inspect.custom")](
    depth: number,
    options: { depth?: number | null },
    inspect?: (value: unknown, options: object) => string,
  ): string {
    const head = `DynamicMessage<${this.descriptor.typeName}>`;
    if (depth < 0) return `[${head}]`;
    const body = this.toObject();
    return `${head} ${typeof inspect === "function" ? inspect(body, { ...options, depth: options.depth == null ? options.depth : options.depth - 1 }) : JSON.stringify(jsonSafe(body))}`;
  }
}

/**
 * Collects field values for one new DynamicMessage. Setters validate like `create` and return the
 * builder; `build()` may be called more than once (each call snapshots the current state).
 */
export class DynamicMessageBuilder {
  // A getter, as DynamicMessage's: a builder re-bound to another type built values of the old
  // type's fields under the new one.
  private readonly _desc: DescMessage;

  /** The descriptor the built value is bound to (read-only). */
  get descriptor(): DescMessage {
    return this._desc;
  }

  private readonly info: MessageInfo;
  private readonly values: unknown[];
  /** Slots of the lists and maps this builder already copied (so `add`/`put` never touch a built value). */
  private readonly owned: Set<number>;
  private unknown: readonly UnknownField[];

  /** @internal */
  constructor(desc: DescMessage, values: unknown[], unknown: readonly UnknownField[]) {
    this._desc = desc;
    this.info = messageInfo(desc);
    this.values = values;
    this.owned = new Set();
    this.unknown = unknown;
  }

  /** Sets a field (for a oneof member, clears the other members). Use `clear` to unset. */
  set(name: string, value: unknown): this {
    const fi = fieldByName(this.info, name);
    if (value === undefined || value === null) {
      throw new TypeError(`field ${fi.label} cannot be set to ${describeValue(value)}; use clear("${fi.name}")`);
    }
    const stored = storedField(fi, value);
    if (fi.oneof >= 0) {
      const was = setMember(this.info, this.values, fi.oneof);
      if (was >= 0) this.values[was] = undefined;
    }
    this.values[fi.index] = stored;
    if (stored !== undefined && (fi.kind === K_LIST || fi.kind === K_MAP)) this.owned.add(fi.index);
    else this.owned.delete(fi.index);
    return this;
  }

  /** Unsets a field: it reads as its default and `has` is false. */
  clear(name: string): this {
    const fi = fieldByName(this.info, name);
    this.values[fi.index] = undefined;
    this.owned.delete(fi.index);
    return this;
  }

  /** Appends one element to a repeated field. */
  add(name: string, element: unknown): this {
    const fi = fieldByName(this.info, name);
    if (fi.kind !== K_LIST) throw new TypeError(`field ${fi.label} is not repeated; use set("${fi.name}", value)`);
    const cur = this.values[fi.index] as unknown[] | undefined;
    const where = `field ${fi.label}[${cur?.length ?? 0}]`;
    const e = fi.elemKind === K_MESSAGE ? storedMessage(where, fi, element) : coerceElement(where, fi, element);
    if (cur === undefined) this.values[fi.index] = [e];
    else if (this.owned.has(fi.index)) cur.push(e);
    else this.values[fi.index] = [...cur, e];
    this.owned.add(fi.index);
    return this;
  }

  /** Puts one entry into a map field (a plain-object string key is parsed per the key type). */
  put(name: string, key: unknown, value: unknown): this {
    const fi = fieldByName(this.info, name);
    if (fi.kind !== K_MAP) throw new TypeError(`field ${fi.label} is not a map; use set("${fi.name}", value)`);
    const k = coerceMapKey(`map key of field ${fi.label}`, fi.mapKey as ScalarType, key);
    const where = `field ${fi.label}${keySegment(k)}`;
    const v = fi.elemKind === K_MESSAGE ? storedMessage(where, fi, value) : coerceElement(where, fi, value);
    const cur = this.values[fi.index] as Map<unknown, unknown> | undefined;
    const m = cur === undefined ? new Map() : this.owned.has(fi.index) ? cur : new Map(cur);
    m.set(k, v);
    this.values[fi.index] = m;
    this.owned.add(fi.index);
    return this;
  }

  /**
   * Replaces the unknown fields: a `Map` (or entries) of field number → occurrences, each the
   * complete encoded field (tag + payload). Their wire form is checked when the value is written.
   */
  setUnknownFields(unknown: ReadonlyMap<number, readonly Uint8Array[]> | Iterable<readonly [number, readonly Uint8Array[]]>): this {
    this.unknown = unknownFieldsFrom(unknown, this.descriptor.typeName);
    return this;
  }

  build(): DynamicMessage {
    const v = copyValues(this.values, this.info.fields.length);
    for (const i of this.owned) {
      const x = v[i];
      if (x === undefined) continue;
      v[i] = Array.isArray(x) ? x.slice() : new Map(x as Map<unknown, unknown>);
    }
    return acceptBuilt(DynamicMessage._fromDecoded(this.descriptor, v, this.unknown, undefined), this.info);
  }
}

