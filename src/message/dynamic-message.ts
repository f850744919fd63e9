/**
 * DynamicMessage: an immutable proto3 value bound to one `DescMessage` instance (DESIGN §7).
 *
 * Internal representation (the decoder builds it directly through `DynamicMessage._fromDecoded`):
 * - `_v: unknown[]` — one slot per field, indexed like `descriptor.fields` (declaration order).
 *   `undefined` means absent. Stored forms:
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
 * - `_u: readonly UnknownField[]` — unknown occurrences in stored order, each the complete encoded
 *   field (tag + payload).
 * - `_src: Uint8Array | undefined` — when set, exactly this message's encoding (no frame, no tag),
 *   as read by a decoder; a writer may copy it instead of re-encoding (the relay path, DESIGN §13).
 * - `_size`, `_sizeD`, `_height`, `_okFor`: memos for the writer (encoded size, nesting height, the paired
 *   declaration this value and its subtree were last accepted against by instance rules). They are
 *   valid forever because the value is immutable.
 */
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import {
  coerceEnum,
  coerceMapKey,
  coerceScalar,
  describeValue,
  isImplicitZero,
  scalarZero,
} from "./coerce.js";
import {
  K_ENUM,
  K_LIST,
  K_MAP,
  K_MESSAGE,
  K_SCALAR,
  L_NUMBER,
  is64,
  messageInfo,
  type FieldInfo,
  type MessageInfo,
} from "./field-info.js";
import {
  bytesEqual,
  EMPTY_UNKNOWN,
  unknownFieldMap,
  unknownFieldsEqual,
  unknownFieldsFrom,
  type UnknownField,
  type UnknownFieldMap,
} from "./unknown-fields.js";
import { ScalarType } from "@bufbuild/protobuf";

/** Values accepted by `create`, builder `set` and friends: see DynamicMessage.create. */
export type DynamicInit = Readonly<Record<string, unknown>>;

const EMPTY_LIST: readonly unknown[] = Object.freeze([]);
const EMPTY_MAP: ReadonlyMap<unknown, unknown> = new Map();
const defaults = new WeakMap<DescMessage, DynamicMessage>();

function checkDesc(desc: unknown, api: string): DescMessage {
  if (desc === null || typeof desc !== "object" || (desc as { kind?: unknown }).kind !== "message") {
    throw new TypeError(`${api} expects a DescMessage (@bufbuild/protobuf), got ${describeValue(desc)}`);
  }
  return desc as DescMessage;
}

