// The LMDB backend (the Node counterpart of a RocksDB state backend): values stored as encoded
// bytes (the bare message), each state's serializer snapshot under a metadata key of the same
// environment. Opening resolves every declared state against its stored snapshot before any value
// is read; values are read with the current serializer; the first write after a schema change
// replaces the snapshot in the same transaction as the value. `lmdb` is an optional peer
// dependency, loaded only when a store is opened.
import { CodecError, SnapshotFormatError, StateStoreError } from "../errors.js";
import type { DynamicMessage } from "../message/dynamic-message.js";
import type { ProtobufSerializer } from "../serializer.js";
import { readSnapshot, writeSnapshot } from "../snapshot/envelope.js";
import {
  KIND_CODES,
  checkKey,
  checkPath,
  checkSpecs,
  encodeStateValue,
  keyBytes,
  kindChanged,
  kindOfCode,
  prefixedKey,
  readKey,
  resolveOrThrow,
  showKey,
  type ListState,
  type MapState,
  type StateKey,
  type StateKind,
  type StateOf,
  type StateSpecs,
  type ValueState,
} from "./common.js";
import { bytesEqual, concatBytes } from "../bytes.js";
import { quoted, shortName } from "../descriptor/names.js";

/** The part of lmdb's `RootDatabase` the store uses (lmdb 3.x). */
interface LmdbDatabase {
  getBinary(key: Uint8Array): Uint8Array | undefined;
  put(key: Uint8Array, value: Uint8Array): Promise<boolean>;
  remove(key: Uint8Array): Promise<boolean>;
  transactionSync<T>(fn: () => T): T;
  getRange(options: { start: Uint8Array; end: Uint8Array; reverse?: boolean; limit?: number }): Iterable<{ key: Uint8Array; value: Uint8Array }>;
  getKeys(options: { start: Uint8Array; end: Uint8Array }): Iterable<Uint8Array>;
  close(): Promise<void>;
}

/** Options of `LmdbStore.open`, passed to lmdb's `open` (encodings are always binary). */
export interface LmdbStoreOptions {
  /** Maximum size of the memory map in bytes (lmdb's `mapSize`). */
  readonly mapSize?: number;
  /** lmdb's `noSync`: faster, not durable across an OS crash. Default false. */
  readonly noSync?: boolean;
}

/**
 * The largest mapSize taken: lmdb maps the whole size, and 2^48 bytes (past x86-64's 2^47 of user
 * address space) killed the process with SIGSEGV, as did -1 and 1e30, with no error to catch.
 */
const MAX_MAP_SIZE = 2 ** 44;

function checkOptions(options: LmdbStoreOptions): void {
  if (typeof options !== "object" || options === null) throw new TypeError(`options of LmdbStore.open must be an object ({ mapSize?, noSync? }), got ${options === null ? "null" : typeof options}`);
  const { mapSize, noSync } = options;
  if (mapSize !== undefined && !(Number.isSafeInteger(mapSize) && mapSize >= 1 && mapSize <= MAX_MAP_SIZE)) {
    throw new RangeError(`mapSize of LmdbStore.open must be an integer number of bytes in 1..${MAX_MAP_SIZE} (16 TiB), got ${String(mapSize)}`);
  }
  if (noSync !== undefined && typeof noSync !== "boolean") throw new TypeError(`noSync of LmdbStore.open must be a boolean, got ${typeof noSync}`);
}

const META = 0x00;
const DATA = 0x01;

const TAG_END = Uint8Array.of(0x02); // after every key tag (0 string, 1 bytes)
const INDEX_END = Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff);

function u32be(v: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, v);
  return b;
}

interface Slot {
  readonly name: string;
  readonly kind: StateKind;
  readonly serializer: ProtobufSerializer;
  readonly snapshot: Uint8Array;
  readonly metaKey: Uint8Array;
  readonly prefix: Uint8Array;
  /** The stored snapshot is the current one (set after the first write of a new schema). */
  current: boolean;
}

/**
 * A keyed state store in an LMDB environment. Several processes may open one store (LMDB
 * readers never block the writer); writes return a promise resolved when committed.
 */
