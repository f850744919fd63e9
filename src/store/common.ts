// Shared parts of protokeel/store: state declarations, keys and the open-time compatibility rule.
import { bytesValue, DETACHED_BYTES, isBytes, isDetached, isWellFormed } from "../bytes.js";
import { CodecError, StateStoreError } from "../errors.js";
import { isDynamicMessage, type DynamicMessage } from "../message/dynamic-message.js";
import type { ProtobufSerializer } from "../serializer.js";
import type { SerializerSnapshot } from "../snapshot/types.js";
import type { ProtobufType } from "../type.js";
import { quoted, shortName } from "../descriptor/names.js";

/** A key of a state (and a map state's user key): a string or bytes. */
export type StateKey = string | Uint8Array;

/** The three state kinds: one value per key, key → user key → value, an append-only list per key. */
export type StateKind = "value" | "map" | "list";

/** How the application declares a state: its kind and the current type of its values. */
export interface StateSpec<K extends StateKind = StateKind> {
  readonly kind: K;
  readonly type: ProtobufType;
}

/** The states of a store, by name. */
export type StateSpecs = Readonly<Record<string, StateSpec>>;

export const valueState = (type: ProtobufType): StateSpec<"value"> => Object.freeze({ kind: "value", type });
export const mapState = (type: ProtobufType): StateSpec<"map"> => Object.freeze({ kind: "map", type });
export const listState = (type: ProtobufType): StateSpec<"list"> => Object.freeze({ kind: "list", type });

/** One value per key. Writes return a promise on LMDB (resolved when committed), nothing in memory. */
export interface ValueState {
  readonly name: string;
  get(key: StateKey): DynamicMessage | undefined;
  put(key: StateKey, value: DynamicMessage): void | Promise<void>;
  delete(key: StateKey): void | Promise<void>;
  keys(): StateKey[];
}

/** Per key, a map of user keys to values. */
export interface MapState {
  readonly name: string;
  get(key: StateKey, userKey: StateKey): DynamicMessage | undefined;
  put(key: StateKey, userKey: StateKey, value: DynamicMessage): void | Promise<void>;
  delete(key: StateKey, userKey: StateKey): void | Promise<void>;
  entries(key: StateKey): [StateKey, DynamicMessage][];
  clear(key: StateKey): void | Promise<void>;
  keys(): StateKey[];
}

/** Per key, an append-only list of values. */
export interface ListState {
  readonly name: string;
  get(key: StateKey): DynamicMessage[];
  add(key: StateKey, value: DynamicMessage): void | Promise<void>;
  clear(key: StateKey): void | Promise<void>;
  keys(): StateKey[];
}

/**
 * The state a spec declares. Distributive over the kind: a spec whose kind is a union or the wide
 * StateKind (`cond ? listState(t) : valueState(t)`, a `StateSpecs` annotation) is the union of
 * the states, to be narrowed; it was ListState (a value state's `add` type-checked, then threw).
 */
export type StateOf<S extends StateSpec> = StateOfKind<S["kind"]>;
type StateOfKind<K> = K extends "value" ? ValueState : K extends "map" ? MapState : K extends "list" ? ListState : never;

export const KIND_CODES: Readonly<Record<StateKind, number>> = { value: 1, map: 2, list: 3 };
export function kindOfCode(code: number): StateKind | undefined {
  return code === 1 ? "value" : code === 2 ? "map" : code === 3 ? "list" : undefined;
}

export function checkName(name: string): void {
  if (typeof name !== "string" || name.length === 0 || name.length > 200) {
    throw new StateStoreError("STATE_NAME_INVALID", `state name ${quoted(name)} is invalid: use a non-empty string of at most 200 characters`, {
      state: shortName(String(name)),
    });
  }
  // Stored as UTF-8, where a lone surrogate becomes U+FFFD: "\uD800" and "\uDC00" were one name
  // on disk, and a checkpoint of both never restored.
  if (!isWellFormed(name)) {
    throw new StateStoreError("STATE_NAME_INVALID", `state name ${quoted(name)} is invalid: it has a lone surrogate, which UTF-8 cannot hold; use a well-formed string`, {
      state: shortName(name),
    });
  }
}