function fieldByName(info: MessageInfo, name: unknown): FieldInfo {
  if (typeof name !== "string") {
    throw new TypeError(`${info.desc.typeName} field names are strings, got ${describeValue(name)}`);
  }
  const fi = info.byName.get(name);
  if (fi !== undefined) return fi;
  const alt = info.fields.find((f) => f.field.localName === name || f.field.jsonName === name);
  if (alt !== undefined) {
    throw new TypeError(`${info.desc.typeName} has no field "${name}"; use the proto field name "${alt.name}"`);
  }
  throw new TypeError(`${info.desc.typeName} has no field "${name}"; use a field name as declared in the .proto file`);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object") return false;
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

function coerceMessage(where: string, fi: FieldInfo, v: unknown): DynamicMessage {
  if (v instanceof DynamicMessage) return v;
  const target = fi.field.message!;
  if (isPlainObject(v)) return DynamicMessage.create(target, v);
  throw new TypeError(`${where} expects a DynamicMessage or a plain object for ${target.typeName}, got ${describeValue(v)}`);
}

/** One element of a list, one map value, or a singular value, in stored form. */
function coerceElement(where: string, fi: FieldInfo, v: unknown): unknown {
  switch (fi.elemKind) {
    case K_MESSAGE:
      return coerceMessage(where, fi, v);
    case K_ENUM:
      return coerceEnum(where, fi, v);
    default:
      // Map values use bigint for 64-bit (protobuf-es ignores jstype there too).
      return coerceScalar(where, fi.scalar as ScalarType, fi.kind === K_MAP ? 0 : fi.long, v);
  }
}

function coerceList(fi: FieldInfo, v: unknown): unknown[] | undefined {
  if (!Array.isArray(v)) {
    throw new TypeError(`field ${fi.label} is repeated and expects an array, got ${describeValue(v)}`);
  }
  if (v.length === 0) return undefined;
  // A packed (push-built), unfrozen array: V8 copies frozen or holey arrays into typed arrays
  // 20-70x slower (measured 17-31 µs vs 0.43 µs per 1000 doubles), which the writer does for
  // packed runs. Immutability is by type (readonly) and by never handing out the input array.
  // 32-bit numbers get an array literal of their own: V8 keeps elements-kind feedback per
  // allocation site, and a site shared with string or message lists would hand out generic
  // (boxed) arrays instead of unboxed doubles, which copy into typed arrays far slower.
  // Small-integer lists get a site apart from double lists too: once a site has handed out an
  // array holding a double, V8 makes every later array from it a double array, and the writer's
  // int32 loops then run on doubles (an 80-deep nested encode after a numeric encode measured
  // 17.4-18.1 µs with one shared site, 10.9 µs with two, the same as the nested encode alone).
  const kind = numberListKind(fi);
  const out: unknown[] = kind === NL_INT ? newIntList() : kind === NL_DOUBLE ? newDoubleList() : [];
  for (let i = 0; i < v.length; i++) out.push(coerceElement(`field ${fi.label}[${i}]`, fi, v[i]));
  return out;
}

function newIntList(): number[] {
  return [];
}

function newDoubleList(): number[] {
  return [];
}

const NL_NONE = 0;
const NL_INT = 1;
const NL_DOUBLE = 2;

/** Which allocation site a list's array comes from: int32-range numbers, other numbers, or not numbers. */
function numberListKind(fi: FieldInfo): number {
  if (fi.elemKind === K_ENUM) return NL_INT;
  if (fi.elemKind !== K_SCALAR) return NL_NONE;
  switch (fi.scalar) {
    case ScalarType.STRING:
    case ScalarType.BYTES:
    case ScalarType.BOOL:
      return NL_NONE;
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return NL_INT;
    default:
      // 64-bit lists hold bigints unless jstype makes them numbers; uint32 and fixed32 reach
      // above 2^31, floats are doubles.
      return !is64(fi.scalar) || fi.long === L_NUMBER ? NL_DOUBLE : NL_NONE;
  }
}

function coerceMap(fi: FieldInfo, v: unknown): Map<unknown, unknown> | undefined {
  const out = new Map<unknown, unknown>();
  const keyWhere = `map key of field ${fi.label}`;
  if (v instanceof Map) {
    for (const [k, val] of v) {
      const key = coerceMapKey(keyWhere, fi.mapKey as ScalarType, k);
      out.set(key, coerceElement(`field ${fi.label}[${String(key)}]`, fi, val));
    }
  } else if (isPlainObject(v)) {
    for (const k of Object.keys(v)) {
      const key = coerceMapKey(keyWhere, fi.mapKey as ScalarType, k);
      out.set(key, coerceElement(`field ${fi.label}[${String(key)}]`, fi, v[k]));
    }
  } else {
    throw new TypeError(`field ${fi.label} is a map and expects a Map or a plain object, got ${describeValue(v)}`);
  }
  return out.size === 0 ? undefined : out;
}

/** Stored form of a whole field value; `undefined` when the value means "absent". */
function coerceField(fi: FieldInfo, v: unknown): unknown {
  switch (fi.kind) {
    case K_LIST:
      return coerceList(fi, v);
    case K_MAP:
      return coerceMap(fi, v);
    case K_MESSAGE:
      return coerceMessage(`field ${fi.label}`, fi, v);
    default: {
      const s = coerceElement(`field ${fi.label}`, fi, v);
      return !fi.explicit && isImplicitZero(fi.scalar, s) ? undefined : s;
    }
  }
}

function defaultOf(fi: FieldInfo): unknown {
  switch (fi.kind) {
    case K_LIST:
      return EMPTY_LIST;
    case K_MAP:
      return EMPTY_MAP;
    case K_MESSAGE:
      return undefined;
    case K_ENUM:
      return fi.explicit ? undefined : (fi.field.enum!.values[0]?.number ?? 0);
    default:
      return fi.explicit ? undefined : scalarZero(fi.scalar, fi.long);
  }
}

function scalarEq(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return a !== a && b !== b; // NaN equals NaN
  if (a instanceof Uint8Array && b instanceof Uint8Array) return bytesEqual(a, b);
  return false;
}

function elemEq(kind: number, a: unknown, b: unknown): boolean {
  return kind === K_MESSAGE ? (a as DynamicMessage).equals(b as DynamicMessage) : scalarEq(a, b);
}

function fieldEq(fi: FieldInfo, a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  switch (fi.kind) {
    case K_LIST: {
      const x = a as unknown[];
      const y = b as unknown[];
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (!elemEq(fi.elemKind, x[i], y[i])) return false;
      return true;
    }
    case K_MAP: {
      const x = a as Map<unknown, unknown>;
      const y = b as Map<unknown, unknown>;
      if (x.size !== y.size) return false;
      for (const [k, v] of x) {
        if (!y.has(k) || !elemEq(fi.elemKind, v, y.get(k))) return false;
      }
      return true;
    }
    default:
      return elemEq(fi.kind, a, b);
  }
}

function plainElem(kind: number, v: unknown): unknown {
  return kind === K_MESSAGE ? (v as DynamicMessage).toObject() : v;
}

/** @internal Reads a validated encoding into an eager value of the same descriptor. */
export interface LazySource {
  materialize(store: Uint8Array, off: number, len: number): DynamicMessage;
}

const EMPTY_VALUES: readonly unknown[] = [];

export class DynamicMessage {
  /** The descriptor instance this value is bound to. */
  readonly descriptor: DescMessage;
  // Field values and unknown occurrences; undefined only while a lazily decoded value has not
  // been materialized (see `_lazyAt`).
  private _lv: readonly unknown[] | undefined;
  private _lu: readonly UnknownField[] | undefined;
  // This message's exact encoding, when it came from a decoder, as a range of a shared store:
  // a typed-array view per decoded message cost ~240 ns of a ~1 us small-message decode
  // (measured, Node 20), so the view is made only when a writer asks for it, and then replaces
  // the store (offset 0, same length).
  private _sb: Uint8Array | undefined;
  private _so: number;
  private _sl: number;
  /** @internal Memoized encoded size in bytes (source bytes preferred), or -1. */
  _size: number;
  /** @internal Memoized size of a full (deterministic) re-encoding, or -1. */
  _sizeD: number;
  /** @internal Memoized nesting height (1 = no nested message), or -1. */
  _height: number;
  /** @internal The paired declaration this subtree was last accepted against by instance rules. */
  _okFor: DescMessage | undefined;
  // The LazySource while a lazily decoded value is not materialized, then the memo of
  // `unknownFields` (which materializes first). Decoded values are most of what the read path
  // allocates (a span batch builds ~1,100): one field for two rarely used ones, and none for the
  // source view, took the value from 13 fields to 11 (128 -> 112 bytes).
  private _x: LazySource | UnknownFieldMap | undefined;

  private constructor(
    desc: DescMessage,
    values: readonly unknown[],
    unknown: readonly UnknownField[],
    src: Uint8Array | undefined,
  ) {
    this.descriptor = desc;
    this._lv = values;
    this._lu = unknown;
    this._sb = src;
    this._so = 0;
    this._sl = src === undefined ? 0 : src.length;
    this._size = -1;
    this._sizeD = -1;
    this._height = -1;
    this._okFor = undefined;
    this._x = undefined;
  }

  /** @internal Field values indexed like `descriptor.fields`; see the file comment. */
  get _v(): readonly unknown[] {
    const v = this._lv;
    return v !== undefined ? v : this._force()._lv!;
  }

  /** @internal Unknown occurrences in stored order. */
  get _u(): readonly UnknownField[] {
    const u = this._lu;
    return u !== undefined ? u : this._force()._lu!;
  }

  private _force(): DynamicMessage {
    const lazy = this._x as LazySource;
    const built = lazy.materialize(this._sb!, this._so, this._sl);
    this._lv = built._lv;
    this._lu = built._lu;
    this._x = undefined;
    return this;
  }

  /** @internal True while a lazily decoded value has not been materialized. */
  get _isLazy(): boolean {
    return this._lv === undefined;
  }

  /** @internal This message's exact encoding, when it came from a decoder. */
  get _src(): Uint8Array | undefined {
    const b = this._sb;
    if (b === undefined) return undefined;
    const o = this._so;
    const l = this._sl;
    if (o === 0 && l === b.length) return b;
    this._so = 0;
    return (this._sb = b.subarray(o, o + l));
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
    m._sb = store;
    m._so = off;
    m._sl = len;
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
    m._lv = undefined;
    m._lu = undefined;
    m._x = source;
    m._sb = store;
    m._so = off;
    m._sl = len;
    m._size = len;
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
    const info = messageInfo(desc);
    if (init === null || typeof init !== "object" || Array.isArray(init) || init instanceof DynamicMessage) {
      throw new TypeError(`DynamicMessage.create(${desc.typeName}) expects a plain init object, got ${describeValue(init)}`);
    }
    const values = new Array<unknown>(info.fields.length);
    const oneofSet: (string | undefined)[] = new Array(info.oneofs.length);
    for (const name of Object.keys(init)) {
      const fi = fieldByName(info, name);
      const raw = init[name];
      if (raw === undefined || raw === null) continue;
      if (fi.oneof >= 0) {
        const other = oneofSet[fi.oneof];
        if (other !== undefined) {
          throw new TypeError(
            `oneof ${desc.typeName}.${info.oneofs[fi.oneof]!.name} has two members set: "${other}" and "${fi.name}"; set at most one`,
          );
        }
        oneofSet[fi.oneof] = fi.name;
      }
      const stored = coerceField(fi, raw);
      if (stored !== undefined) values[fi.index] = stored;
    }
    return new DynamicMessage(desc, values, EMPTY_UNKNOWN, undefined);
  }

  /** A builder for a new value of `desc`. */
  static newBuilder(desc: DescMessage): DynamicMessageBuilder {
    checkDesc(desc, "DynamicMessage.newBuilder");
    return new DynamicMessageBuilder(desc, new Array(messageInfo(desc).fields.length), EMPTY_UNKNOWN);
  }

  /** The value with no field set, cached per descriptor instance. */
  static getDefaultInstance(desc: DescMessage): DynamicMessage {
    checkDesc(desc, "DynamicMessage.getDefaultInstance");
    let d = defaults.get(desc);
    if (d === undefined) {
      d = new DynamicMessage(desc, new Array(messageInfo(desc).fields.length), EMPTY_UNKNOWN, undefined);
      defaults.set(desc, d);
    }
    return d;
  }

  /** A builder that starts from this value's fields and unknown fields. */
  toBuilder(): DynamicMessageBuilder {
    return new DynamicMessageBuilder(this.descriptor, this._v.slice(), this._u);
  }

  /**
   * The value of a field by proto name. An absent field gives its default: 0, 0n, "", false,
   * empty bytes, the first enum value, [] or an empty map; `undefined` for an absent message,
   * `optional` field or oneof member.
   */
  get(name: string): unknown {
    const fi = fieldByName(messageInfo(this.descriptor), name);
    const v = this._v[fi.index];
    return v === undefined ? defaultOf(fi) : v;
  }

  /**
   * Presence as proto3 defines it: explicit fields (messages, `optional`, oneof members) are
   * present when set; implicit scalars when not zero; repeated and map fields when not empty.
   */
  has(name: string): boolean {
    return this._v[fieldByName(messageInfo(this.descriptor), name).index] !== undefined;
  }

  /** The value of a field of this value's own descriptor instance (see `get`). */
  getField(field: DescField): unknown {
    const fi = this.fieldInfo(field, "getField");
    const v = this._v[fi.index];
    return v === undefined ? defaultOf(fi) : v;
  }

  /** Presence of a field of this value's own descriptor instance (see `has`). */
  hasField(field: DescField): boolean {
    return this._v[this.fieldInfo(field, "hasField").index] !== undefined;
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
    const o = info.oneofs.find((x) => x.name === oneofName);
    if (o === undefined) throw new TypeError(`${this.descriptor.typeName} has no oneof "${oneofName}"`);
    for (const m of o.members) if (this._v[m.index] !== undefined) return m.name;
    return undefined;
  }

  /** Field number → raw encoded occurrences (tag + payload each), in stored order. */
  get unknownFields(): UnknownFieldMap {
    // Reading _u first materializes a lazy value, which frees _x for the memo.
    const u = this._u;
    let m = this._x as UnknownFieldMap | undefined;
    if (m === undefined) this._x = m = unknownFieldMap(u);
    return m;
  }

  /**
   * Same descriptor instance and equal content, unknown fields included. Floats compare by value
   * with NaN equal to NaN (so a value equals its own decoded copy) and −0 equal to 0.
   */
  equals(other: unknown): boolean {
    if (other === this) return true;
    if (!(other instanceof DynamicMessage) || other.descriptor !== this.descriptor) return false;
    const fields = messageInfo(this.descriptor).fields;
    for (let i = 0; i < fields.length; i++) {
      if (!fieldEq(fields[i]!, this._v[i], other._v[i])) return false;
    }
    return unknownFieldsEqual(this._u, other._u);
  }

  /**
   * A plain object keyed by proto field names, for printing and tests: every field with its value
   * or default, except absent messages, `optional` fields and oneof members; maps as plain
   * objects keyed by the key's string form; bigint and Uint8Array kept; unknown fields left out.
   */
  toObject(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const fi of messageInfo(this.descriptor).fields) {
      const v = this._v[fi.index];
      if (v === undefined) {
        if (fi.explicit) continue;
        const d = defaultOf(fi);
        out[fi.name] = fi.kind === K_LIST ? [] : fi.kind === K_MAP ? {} : d;
        continue;
      }
      if (fi.kind === K_LIST) out[fi.name] = (v as unknown[]).map((e) => plainElem(fi.elemKind, e));
      else if (fi.kind === K_MAP) {
        const o: Record<string, unknown> = {};
        for (const [k, e] of v as Map<unknown, unknown>) o[String(k)] = plainElem(fi.elemKind, e);
        out[fi.name] = o;
      } else out[fi.name] = plainElem(fi.kind, v);
    }
    return out;
  }

  toString(): string {
    return `DynamicMessage(${this.descriptor.typeName})`;
  }
}

