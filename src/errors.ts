/**
 * Every error protokeel throws on purpose extends {@link ProtokeelError}. Errors carry a stable
 * `code` and stay JSON-safe: they hold names, paths and offsets, never descriptor objects.
 * Check errors by `name` (or the `is*` guards below), not by `instanceof`: two copies of the
 * package in one process break `instanceof`.
 */
export class ProtokeelError extends Error {
  /** A stable, machine-matchable identifier of the failed rule, e.g. `FIELD_NUMBER_TOO_LARGE`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = "ProtokeelError";
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message };
  }
}

/** A schema violates a payload rule (docs/design.md §4.2) or cannot be used; thrown at construction. */
export class InvalidDescriptorError extends ProtokeelError {
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "InvalidDescriptorError";
  }
}

/** A class cannot select a schema: build the type with `ProtobufType.of(descriptor)`. */
export class MissingTypeInfoError extends ProtokeelError {
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "MissingTypeInfoError";
  }
}

/** The transfer form of a type (`ProtobufType.fromBytes`) is truncated, tampered or unsupported. */
export class InvalidObjectError extends ProtokeelError {
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "InvalidObjectError";
  }
}

/** Writing or reading a value failed; `path` names the field and `offset` the byte where known. */
export class CodecError extends ProtokeelError {
  /** Field path from the root, e.g. `acme.Order.items(2)[0].qty(2)` (field numbers in parentheses, list indexes and map keys in brackets), when known. */
  readonly path: string | undefined;
  /** Byte offset into the input (reading) where the problem was found, when known. */
  readonly offset: number | undefined;

  constructor(
    code: string,
    message: string,
    details: { path?: string; offset?: number; cause?: unknown } = {},
  ) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "CodecError";
    this.path = details.path;
    this.offset = details.offset;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), path: this.path, offset: this.offset };
  }
}

/**
 * A reader error for bytes that start at `shift` of a larger input (a frame's body, a chunk of a
 * stream or of a pool batch, a registry record's payload): its offset and its message's "at byte
 * N" moved by `shift`. Other errors are returned as they are.
 */
export function shifted(e: unknown, shift: number): unknown {
  if (!(e instanceof CodecError) || shift === 0) return e;
  const offset = e.offset === undefined ? undefined : e.offset + shift;
  return new CodecError(e.code, atByteShifted(e.message, shift), { path: e.path, offset, cause: e });
}

/** `message` with the number after its first "at byte " moved by `shift` (a string scan: no regular expression compiled on an error path, which may run with little stack left). */
function atByteShifted(message: string, shift: number): string {
  const at = message.indexOf("at byte ");
  if (at < 0) return message;
  const from = at + 8;
  let to = from;
  while (to < message.length && message.charCodeAt(to) >= 0x30 && message.charCodeAt(to) <= 0x39) to++;
  if (to === from) return message;
  return message.slice(0, from) + String(Number(message.slice(from, to)) + shift) + message.slice(to);
}

/**
 * A broken internal invariant (a protokeel bug, never bad input): one shape for all of them, a
 * CodecError with code INTERNAL_ERROR whose message says where and asks for a report.
 */
export function internalError(context: string, what: string): CodecError {
  return new CodecError("INTERNAL_ERROR", `${context}: ${what}; this is a protokeel bug, please report it`);
}

/**
 * A decoded value's bytes (a lazy value's encoding, a kept unknown field) lay in a codec slab that
 * the application detached by transferring a decoded bytes value's or an output's `.buffer`
 * (README, Reading): what was read from there cannot be read or relayed any more.
 */
export function sourceDetached(typeName: string | undefined, what = typeName): CodecError {
  return new CodecError(
    "SOURCE_DETACHED",
    `cannot read ${what}: the bytes it was decoded from are gone (they shared a codec slab whose buffer was transferred or detached: a decoded bytes value's or an output's .buffer); decode the input again, and copy a bytes value (slice()) before you transfer its buffer`,
    typeName === undefined ? {} : { path: typeName },
  );
}

/** `readSnapshot` met bytes that are not a valid snapshot. */
export class SnapshotFormatError extends ProtokeelError {
  /** Byte offset into the snapshot where decoding stopped, when known. */
  readonly offset: number | undefined;

  constructor(code: string, message: string, details: { offset?: number; cause?: unknown } = {}) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "SnapshotFormatError";
    this.offset = details.offset;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), offset: this.offset };
  }
}

/** `snapshot.restoreSerializer()` could not rebuild the saved serializer. */
export class RestoreError extends ProtokeelError {
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "RestoreError";
  }
}

