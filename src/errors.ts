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
  /** Field path from the root, e.g. `acme.Order.items[3].price`, when known. */
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
 * A broken internal invariant (a protokeel bug, never bad input): one shape for all of them, a
 * CodecError with code INTERNAL_ERROR whose message says where and asks for a report.
 */
export function internalError(context: string, what: string): CodecError {
  return new CodecError("INTERNAL_ERROR", `${context}: ${what}; this is a protokeel bug, please report it`);
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
