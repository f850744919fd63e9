// The generated snapshot, payload version 1 (docs/design.md §10.2 with item 3, §11): the dynamic payload
// plus the generated type name. It reads without application input like the dynamic one; its
// serializer needs the application's generated schema, which restore finds by the generated type
// name in the registry passed to readSnapshot.
import type { DescMessage } from "@bufbuild/protobuf";
import { evaluateMessages } from "../compat/evaluate.js";
import { shortName } from "../descriptor/names.js";
import { RestoreError, isProtokeelError } from "../errors.js";
import type { ProtobufGeneratedSerializer } from "../generated/serializer.js";
import type { ProtobufGeneratedType } from "../generated/type.js";
import type { Settings } from "../settings.js";
import { normalizedBytesOf, ProtobufType, withSettings } from "../type.js";
import { SnapshotInput, SnapshotOutput } from "./bytes.js";
import { checkSnapshotArgument, ProtobufDynamicSerializerSnapshot, readPayloadBody, viaPayloadBytes } from "./dynamic.js";
import type { GeneratedTypeRegistry, ReadSnapshotOptions, SchemaCompatibility, SerializerSnapshot } from "./types.js";

export const GENERATED_SNAPSHOT_CLASS = "protokeel.ProtobufGeneratedSerializerSnapshot";
export const GENERATED_SNAPSHOT_VERSION = 1;

const CORRUPTED = "the snapshot was corrupted or modified; restore it from an intact copy";

/** The schema registered under `name`, from a protobuf-es Registry, a Map, a plain object or a list. */
function lookup(registry: GeneratedTypeRegistry | undefined, name: string): DescMessage | undefined {
  if (registry === undefined || registry === null) return undefined;
  let found: unknown;
  if (typeof (registry as { getMessage?: unknown }).getMessage === "function") {
    found = (registry as { getMessage(n: string): unknown }).getMessage(name);
  } else if (registry instanceof Map) {
    found = registry.get(name);
  } else if (Array.isArray(registry)) {
    found = (registry as readonly DescMessage[]).find((d) => d.typeName === name);
  } else if (typeof registry === "object" && Object.prototype.hasOwnProperty.call(registry, name)) {
    found = (registry as Record<string, unknown>)[name];
  }
  const d = found as { kind?: unknown; typeName?: unknown } | undefined;
  return d !== undefined && d !== null && d.kind === "message" && d.typeName === name ? (found as DescMessage) : undefined;
}

/**
 * The configuration of a serializer of a generated type: the dynamic snapshot's content (settings,
 * root full name, normalized descriptor set and fingerprint) plus the generated type name.
 * `restoreSerializer()` needs the application's generated schema: pass a registry to
 * `readSnapshot(bytes, { registry })`.
 */
export class ProtobufGeneratedSerializerSnapshot implements SerializerSnapshot<ProtobufGeneratedSerializer> {
  static readonly className = GENERATED_SNAPSHOT_CLASS;

  readonly kind = "generated" as const;
  readonly className = GENERATED_SNAPSHOT_CLASS;
  readonly version = GENERATED_SNAPSHOT_VERSION;
  readonly framingVersion: number;
  readonly normalizationVersion: number;
  readonly settings: Settings;
  /** The generated type's name (its values' `$typeName`), e.g. `acme.Order`. */
  readonly generatedTypeName: string;
  /** Full name of the root message, e.g. `acme.Order`. */
  readonly fullName: string;
  /** Lowercase hex SHA-256 of the normalized descriptor set. */
  readonly fingerprint: string;
  readonly #base: ProtobufDynamicSerializerSnapshot;
  readonly #registry: GeneratedTypeRegistry | undefined;
  #type: ProtobufGeneratedType | undefined;

  /** @internal Snapshots come from `serializer.snapshotConfiguration()` or `readSnapshot`. */
  constructor(
    base: ProtobufDynamicSerializerSnapshot,
    generatedTypeName: string,
    registry: GeneratedTypeRegistry | undefined,
    type: ProtobufGeneratedType | undefined,
  ) {
    this.#base = base;
    this.generatedTypeName = generatedTypeName;
    this.#registry = registry;
    this.#type = type;
    this.framingVersion = base.framingVersion;
    this.normalizationVersion = base.normalizationVersion;
    this.settings = base.settings;
    this.fullName = base.fullName;
    this.fingerprint = base.fingerprint;
  }

  /** @internal The snapshot of a generated type's configuration. */
  static _of(type: ProtobufGeneratedType): ProtobufGeneratedSerializerSnapshot {
    const dyn = type._dynamic;
    const base = new ProtobufDynamicSerializerSnapshot(
      { settings: dyn.settings, fullName: dyn.fullName, normalizedDescriptorSet: normalizedBytesOf(dyn) },
      undefined,
      dyn,
    );
    return new ProtobufGeneratedSerializerSnapshot(base, type.generatedTypeName, undefined, type);
  }

  /** A copy of the normalized descriptor set the snapshot records. */
  normalizedDescriptorSet(): Uint8Array {
    return this.#base.normalizedDescriptorSet();
  }

  /**
   * A serializer of the application's generated type named by the snapshot, with the saved
   * settings. The type comes from the registry given to `readSnapshot(bytes, { registry })`; a
   * missing entry is a `RestoreError` (`RESTORE_GENERATED_TYPE_MISSING`). When the registered
   * schema is not the saved one, the saved schema must be readable as it by the evaluator's rules,
   * else `RESTORE_GENERATED_TYPE_INCOMPATIBLE`.
   */
  restoreSerializer(): ProtobufGeneratedSerializer {
    return this.#restoreType().createSerializer();
  }