export function checkSpecs(specs: StateSpecs): void {
  if (typeof specs !== "object" || specs === null) throw new TypeError("expected the states as an object: { name: valueState(type), … }");
  for (const [name, spec] of Object.entries(specs)) {
    checkName(name);
    if (spec === null || typeof spec !== "object" || !(spec.kind in KIND_CODES) || typeof spec.type?.createSerializer !== "function") {
      throw new StateStoreError(
        "STATE_SPEC_INVALID",
        `state "${name}" is declared wrongly: use valueState(type), mapState(type) or listState(type) with a ProtobufType`,
        { state: name },
      );
    }
  }
}

/** A saved state of kind `saved` declared with another kind: the store refuses to open. */
export function kindChanged(name: string, saved: StateKind, declared: StateKind): StateStoreError {
  return new StateStoreError(
    "STATE_KIND_CHANGED",
    `state "${name}" was saved as ${saved} state and is declared as ${declared} state; the store does not convert between state kinds: declare it as ${saved} state, or give the new state another name`,
    { state: name },
  );
}

/**
 * The open-time rule: the current serializer must read data written under the saved snapshot
 * (the directional evaluator plus the settings rules). Throws STATE_SCHEMA_INCOMPATIBLE with the
 * evaluator's findings.
 */
export function resolveOrThrow(name: string, current: ProtobufSerializer, saved: SerializerSnapshot, action: "opened" | "written" = "opened"): void {
  const r = current.snapshotConfiguration().resolveSchemaCompatibility(saved);
  if (r.kind === "compatibleAsIs") return;
  const savedName = (saved as { fullName?: string }).fullName ?? saved.className;
  throw new StateStoreError(
    "STATE_SCHEMA_INCOMPATIBLE",
    `state "${name}" cannot be ${action}: its data was written with ${savedName} and the current ${current.type.fullName} cannot read it (rules: ${r.incompatibilities
      .map((f) => `${f.rule} at ${f.path}`)
      .join(", ")}); the store was not modified: open it with a schema the evaluator accepts (README "Persisting state"), or move the data to a new state\n${r.reason}`,
    { state: name, incompatibilities: r.incompatibilities },
  );
}

const utf8 = new TextEncoder();
// ignoreBOM: a TextDecoder strips a leading U+FEFF unless told not to, and "\uFEFFk" came back
// as "k" (another key).
const utf8d = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export function checkKey(name: string, key: unknown, what = "key"): asserts key is StateKey {
  if (typeof key !== "string" && !isBytes(key)) {
    throw new StateStoreError("STATE_KEY_INVALID", `state "${name}": a ${what} must be a string or a Uint8Array, got ${key === null ? "null" : typeof key}`, {
      state: name,
    });
  }
  // A detached array reads as empty: it was stored as the empty bytes key (another key's value
  // overwritten in memory), and LMDB's copy threw the engine's TypeError.
  if (typeof key !== "string" && isDetached(key)) {
    throw new StateStoreError(
      "STATE_KEY_INVALID",
      `state "${name}": a ${what} must be a string or a Uint8Array, got ${DETACHED_BYTES}; pass a key that is not transferred, or a copy made before the transfer`,
      { state: name },
    );
  }
  // String keys are stored as UTF-8, where every lone surrogate becomes U+FFFD: "\uD800",
  // "\uDC00" and "\uFFFD" were one key on disk (LMDB overwrote one with the other) and distinct
  // in memory (a checkpoint of two never restored; of one, restored under "\uFFFD").
  if (typeof key === "string" && !isWellFormed(key)) {
    throw new StateStoreError(
      "STATE_KEY_INVALID",
      `state "${name}": a string ${what} must be well-formed (it has a lone surrogate, which UTF-8 cannot hold); use a well-formed string, or a Uint8Array for arbitrary bytes`,
      { state: name },
    );
  }
}

/** A key as one self-delimiting byte string: u8 tag (0 string, 1 bytes), u32 length (big-endian), bytes. */
export function keyBytes(key: StateKey): Uint8Array {
  const body = typeof key === "string" ? utf8.encode(key) : bytesValue(key);
  const out = new Uint8Array(5 + body.length);
  out[0] = typeof key === "string" ? 0 : 1;
  new DataView(out.buffer).setUint32(1, body.length);
  out.set(body, 5);
  return out;
}

