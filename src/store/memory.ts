// The memory (heap) backend: values live as DynamicMessages; checkpoint(path) writes one file
// atomically (temporary file, fsync, rename, fsync of the folder); restore(path, states) reads it
// back with the saved serializers, then resolves each declared state against its current type.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { StateStoreError } from "../errors.js";
import type { DynamicMessage } from "../message/dynamic-message.js";
import type { ProtobufSerializer } from "../serializer.js";
import { writeSnapshot } from "../snapshot/envelope.js";
import { checkpointHeader, encodeState, readCheckpoint, type SavedState, type StateEntries } from "./checkpoint.js";
import {
  checkKey,
  checkPath,
  checkSpecs,
  checkStateValue,
  keyId,
  keyOfId,
  kindChanged,
  resolveOrThrow,
  type ListState,
  type MapState,
  type StateKey,
  type StateKind,
  type StateOf,
  type StateSpecs,
  type ValueState,
} from "./common.js";
import { quoted, shortName } from "../descriptor/names.js";

let checkpointCount = 0;

interface Slot {
  readonly name: string;
  readonly kind: StateKind;
  /** Writes the next checkpoint: the current type's serializer, or the saved one for an undeclared state. */
  readonly writer: ProtobufSerializer;
  /** The snapshot the next checkpoint records. */
  readonly snapshot: Uint8Array;
  readonly values: Map<string, DynamicMessage>;
  readonly maps: Map<string, Map<string, DynamicMessage>>;
  readonly lists: Map<string, DynamicMessage[]>;
}

function emptySlot(name: string, kind: StateKind, writer: ProtobufSerializer, snapshot: Uint8Array): Slot {
  return { name, kind, writer, snapshot, values: new Map(), maps: new Map(), lists: new Map() };
}

/**
 * Checks that the next checkpoint can write `value` (the write's checks, in a sizing pass that
 * writes no bytes): a value it would refuse is refused here, with nothing kept.
 */
function checkValue(slot: Slot, key: StateKey, value: unknown): asserts value is DynamicMessage {
  checkStateValue(slot.name, slot.writer, key, value);
}

/**
 * A keyed state store in memory. Restored values keep the descriptor of the snapshot that wrote
 * them (`value.descriptor`) until the next checkpoint, which writes them with the current type.
 */
export class MemoryStore<S extends StateSpecs = StateSpecs> {
  readonly #slots = new Map<string, Slot>();
  readonly #specs: S;

  private constructor(specs: S) {
    this.#specs = specs;
  }

  /** An empty store with the declared states. */
  static create<S extends StateSpecs>(states: S): MemoryStore<S> {
    checkSpecs(states);
    const store = new MemoryStore(states);
    for (const [name, spec] of Object.entries(states)) {
      const writer = spec.type.createSerializer();
      store.#slots.set(name, emptySlot(name, spec.kind, writer, writeSnapshot(writer.snapshotConfiguration())));
    }
    return store;
  }

  /**
   * Reads a checkpoint file: every state's values are decoded with the serializer its saved
   * snapshot restores (before compatibility is resolved), then each declared state is resolved
   * against its current type. A saved state that is not declared is kept as saved and written
   * back by the next checkpoint. Throws SnapshotFormatError/CodecError (damaged file) or
   * StateStoreError (STATE_SCHEMA_INCOMPATIBLE, STATE_KIND_CHANGED); nothing is returned then.
   */
  static restore<S extends StateSpecs>(path: string, states: S): MemoryStore<S> {
    checkPath(path, "MemoryStore.restore");
    checkSpecs(states);
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(readFileSync(path));
    } catch (e) {
      const code = (e as { code?: unknown } | null)?.code;
      if (code === "ENOENT") {
        throw new StateStoreError("CHECKPOINT_NOT_FOUND", `no checkpoint at ${path}: start with MemoryStore.create(states), or pass the path that checkpoint(path) wrote`, { cause: e });
      }
      // A directory, no permission, an I/O error: what the path is, not a checkpoint's content.
      throw new StateStoreError(
        "CHECKPOINT_UNREADABLE",
        `checkpoint ${path} cannot be read (${typeof code === "string" ? code : (e as Error)?.message ?? String(e)}): pass the path of a checkpoint file that this process can read`,
        { cause: e },
      );
    }
    const saved = readCheckpoint(bytes, path);
    const byName = new Map(saved.map((s) => [s.name, s]));
    // Resolve every declared state before anything is kept.
    const writers = new Map<string, ProtobufSerializer>();
    for (const [name, spec] of Object.entries(states)) {
      const writer = spec.type.createSerializer();
      writers.set(name, writer);
      const s = byName.get(name);
      if (s === undefined) continue;
      if (s.kind !== spec.kind) throw kindChanged(name, s.kind, spec.kind);
      resolveOrThrow(name, writer, s.snapshot);
    }
    const store = new MemoryStore(states);
    for (const s of saved) {
      const writer = writers.get(s.name);
      const slot =
        writer === undefined
          ? emptySlot(s.name, s.kind, s.snapshot.restoreSerializer(), s.snapshotBytes)
          : emptySlot(s.name, s.kind, writer, writeSnapshot(writer.snapshotConfiguration()));
      fill(slot, s);
      store.#slots.set(s.name, slot);
    }
    for (const [name, spec] of Object.entries(states)) {
      if (store.#slots.has(name)) continue;
      const writer = writers.get(name)!;
      store.#slots.set(name, emptySlot(name, spec.kind, writer, writeSnapshot(writer.snapshotConfiguration())));
    }
    return store;
  }