  #restoreType(): ProtobufGeneratedType {
    if (this.#type !== undefined) return this.#type;
    const name = this.generatedTypeName;
    const head = `cannot restore the serializer of ${shortName(this.fullName)} from its snapshot`;
    const schema = lookup(this.#registry, name);
    if (schema === undefined) {
      throw new RestoreError(
        "RESTORE_GENERATED_TYPE_MISSING",
        `${head}: the snapshot is of the generated kind and needs the generated type ${name}, which ${this.#registry === undefined ? "no registry was passed to supply" : "the registry passed to readSnapshot does not have"}; pass readSnapshot(bytes, { registry }) with a protobuf-es Registry (createRegistry(${name.slice(name.lastIndexOf(".") + 1)}Schema)) or a Map of type name to generated schema that has ${name}`,
      );
    }
    const s = this.settings;
    let type: ProtobufGeneratedType;
    try {
      type = withSettings(ProtobufType.newGeneratedBuilder(schema), s).build();
    } catch (e) {
      if (!isProtokeelError(e)) throw e;
      throw new RestoreError(e.code, `${head}: the registered generated type ${name} is invalid: ${e.message}`, { cause: e });
    }
    if (type.fingerprint() !== this.fingerprint) {
      // The application's schema changed since the snapshot: it must read the saved data, and
      // it is a step of the chain (the restored serializer is of the registered schema, and its
      // snapshot is the next check's saved side), so a reservation it drops is refused too: let
      // through, the restored serializer's snapshot forgot it and a later schema reusing the
      // number passed against it (a helper's attack pass; Walk.reservationsKept).
      const saved = this.#base.restoreType().descriptor;
      const r = evaluateMessages(saved, schema, this.settings, this.settings, false);
      if (!r.compatible) {
        const f = r.incompatibilities[0]!;
        throw new RestoreError(
          "RESTORE_GENERATED_TYPE_INCOMPATIBLE",
          `${head}: the registered generated type ${name} cannot read data of the saved schema: ${f.message} (${f.rule} at ${f.path}); register the generated code of a compatible schema`,
        );
      }
    }
    this.#type = type;
    return type;
  }

  /**
   * Decides whether data written under `saved` can be read with this (current) configuration: a
   * generated snapshot by the evaluator's and the settings rules, with no registry needed; a
   * snapshot of another kind (a dynamic one) is always incompatible, even for the same schema.
   */
  resolveSchemaCompatibility(saved: SerializerSnapshot<unknown>): SchemaCompatibility {
    checkSnapshotArgument(saved);
    if (
      !(saved instanceof ProtobufGeneratedSerializerSnapshot) &&
      saved?.className === GENERATED_SNAPSHOT_CLASS &&
      typeof saved.writePayload === "function"
    ) {
      // Of the same kind from another copy of this package (see viaPayloadBytes).
      saved = viaPayloadBytes(saved, (input, version) => readGeneratedPayload(input, version, 0, {}));
    }
    if (!(saved instanceof ProtobufGeneratedSerializerSnapshot)) {
      const kind = typeof saved?.className === "string" ? saved.className : typeof saved;
      const message = `the saved snapshot is ${kind}, the current one is ${GENERATED_SNAPSHOT_CLASS}; the kinds differ (dynamic and generated values are not interchangeable, even for the same schema) and protokeel does not convert data between snapshot kinds, so start with fresh data or replay the input with the current type`;
      return Object.freeze({
        kind: "incompatible",
        reason: `incompatible: ${message}`,
        incompatibilities: Object.freeze([Object.freeze({ rule: "SNAPSHOT_KIND_CHANGED", path: this.fullName, message })]),
      });
    }
    return this.#base._resolve(saved.#base, false);
  }

  /** @internal */
  writePayload(out: SnapshotOutput): void {
    this.#base.writePayloadWith(out, this.generatedTypeName);
  }
}

/** Reads and checks a generated payload of version 1. */
export function readGeneratedPayload(
  input: SnapshotInput,
  version: number,
  versionAt: number,
  options: ReadSnapshotOptions,
): ProtobufGeneratedSerializerSnapshot {
  if (version !== GENERATED_SNAPSHOT_VERSION) {
    input.fail(
      "SNAPSHOT_UNSUPPORTED_VERSION",
      versionAt,
      `${GENERATED_SNAPSHOT_CLASS} version ${version} is not supported (this version of protokeel reads version ${GENERATED_SNAPSHOT_VERSION})`,
      "read it with the protokeel version that wrote it or a newer one",
    );
  }
  const body = readPayloadBody(input, true);
  const name = body.generatedTypeName!;
  if (name !== body.parts.fullName) {
    // protobuf-es names a generated message by its full name: anything else was not written here.
    input.fail("SNAPSHOT_GENERATED_NAME_MISMATCH", versionAt + 19, `the generated type name ${name} is not the root full name ${body.parts.fullName}`, CORRUPTED);
  }
  return new ProtobufGeneratedSerializerSnapshot(new ProtobufDynamicSerializerSnapshot(body.parts, body.digest), name, options.registry ?? undefined, undefined);
}

