import type { DescMessage } from "@bufbuild/protobuf";
import type { ProtobufSerializer } from "../serializer.js";
import type { SnapshotInput, SnapshotOutput } from "./bytes.js";

/**
 * Where a generated snapshot's restore finds the application's generated schema by its generated
 * type name: a protobuf-es `Registry` (`createRegistry(OrderSchema)`), a `Map` of type name to
 * schema, or a plain object keyed by type name.
 */
export type GeneratedTypeRegistry =
  | { getMessage(typeName: string): DescMessage | undefined }
  | ReadonlyMap<string, DescMessage>
  | Readonly<Record<string, DescMessage>>
  | readonly DescMessage[];

/** Options of `readSnapshot`. */
export interface ReadSnapshotOptions {
  /**
   * The generated schemas a generated snapshot's `restoreSerializer()` may need (docs/design.md §11):
   * looked up by the snapshot's generated type name. Dynamic snapshots never need it; `null` is none.
   */
  readonly registry?: GeneratedTypeRegistry | null;
}

/**
 * A persisted serializer configuration: the schema and settings that wrote some data. Written
 * with `writeSnapshot`, read back with `readSnapshot` without any application input.
 */
export interface SerializerSnapshot<S = ProtobufSerializer> {
  /** The envelope's class name, e.g. `protokeel.ProtobufDynamicSerializerSnapshot`. */
  readonly className: string;
  /** The payload version this object writes. */
  readonly version: number;
  /**
   * Which kind of type the snapshot is of (README: "`snapshot.kind` tells which"); protokeel's
   * snapshots always have it, a snapshot class of another package may not.
   */
  readonly kind?: "dynamic" | "generated";
  /** The root message's full name (protokeel's snapshots always have it). */
  readonly fullName?: string;
  /**
   * A serializer with the saved schema and settings, rebuilt from the snapshot alone. Throws
   * `RestoreError` naming the full name and the failed rule.
   */
  restoreSerializer(): S;
  /**
   * Decides whether data written under `saved` can be read with this (current) configuration.
   * A snapshot of another kind is always incompatible.
   */
  resolveSchemaCompatibility(saved: SerializerSnapshot<unknown>): SchemaCompatibility;
  /** @internal Writes the payload that follows the envelope. */
  writePayload(out: SnapshotOutput): void;
}

/** One reason a saved snapshot cannot be read as is: an evaluator finding or a snapshot rule. */
export interface SchemaCompatibilityFinding {
  /**
   * Stable rule id: an evaluator rule (e.g. `FIELD_TYPE_CHANGED`, `MAX_DEPTH_LOWERED`), or
   * `SNAPSHOT_KIND_CHANGED` (generated vs dynamic), or `SAVED_SCHEMA_NOT_RESTORABLE`.
   */
  readonly rule: string;
  /** Where, in the evaluator's style: `acme.Order.items(2).qty(2)`. */
  readonly path: string;
  readonly message: string;
}

/** The answer of `current.resolveSchemaCompatibility(saved)`. */
export type SchemaCompatibility =
  | { readonly kind: "compatibleAsIs" }
  | {
      readonly kind: "incompatible";
      /** A readable report: the verdict, then each incompatibility with its rule, path and message. */
      readonly reason: string;
      readonly incompatibilities: readonly SchemaCompatibilityFinding[];
    };

/**
 * Reads one kind's payload after the envelope. `version` is the envelope's snapshot version,
 * read at byte `versionAt`; the reader rejects versions it does not know.
 */
export type PayloadReader = (
  input: SnapshotInput,
  version: number,
  versionAt: number,
  options: ReadSnapshotOptions,
) => SerializerSnapshot<unknown>;