/**
 * Collects field values for one new DynamicMessage. Setters validate like `create` and return the
 * builder; `build()` may be called more than once (each call snapshots the current state).
 */
export class DynamicMessageBuilder {
  /** The descriptor the built value is bound to. */
  readonly descriptor: DescMessage;
  private readonly info: MessageInfo;
  private readonly values: unknown[];
  /** Lists and maps this builder already copied (so `add`/`put` never touch a built value). */
  private readonly owned: boolean[];
  private unknown: readonly UnknownField[];

  /** @internal */
  constructor(desc: DescMessage, values: unknown[], unknown: readonly UnknownField[]) {
    this.descriptor = desc;
    this.info = messageInfo(desc);
    this.values = values;
    this.owned = new Array(values.length).fill(false);
    this.unknown = unknown;
  }

  /** Sets a field (for a oneof member, clears the other members). Use `clear` to unset. */
  set(name: string, value: unknown): this {
    const fi = fieldByName(this.info, name);
    if (value === undefined || value === null) {
      throw new TypeError(`field ${fi.label} cannot be set to ${describeValue(value)}; use clear("${fi.name}")`);
    }
    const stored = coerceField(fi, value);
    if (fi.oneof >= 0) for (const m of this.info.oneofs[fi.oneof]!.members) this.values[m.index] = undefined;
    this.values[fi.index] = stored;
    this.owned[fi.index] = stored !== undefined && (fi.kind === K_LIST || fi.kind === K_MAP);
    return this;
  }