export class LmdbStore<S extends StateSpecs = StateSpecs> {
  readonly #db: LmdbDatabase;
  readonly #slots = new Map<string, Slot>();
  #inTransaction = 0;
  /** Slots whose snapshot the running transactionSync wrote (stored only if it commits). */
  #pending: Set<Slot> | undefined;

  private constructor(db: LmdbDatabase) {
    this.#db = db;
  }

  /**
   * Opens (or creates) the store at `path`. Every declared state that has data is resolved
   * against its stored snapshot first; an unsupported change throws StateStoreError
   * STATE_SCHEMA_INCOMPATIBLE (with the evaluator's findings) and nothing is written.
   */
  static async open<S extends StateSpecs>(path: string, states: S, options: LmdbStoreOptions = {}): Promise<LmdbStore<S>> {
    checkPath(path, "LmdbStore.open");
    checkSpecs(states);
    checkOptions(options);
    let lmdb: { open: (options: Record<string, unknown>) => LmdbDatabase };
    try {
      lmdb = (await import("lmdb")) as unknown as typeof lmdb;
    } catch (e) {
      throw new StateStoreError("LMDB_NOT_INSTALLED", "the LMDB backend needs the lmdb package: npm install lmdb@3.5.6", { cause: e });
    }
    let db: LmdbDatabase;
    try {
      db = lmdb.open({
        path,
        encoding: "binary",
        keyEncoding: "binary",
        ...(options.mapSize === undefined ? {} : { mapSize: options.mapSize }),
        noSync: options.noSync ?? false,
      });
    } catch (e) {
      // lmdb's own Error (a path it cannot create, MDB_READERS_FULL after ~126 stores of one path
      // left open in a process), typed with what to do.
      const why = e instanceof Error ? e.message : String(e);
      const hint = /READERS_FULL/.test(why) ? "close the stores of this path that are no longer used (store.close())" : "check the path and its permissions";
      throw new StateStoreError("STORE_OPEN_FAILED", `lmdb store ${path} did not open: ${why}; ${hint}`, { cause: e });
    }
    const store = new LmdbStore<S>(db);
    try {
      for (const [name, spec] of Object.entries(states)) {
        const serializer = spec.type.createSerializer();
        const snapshot = writeSnapshot(serializer.snapshotConfiguration());
        const nameKey = keyBytes(name);
        const metaKey = concatBytes([Uint8Array.of(META), nameKey]);
        const stored = db.getBinary(metaKey);
        let current = false;
        if (stored !== undefined) {
          const kind = kindOfCode(stored[0] ?? 0);
          if (kind === undefined) {
            throw new SnapshotFormatError("STORE_META_CORRUPTED", `lmdb store ${path}, state "${name}" at byte 0 of its metadata: state kind ${stored[0]} is unknown; the store did not open: restore it from a backup`, {
              offset: 0,
            });
          }
          if (kind !== spec.kind) throw kindChanged(name, kind, spec.kind);
          const savedBytes = stored.subarray(1);
          let saved;
          try {
            saved = readSnapshot(savedBytes);
          } catch (e) {
            if (e instanceof SnapshotFormatError) {
              const at = 1 + (e.offset ?? 0);
              throw new SnapshotFormatError(e.code, `lmdb store ${path}, state "${name}" at byte ${at} of its metadata: ${e.message}`, { offset: at, cause: e });
            }
            throw e;
          }
          resolveOrThrow(name, serializer, saved);
          current = bytesEqual(savedBytes, snapshot);
        }
        store.#slots.set(name, { name, kind: spec.kind, serializer, snapshot, metaKey, prefix: concatBytes([Uint8Array.of(DATA), nameKey]), current });
      }
    } catch (e) {
      await db.close();
      throw e;
    }
    return store;
  }

  /** A declared state. */
  state<N extends keyof S & string>(name: N): StateOf<S[N]> {
    const slot = this.#slots.get(name);
    if (slot === undefined) {
      throw new StateStoreError("STATE_NOT_DECLARED", `state ${quoted(String(name))} is not declared: pass it in the states of LmdbStore.open`, { state: shortName(String(name)) });
    }
    return this.#view(slot) as StateOf<S[N]>;
  }

