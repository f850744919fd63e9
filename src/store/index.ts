// protokeel/store (Node only): a keyed state store whose values survive schema changes, on a
// memory backend (checkpoint files) and an LMDB backend. The core package never imports this.
export { MemoryStore } from "./memory.js";
export { LmdbStore } from "./lmdb.js";
export type { LmdbStoreOptions } from "./lmdb.js";
export { valueState, mapState, listState } from "./common.js";
export type { ListState, MapState, StateKey, StateKind, StateOf, StateSpec, StateSpecs, ValueState } from "./common.js";
export { StateStoreError, SnapshotFormatError, CodecError } from "../errors.js";