/**
 * A state store (`protokeel/store`) cannot open or use a state: the saved schema of a state is not
 * readable with the current one (`code` STATE_SCHEMA_INCOMPATIBLE, with the evaluator's findings),
 * a state was declared with another kind, or the store was used wrongly. Names the state.
 */
export class StateStoreError extends ProtokeelError {
  /** The state's name, when the error concerns one state. */
  readonly state: string | undefined;
  /** The evaluator's findings (rule ids and paths) when the saved schema is not readable. */
  readonly incompatibilities: readonly { readonly rule: string; readonly path: string; readonly message: string }[];

  constructor(
    code: string,
    message: string,
    details: {
      state?: string;
      incompatibilities?: readonly { readonly rule: string; readonly path: string; readonly message: string }[];
      cause?: unknown;
    } = {},
  ) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "StateStoreError";
    this.state = details.state;
    this.incompatibilities = Object.freeze([...(details.incompatibilities ?? [])]);
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), state: this.state, incompatibilities: this.incompatibilities };
  }
}

/**
 * Codes of the Schema Registry wire format (`protokeel/registry`). The header codes come with a
 * CodecError whose `offset` is the byte where the header went wrong; the others name the schema id.
 */
export const RegistryCode = {
  /** The first byte is not 0: not a Schema Registry record. */
  REGISTRY_MAGIC_BYTE: "REGISTRY_MAGIC_BYTE",
  /** The input ends inside the magic byte, the schema id or the message-index array. */
  REGISTRY_HEADER_TRUNCATED: "REGISTRY_HEADER_TRUNCATED",
  /** The message-index array is malformed (a count or index that cannot be a path). */
  REGISTRY_MESSAGE_INDEX_INVALID: "REGISTRY_MESSAGE_INDEX_INVALID",
  /** The message-index array names no message of the schema's file. */
  REGISTRY_MESSAGE_INDEX_UNRESOLVED: "REGISTRY_MESSAGE_INDEX_UNRESOLVED",
  /** The registry has no schema with the record's id (error_code 40403). */
  REGISTRY_UNKNOWN_SCHEMA_ID: "REGISTRY_UNKNOWN_SCHEMA_ID",
  /** The registered schema cannot be built into a type (not compilable, or breaks the payload rules). */
  REGISTRY_SCHEMA_UNUSABLE: "REGISTRY_SCHEMA_UNUSABLE",
  /** The evaluator refuses the pair: data of the writer's schema is not readable with the reader's. */
  REGISTRY_SCHEMA_INCOMPATIBLE: "REGISTRY_SCHEMA_INCOMPATIBLE",
} as const;

/**
 * The Schema Registry answered with an error (`protokeel/registry`'s clients), or could not be
 * reached. `status` is the HTTP status (0 when there was no answer), `errorCode` the registry's
 * own `error_code` (e.g. 40401 subject not found, 40403 schema not found, 409 incompatible,
 * 42201 invalid schema, 50001 backend store error), and `code` a stable string:
 * `REGISTRY_<error_code>` for an error body, `REGISTRY_HTTP_<status>` without one,
 * `REGISTRY_UNREACHABLE` when fetch failed.
 */
export class SchemaRegistryError extends ProtokeelError {
  readonly status: number;
  readonly errorCode: number | undefined;

  constructor(code: string, message: string, details: { status: number; errorCode?: number; cause?: unknown }) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "SchemaRegistryError";
    this.status = details.status;
    this.errorCode = details.errorCode;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), status: this.status, errorCode: this.errorCode };
  }
}

/**
 * A worker pool (`protokeel/pool`) could not run a task: the pool was closed (`POOL_CLOSED`), the
 * worker running it exited or crashed (`POOL_WORKER_EXITED`), or the input cannot be sent to a
 * worker (`POOL_INPUT_NOT_CLONEABLE`). Errors of the task itself (a malformed frame, a value that
 * does not encode) arrive as the same CodecError, RangeError, … the single-thread call throws.
 */
export class PoolError extends ProtokeelError {
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "PoolError";
  }
}

const NAMES = new Set([
  "SchemaRegistryError",
  "StateStoreError",
  "PoolError",
  "ProtokeelError",
  "InvalidDescriptorError",
  "MissingTypeInfoError",
  "InvalidObjectError",
  "CodecError",
  "SnapshotFormatError",
  "RestoreError",
]);

/** True for any protokeel error, also one thrown by another copy of the package. */
export function isProtokeelError(e: unknown): e is ProtokeelError {
  return e instanceof Error && NAMES.has(e.name) && typeof (e as { code?: unknown }).code === "string";
}