  /** Unsets a field: it reads as its default and `has` is false. */
  clear(name: string): this {
    const fi = fieldByName(this.info, name);
    this.values[fi.index] = undefined;
    this.owned[fi.index] = false;
    return this;
  }

  /** Appends one element to a repeated field. */
  add(name: string, element: unknown): this {
    const fi = fieldByName(this.info, name);
    if (fi.kind !== K_LIST) throw new TypeError(`field ${fi.label} is not repeated; use set("${fi.name}", value)`);
    const cur = this.values[fi.index] as unknown[] | undefined;
    const e = coerceElement(`field ${fi.label}[${cur?.length ?? 0}]`, fi, element);
    if (cur === undefined) this.values[fi.index] = [e];
    else if (this.owned[fi.index]) cur.push(e);
    else this.values[fi.index] = [...cur, e];
    this.owned[fi.index] = true;
    return this;
  }

  /** Puts one entry into a map field (a plain-object string key is parsed per the key type). */
  put(name: string, key: unknown, value: unknown): this {
    const fi = fieldByName(this.info, name);
    if (fi.kind !== K_MAP) throw new TypeError(`field ${fi.label} is not a map; use set("${fi.name}", value)`);
    const k = coerceMapKey(`map key of field ${fi.label}`, fi.mapKey as ScalarType, key);
    const v = coerceElement(`field ${fi.label}[${String(k)}]`, fi, value);
    const cur = this.values[fi.index] as Map<unknown, unknown> | undefined;
    const m = cur === undefined ? new Map() : this.owned[fi.index] ? cur : new Map(cur);
    m.set(k, v);
    this.values[fi.index] = m;
    this.owned[fi.index] = true;
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
    const v = this.values.slice();
    for (let i = 0; i < v.length; i++) {
      if (!this.owned[i]) continue;
      const x = v[i];
      v[i] = Array.isArray(x) ? x.slice() : new Map(x as Map<unknown, unknown>);
    }
    return DynamicMessage._fromDecoded(this.descriptor, v, this.unknown, undefined);
  }
}