  /** The names of all states, declared or carried from the restored checkpoint. */
  stateNames(): string[] {
    return [...this.#slots.keys()];
  }

  /** A declared state. */
  state<N extends keyof S & string>(name: N): StateOf<S[N]> {
    const spec = this.#specs[name];
    const slot = this.#slots.get(name);
    if (spec === undefined || slot === undefined) {
      throw new StateStoreError("STATE_NOT_DECLARED", `state ${quoted(String(name))} is not declared: pass it in the states of MemoryStore.create/restore`, { state: shortName(String(name)) });
    }
    return view(slot) as StateOf<S[N]>;
  }

  /**
   * Writes every state to `path` atomically: a temporary file beside it, fsync, rename over
   * `path`, fsync of the folder. Each value is written by its state's current serializer (write
   * acceptance decides restored values that carry a saved descriptor); on any failure `path`
   * keeps the previous checkpoint.
   */
  checkpoint(path: string): void {
    checkPath(path, "store.checkpoint");
    const parts: Uint8Array[] = [checkpointHeader(this.#slots.size)];
    for (const slot of this.#slots.values()) parts.push(encodeState(slot.name, entriesOf(slot), slot.snapshot, slot.writer));
    const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.${++checkpointCount}.tmp`);
    let fd: number | undefined = openSync(tmp, "w", 0o644);
    try {
      for (const part of parts) {
        let off = 0;
        while (off < part.length) off += writeSync(fd, part, off, part.length - off);
      }
      fsyncSync(fd);
      closeSync(fd);
      fd = undefined;
      renameSync(tmp, path);
    } catch (e) {
      if (fd !== undefined) closeSync(fd);
      rmSync(tmp, { force: true });
      throw e;
    }
    try {
      const dir = openSync(dirname(path), "r");
      try {
        fsyncSync(dir);
      } finally {
        closeSync(dir);
      }
    } catch {
      // Some platforms cannot fsync a folder; the rename is still atomic.
    }
  }
}

function fill(slot: Slot, s: SavedState): void {
  const data = s.data;
  if (data.kind === "value") for (const [k, v] of data.entries) slot.values.set(keyId(k), v);
  else if (data.kind === "map") for (const [k, items] of data.entries) slot.maps.set(keyId(k), new Map(items.map(([uk, v]) => [keyId(uk), v])));
  else for (const [k, list] of data.entries) slot.lists.set(keyId(k), list);
}

function entriesOf(slot: Slot): StateEntries {
  if (slot.kind === "value") return { kind: "value", entries: [...slot.values].map(([k, v]) => [keyOfId(k), v]) };
  if (slot.kind === "map") {
    return { kind: "map", entries: [...slot.maps].map(([k, m]) => [keyOfId(k), [...m].map(([uk, v]) => [keyOfId(uk), v] as [StateKey, DynamicMessage])]) };
  }
  return { kind: "list", entries: [...slot.lists].map(([k, l]) => [keyOfId(k), l]) };
}

function view(slot: Slot): ValueState | MapState | ListState {
  const name = slot.name;
  if (slot.kind === "value") {
    const state: ValueState = {
      name,
      get: (key) => (checkKey(name, key), slot.values.get(keyId(key))),
      put: (key, value) => {
        checkKey(name, key);
        checkValue(slot, key, value);
        slot.values.set(keyId(key), value);
      },
      delete: (key) => {
        checkKey(name, key);
        slot.values.delete(keyId(key));
      },
      keys: () => [...slot.values.keys()].map(keyOfId),
    };
    return Object.freeze(state);
  }
  if (slot.kind === "map") {
    const state: MapState = {
      name,
      get: (key, userKey) => (checkKey(name, key), checkKey(name, userKey, "user key"), slot.maps.get(keyId(key))?.get(keyId(userKey))),
      put: (key, userKey, value) => {
        checkKey(name, key);
        checkKey(name, userKey, "user key");
        checkValue(slot, key, value);
        const id = keyId(key);
        let m = slot.maps.get(id);
        if (m === undefined) slot.maps.set(id, (m = new Map()));
        m.set(keyId(userKey), value);
      },
      delete: (key, userKey) => {
        checkKey(name, key);
        checkKey(name, userKey, "user key");
        const id = keyId(key);
        const m = slot.maps.get(id);
        m?.delete(keyId(userKey));
        if (m?.size === 0) slot.maps.delete(id);
      },
      entries: (key) => (checkKey(name, key), [...(slot.maps.get(keyId(key)) ?? [])].map(([uk, v]) => [keyOfId(uk), v])),
      clear: (key) => {
        checkKey(name, key);
        slot.maps.delete(keyId(key));
      },
      keys: () => [...slot.maps.keys()].map(keyOfId),
    };
    return Object.freeze(state);
  }
  const state: ListState = {
    name,
    get: (key) => (checkKey(name, key), [...(slot.lists.get(keyId(key)) ?? [])]),
    add: (key, value) => {
      checkKey(name, key);
      checkValue(slot, key, value);
      const id = keyId(key);
      let l = slot.lists.get(id);
      if (l === undefined) slot.lists.set(id, (l = []));
      l.push(value);
    },
    clear: (key) => {
      checkKey(name, key);
      slot.lists.delete(keyId(key));
    },
    keys: () => [...slot.lists.keys()].map(keyOfId),
  };
  return Object.freeze(state);
}