/** `prefix` followed by keyBytes(key), in one allocation (the LMDB backend's stored keys). */
export function prefixedKey(prefix: Uint8Array, key: StateKey): Uint8Array {
  const p = prefix.length;
  if (typeof key !== "string") {
    // Its own length (a key whose `length` said more was stored with zeros after it: another key).
    const k = bytesValue(key);
    const out = new Uint8Array(p + 5 + k.length);
    out.set(prefix);
    out[p] = 1;
    writeU32(out, p + 1, k.length);
    out.set(k, p + 5);
    return out;
  }
  const out = new Uint8Array(p + 5 + key.length * 3);
  out.set(prefix);
  const { written } = utf8.encodeInto(key, out.subarray(p + 5));
  out[p] = 0;
  writeU32(out, p + 1, written);
  return out.subarray(0, p + 5 + written);
}

function writeU32(out: Uint8Array, at: number, v: number): void {
  out[at] = v >>> 24;
  out[at + 1] = (v >>> 16) & 0xff;
  out[at + 2] = (v >>> 8) & 0xff;
  out[at + 3] = v & 0xff;
}

/** Reads a key written by keyBytes at `at`; returns the key and the position after it, or undefined when short. */
export function readKey(bytes: Uint8Array, at: number): { key: StateKey; end: number } | undefined {
  if (at + 5 > bytes.length) return undefined;
  const tag = bytes[at]!;
  const len = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(at + 1);
  if (tag > 1 || at + 5 + len > bytes.length) return undefined;
  const body = new Uint8Array(bytes.subarray(at + 5, at + 5 + len)); // a plain copy, also of a Buffer
  if (tag === 1) return { key: body, end: at + 5 + len };
  try {
    return { key: utf8d.decode(body), end: at + 5 + len };
  } catch {
    return undefined;
  }
}

/** A Map key for a StateKey (strings and bytes never collide). */
export function keyId(key: StateKey): string {
  if (typeof key === "string") return `s${key}`;
  const k = bytesValue(key);
  let s = "b";
  for (let i = 0; i < k.length; i++) s += k[i]!.toString(16).padStart(2, "0");
  return s;
}

export function keyOfId(id: string): StateKey {
  if (id[0] === "s") return id.slice(1);
  const out = new Uint8Array((id.length - 1) / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(id.slice(1 + 2 * i, 3 + 2 * i), 16);
  return out;
}

/**
 * The bytes `serializer` writes for `value` under `key` of state `name`: what a put or add
 * stores (LMDB), or checks before keeping the value (memory: a value its checkpoint would refuse
 * was kept, and every checkpoint after it failed until the key was deleted). A value that is no
 * DynamicMessage is STATE_VALUE_INVALID; a write's refusal, its CodecError naming the state and key.
 */
export function encodeStateValue(name: string, serializer: ProtobufSerializer, key: StateKey, value: unknown): Uint8Array {
  return stateWrite(name, key, value, (v) => serializer.toBinary(v));
}

/** encodeStateValue's checks without the bytes (the memory store keeps the value itself). */
export function checkStateValue(name: string, serializer: ProtobufSerializer, key: StateKey, value: unknown): void {
  stateWrite(name, key, value, (v) => serializer._check(v));
}

function stateWrite<T>(name: string, key: StateKey, value: unknown, write: (v: DynamicMessage) => T): T {
  if (!isDynamicMessage(value)) {
    throw new StateStoreError("STATE_VALUE_INVALID", `state "${name}": a value must be a DynamicMessage, got ${value === null ? "null" : typeof value}; build it with DynamicMessage.create(type.descriptor, init)`, {
      state: name,
    });
  }
  try {
    return write(value);
  } catch (e) {
    if (e instanceof CodecError) throw new CodecError(e.code, `state "${name}", key ${showKey(key)}: ${e.message}; nothing was written`, { path: e.path, cause: e });
    throw e;
  }
}

/** A key as error messages name it. */
export function showKey(key: StateKey): string {
  return typeof key === "string" ? JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key) : `bytes(${key.length})`;
}

/**
 * A store's file or directory path must be a non-empty string: a number was read as a file
 * descriptor (MemoryStore.restore(5) read fd 5).
 */
export function checkPath(path: unknown, api: string): asserts path is string {
  if (typeof path !== "string" || path.length === 0) {
    throw new TypeError(`the path of ${api} must be a non-empty string, got ${path === null ? "null" : typeof path === "string" ? "an empty string" : typeof path}`);
  }
}
