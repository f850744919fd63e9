// Options of ProtoJSON (serializer.toJson / fromJson and the string variants).
import type { DescMessage } from "@bufbuild/protobuf";

/** A JSON value as `JSON.parse` returns it and `JSON.stringify` takes it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * Where `google.protobuf.Any` finds the message type its `@type` names: a @bufbuild/protobuf
 * registry (`createRegistry`, `createFileRegistry`: anything with `getMessage(typeName)`), or a
 * list of message descriptors (`DescMessage`, or a `ProtobufType`'s `descriptor`).
 */
export type JsonTypeRegistry =
  | { getMessage(typeName: string): DescMessage | undefined }
  | Iterable<DescMessage | { readonly descriptor: DescMessage }>;

/** Options of `serializer.toJson` and `serializer.toJsonString`. */
export interface JsonWriteOptions {
  /**
   * Also write fields that hold their default: implicit-presence scalars and enums (0, "", false,
   * the first enum value), empty repeated fields ([]) and maps ({}). Fields with explicit presence
   * (`optional`, messages, oneof members) are written only when set. Defaults to false.
   */
  readonly emitDefaultValues?: boolean;
  /** Enum values as numbers instead of names. Defaults to false. */
  readonly enumAsInteger?: boolean;
  /** Property names are the proto field names (`created_at`) instead of the JSON names (`createdAt`). Defaults to false. */
  readonly useProtoFieldName?: boolean;
  /**
   * Unknown fields (binary data the schema does not declare) cannot be written to JSON, which
   * names fields: by default a value that holds any throws `CodecError` (`JSON_UNKNOWN_FIELDS`).
   * `true` drops them: a data-loss policy (whatever a newer writer added is gone from the JSON
   * and from anything read back from it), not forwarding. Defaults to false.
   */
  readonly discardUnknownFields?: boolean;
  /** Message types that `google.protobuf.Any` values may hold. Without it, a set Any throws. */
  readonly registry?: JsonTypeRegistry;
}

/** Options of `serializer.toJsonString`. */
export interface JsonWriteStringOptions extends JsonWriteOptions {
  /** Spaces of indentation per level (0..10); 0 writes one line. Defaults to 0. */
  readonly prettySpaces?: number;
}

/** Options of `serializer.fromJson` and `serializer.fromJsonString`. */
export interface JsonReadOptions {
  /**
   * Properties that name no field of their message, and enum value names the enum does not
   * declare, are skipped instead of throwing `CodecError` (`JSON_UNKNOWN_FIELD`,
   * `JSON_INVALID_VALUE`). A data-loss policy, not forwarding: unlike unknown binary fields,
   * nothing of the skipped properties is kept or written again. Defaults to false.
   */
  readonly ignoreUnknownFields?: boolean;
  /** Message types that `google.protobuf.Any` values may hold. Without it, a set Any throws. */
  readonly registry?: JsonTypeRegistry;
}

/** `registry.getMessage` for either form of a registry; undefined when none was given. */
export function typeResolver(registry: JsonTypeRegistry | undefined, api: string): ((typeName: string) => DescMessage | undefined) | undefined {
  if (registry === undefined) return undefined;
  if (registry !== null && typeof registry === "object" && typeof (registry as { getMessage?: unknown }).getMessage === "function") {
    const r = registry as { getMessage(typeName: string): DescMessage | undefined };
    return (name) => {
      const d = r.getMessage(name);
      return d !== undefined && d !== null && d.kind === "message" ? d : undefined;
    };
  }
  if (registry === null || typeof registry !== "object" || typeof (registry as Iterable<unknown>)[Symbol.iterator] !== "function") {
    throw new TypeError(`${api}: option registry must be a registry with getMessage(typeName) or a list of message descriptors`);
  }
  const byName = new Map<string, DescMessage>();
  for (const entry of registry as Iterable<unknown>) {
    const d = (entry as { kind?: unknown } | null)?.kind === "message" ? (entry as DescMessage) : (entry as { descriptor?: DescMessage } | null)?.descriptor;
    if (d === undefined || d === null || d.kind !== "message") {
      throw new TypeError(`${api}: option registry lists something that is not a message descriptor; pass DescMessage values or ProtobufType values`);
    }
    byName.set(d.typeName, d);
  }
  return (name) => byName.get(name);
}

/** A boolean option: undefined is false; anything else but a boolean is a TypeError. */
export function flag(options: object | undefined, name: string, api: string): boolean {
  const v = (options as Record<string, unknown> | undefined)?.[name];
  if (v === undefined) return false;
  if (typeof v !== "boolean") throw new TypeError(`${api}: option ${name} must be a boolean, got ${typeof v}`);
  return v;
}