  /**
   * Runs `fn` in one synchronous write transaction: every write it makes commits together or
   * not at all (a crash inside leaves the previous state). Returns what `fn` returns.
   */
  transactionSync<T>(fn: () => T): T {
    // lmdb runs a nested transactionSync as part of the outer one: an inner fn that threw, caught
    // by the outer, had its writes committed with the outer's. Refused before it writes anything.
    if (this.#inTransaction > 0) {
      throw new StateStoreError(
        "STATE_TRANSACTION_NESTED",
        "transactionSync cannot run inside another transactionSync: its writes would commit with the outer transaction even if it threw; call the inner function directly, inside the outer transaction",
      );
    }
    const pending = new Set<Slot>();
    this.#pending = pending;
    try {
      const result = this.#db.transactionSync(() => {
        this.#inTransaction++;
        try {
          return fn();
        } finally {
          this.#inTransaction--;
        }
      });
      // Committed: the snapshots written in it are now the stored ones.
      for (const slot of pending) slot.current = true;
      return result;
    } finally {
      this.#pending = undefined;
    }
  }

  /** Marks `slot`'s snapshot as stored: now, or when the enclosing transaction commits. */
  #stored(slot: Slot): void {
    if (this.#pending !== undefined) this.#pending.add(slot);
    else slot.current = true;
  }

  /** Closes the environment (pending writes are committed first). */
  async close(): Promise<void> {
    await this.#db.close();
  }

  #write(slot: Slot, puts: [Uint8Array, Uint8Array][], removes: Uint8Array[] = []): Promise<void> {
    const db = this.#db;
    if (slot.current && puts.length + removes.length === 1 && this.#inTransaction === 0) {
      // lmdb's own promise (it resolves to true; typed as Promise<void>, nothing reads the value).
      return (puts.length === 1 ? db.put(puts[0]![0], puts[0]![1]) : db.remove(removes[0]!)) as Promise<unknown> as Promise<void>;
    }
    const body = (): void => {
      // The snapshot goes with the first value that the current schema writes.
      if (!slot.current && puts.length > 0) this.#storeSnapshot(slot);
      for (const [k, v] of puts) void db.put(k, v);
      for (const k of removes) void db.remove(k);
    };
    if (this.#inTransaction > 0) body();
    else db.transactionSync(body);
    if (puts.length > 0) this.#stored(slot);
    return Promise.resolve();
  }

  /**
   * Inside the write transaction of the first value of the current schema: another process (or
   * store instance) may have stored a snapshot since this store opened; the current schema must
   * read the data written under it too, else the transaction aborts (STATE_SCHEMA_INCOMPATIBLE).
   */
  #storeSnapshot(slot: Slot): void {
    const stored = this.#db.getBinary(slot.metaKey);
    if (stored !== undefined && !bytesEqual(stored.subarray(1), slot.snapshot)) {
      if (kindOfCode(stored[0] ?? 0) !== slot.kind) throw kindChanged(slot.name, kindOfCode(stored[0] ?? 0) ?? "value", slot.kind);
      resolveOrThrow(slot.name, slot.serializer, readSnapshot(new Uint8Array(stored.subarray(1))), "written");
    }
    void this.#db.put(slot.metaKey, concatBytes([Uint8Array.of(KIND_CODES[slot.kind]), slot.snapshot]));
  }

  #encode(slot: Slot, key: StateKey, value: unknown): Uint8Array {
    return encodeStateValue(slot.name, slot.serializer, key, value);
  }

  #decode(slot: Slot, key: StateKey, bytes: Uint8Array): DynamicMessage {
    try {
      return slot.serializer.fromBinary(bytes);
    } catch (e) {
      if (e instanceof CodecError) {
        throw new CodecError(e.code, `state "${slot.name}", key ${showKey(key)}: the stored value does not decode: ${e.message}`, { path: e.path, offset: e.offset, cause: e });
      }
      throw e;
    }
  }

  #keysUnder(prefix: Uint8Array): StateKey[] {
    const out: StateKey[] = [];
    let last: Uint8Array | undefined;
    for (const k of this.#db.getKeys({ start: prefix, end: concatBytes([prefix, TAG_END]) })) {
      const r = readKey(k, prefix.length);
      if (r === undefined) continue;
      const raw = k.subarray(prefix.length, r.end);
      if (last !== undefined && bytesEqual(last, raw)) continue;
      // A copy: lmdb's keys are Node Buffers, whose slice() is a view of the same memory.
      last = new Uint8Array(raw);
      out.push(r.key);
    }
    return out;
  }

  #view(slot: Slot): ValueState | MapState | ListState {
    const name = slot.name;
    const db = this.#db;
    const at = (key: StateKey): Uint8Array => (checkKey(name, key), fits(name, prefixedKey(slot.prefix, key)));
    if (slot.kind === "value") {
      const state: ValueState = {
        name,
        get: (key) => {
          const b = db.getBinary(at(key));
          return b === undefined ? undefined : this.#decode(slot, key, b);
        },
        put: (key, value) => {
          const k = at(key);
          return this.#write(slot, [[k, this.#encode(slot, key, value)]]);
        },
        delete: (key) => this.#write(slot, [], [at(key)]),
        keys: () => this.#keysUnder(slot.prefix),
      };
      return Object.freeze(state);
    }
    if (slot.kind === "map") {
      const itemAt = (key: StateKey, userKey: StateKey): Uint8Array => (checkKey(name, userKey, "user key"), fits(name, prefixedKey(at(key), userKey)));
      const state: MapState = {
        name,
        get: (key, userKey) => {
          const b = db.getBinary(itemAt(key, userKey));
          return b === undefined ? undefined : this.#decode(slot, key, b);
        },
        put: (key, userKey, value) => {
          const k = itemAt(key, userKey);
          return this.#write(slot, [[k, this.#encode(slot, key, value)]]);
        },
        delete: (key, userKey) => this.#write(slot, [], [itemAt(key, userKey)]),
        entries: (key) => {
          const p = at(key);
          const out: [StateKey, DynamicMessage][] = [];
          for (const { key: k, value } of db.getRange({ start: p, end: concatBytes([p, TAG_END]) })) {
            const r = readKey(k, p.length);
            if (r !== undefined) out.push([r.key, this.#decode(slot, key, value)]);
          }
          return out;
        },
        clear: (key) => {
          const p = at(key);
          return this.#write(slot, [], [...db.getKeys({ start: p, end: concatBytes([p, TAG_END]) })].map((k) => Uint8Array.from(k)));
        },
        keys: () => this.#keysUnder(slot.prefix),
      };
      return Object.freeze(state);
    }
    const state: ListState = {
      name,
      get: (key) => {
        const p = at(key);
        const out: DynamicMessage[] = [];
        for (const { value } of db.getRange({ start: p, end: concatBytes([p, INDEX_END]) })) out.push(this.#decode(slot, key, value));
        return out;
      },
      add: (key, value) => {
        const p = at(key);
        const bytes = this.#encode(slot, key, value);
        // The next index is read and written in one transaction, so concurrent adds never collide.
        const append = (): void => {
          let next = 0;
          for (const { key: k } of db.getRange({ start: concatBytes([p, INDEX_END]), end: p, reverse: true, limit: 1 })) {
            next = new DataView(k.buffer, k.byteOffset, k.byteLength).getUint32(p.length) + 1;
          }
          if (!slot.current) this.#storeSnapshot(slot);
          void db.put(concatBytes([p, u32be(next)]), bytes);
        };
        if (this.#inTransaction > 0) append();
        else db.transactionSync(append);
        this.#stored(slot);
        return Promise.resolve();
      },
      clear: (key) => {
        const p = at(key);
        return this.#write(slot, [], [...db.getKeys({ start: p, end: concatBytes([p, INDEX_END]) })].map((k) => Uint8Array.from(k)));
      },
      keys: () => this.#keysUnder(slot.prefix),
    };
    return Object.freeze(state);
  }
}

/** LMDB's key limit (lmdb 3.x default build): the stored key is the state's prefix, the key and the user key or list index. */
export const MAX_STORED_KEY_BYTES = 1978;

function fits(name: string, stored: Uint8Array): Uint8Array {
  if (stored.length + 4 > MAX_STORED_KEY_BYTES) {
    throw new StateStoreError(
      "STATE_KEY_TOO_LONG",
      `state "${name}": the key takes ${stored.length} bytes with the state's prefix, over LMDB's limit of ${MAX_STORED_KEY_BYTES - 4} for this state; use a shorter key (or a hash of it)`,
      { state: name },
    );
  }
  return stored;
}

