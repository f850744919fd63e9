import type { SnapshotInput, SnapshotOutput } from "./bytes.js";

/** Options of `readSnapshot`. The generated kind (DESIGN §11) adds its type registry here. */
export interface ReadSnapshotOptions {}

/**
 * A persisted serializer configuration: the schema and settings that wrote some data. Written
 * with `writeSnapshot`, read back with `readSnapshot` without any application input.
 */
export interface SerializerSnapshot {
  /** The envelope's class name, e.g. `protokeel.ProtobufDynamicSerializerSnapshot`. */
  readonly className: string;
  /** The payload version this object writes. */
  readonly version: number;
  /** @internal Writes the payload that follows the envelope. */
  writePayload(out: SnapshotOutput): void;
}

/**
 * Reads one kind's payload after the envelope. `version` is the envelope's snapshot version,
 * read at byte `versionAt`; the reader rejects versions it does not know.
 */
export type PayloadReader = (
  input: SnapshotInput,
  version: number,
  versionAt: number,
  options: ReadSnapshotOptions,
) => SerializerSnapshot;
