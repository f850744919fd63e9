// The dynamic snapshot, payload version 1 (docs/design.md §10.2): the generated payload without the
// generated type name.
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, type FileDescriptorSet } from "@bufbuild/protobuf/wkt";
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex } from "@noble/hashes/utils";
import type { DescMessage } from "@bufbuild/protobuf";
import { formatFindingsListing, LISTED_FINDINGS } from "../compat/format.js";
import { evaluateMessages } from "../compat/evaluate.js";
import { RestoreError, isProtokeelError } from "../errors.js";
import { shortName } from "../descriptor/names.js";
import { forEachDeclaration } from "../descriptor/rebuild.js";
import { MAX_DEPTH_LIMIT, MAX_MESSAGE_BYTES_LIMIT, type Settings } from "../settings.js";
import type { ProtobufSerializer } from "../serializer.js";
import { normalizedBytesOf, typeFromNormalized, type ProtobufType } from "../type.js";
import { SnapshotInput, SnapshotOutput } from "./bytes.js";
import type { ReadSnapshotOptions, SchemaCompatibility, SchemaCompatibilityFinding, SerializerSnapshot } from "./types.js";
import { bytesEqual } from "../bytes.js";
import { scanDescriptorSet } from "../descriptor/set-scan.js";

export const DYNAMIC_SNAPSHOT_CLASS = "protokeel.ProtobufDynamicSerializerSnapshot";
export const DYNAMIC_SNAPSHOT_VERSION = 1;
export const FRAMING_VERSION = 1;
export const NORMALIZATION_VERSION = 1;
/** The snapshot's fixed bound on the normalized descriptor set (docs/design.md §4.2 rule 7). */
export const MAX_DESCRIPTOR_SET_BYTES = 64 * 1024 * 1024;
const FINGERPRINT_BYTES = 32;

const CORRUPTED = "the snapshot was corrupted or modified; restore it from an intact copy";

/** What a dynamic snapshot records. */
export interface DynamicSnapshotParts {
  readonly settings: Settings;
  readonly fullName: string;
  /** The normalized descriptor set (normalization version 1); the snapshot keeps this instance. */
  readonly normalizedDescriptorSet: Uint8Array;
}

/**
 * The configuration of a serializer of a dynamic type: settings, root full name and the
 * normalized descriptor set with its SHA-256 fingerprint. It restores without the application's
 * descriptor.
 */
/**
 * resolveSchemaCompatibility's argument must be a snapshot (a `className` and `writePayload`):
 * anything else (the bytes writeSnapshot wrote, null, {}) was answered "incompatible,
 * SNAPSHOT_KIND_CHANGED", and a program following the upgrade pattern dropped its state for a
 * programming error.
 */
export function checkSnapshotArgument(saved: unknown): void {
  const s = saved as { className?: unknown; writePayload?: unknown } | null | undefined;
  if (typeof s?.className === "string" && typeof s.writePayload === "function") return;
  throw new TypeError(`resolveSchemaCompatibility expects a serializer snapshot (readSnapshot(bytes) returns one), got ${argumentKind(saved)}${saved instanceof Uint8Array ? ": read the bytes with readSnapshot first" : ""}`);
}

/** What an argument of the wrong kind is, for the snapshot API's TypeErrors: null, its typeof, or its class. */
export function argumentKind(v: unknown): string {
  return v === null ? "null" : typeof v !== "object" ? typeof v : (Object.getPrototypeOf(v)?.constructor?.name ?? "an object");
}

export class ProtobufDynamicSerializerSnapshot implements SerializerSnapshot {
  static readonly className = DYNAMIC_SNAPSHOT_CLASS;

  readonly kind = "dynamic" as const;
  readonly className = DYNAMIC_SNAPSHOT_CLASS;
  readonly version = DYNAMIC_SNAPSHOT_VERSION;
  readonly framingVersion = FRAMING_VERSION;
  readonly normalizationVersion = NORMALIZATION_VERSION;
  readonly settings: Settings;
  /** Full name of the root message, e.g. `acme.Order`. */
  readonly fullName: string;
  /** Lowercase hex SHA-256 of the normalized descriptor set. */
  readonly fingerprint: string;
  readonly #set: Uint8Array;
  readonly #digest: Uint8Array;
  /** The type this snapshot describes: the application's when taken from one, else restored once. */
  #type: ProtobufType | undefined;

  /** @internal Snapshots come from `serializer.snapshotConfiguration()` or `readSnapshot`. */
  constructor(
    parts: DynamicSnapshotParts,
    digest: Uint8Array = sha256(parts.normalizedDescriptorSet),
    type?: ProtobufType,
  ) {
    this.settings = Object.freeze({ ...parts.settings });
    this.fullName = parts.fullName;
    this.#set = parts.normalizedDescriptorSet;
    this.#digest = digest;
    this.fingerprint = bytesToHex(digest);
    this.#type = type;
  }

  /**
   * @internal The saved type, rebuilt from this snapshot alone with the saved settings through
   * the one rebuild path of type transfer: decode and rebuild the set, apply the payload rules,
   * and require the set to be in normalized form (so that re-snapshotting gives identical
   * bytes). Throws `RestoreError`.
   */
  restoreType(): ProtobufType {
    if (this.#type !== undefined) return this.#type;
    const head = `cannot restore the serializer of ${shortName(this.fullName)} from its snapshot`;
    let type: ProtobufType;
    try {
      type = typeFromNormalized(this.#set, this.fullName, this.settings);
    } catch (e) {
      if (!isProtokeelError(e)) throw e;
      if (e.code === "SET_NOT_NORMALIZED") {
        throw new RestoreError(
          "RESTORE_NOT_NORMALIZED",
          `${head}: the saved descriptor set is not in normalization version 1 form, so the restored schema would not be the saved one; restore from bytes written by writeSnapshot`,
          { cause: e },
        );
      }
      // Keep the payload rule's own code: it is the rule the saved schema breaks.
      throw new RestoreError(e.code, `${head}: ${e.message}`, { cause: e });
    }
    this.#type = type;
    return type;
  }

  /**
   * A serializer with the saved schema and settings, rebuilt from this snapshot alone (no
   * application descriptor). Values it decodes carry the saved descriptor. Throws `RestoreError`
   * naming the full name and the failed rule.
   */
  restoreSerializer(): ProtobufSerializer {
    return this.restoreType().createSerializer();
  }

  /**
   * Decides whether data written under `saved` can be read with this (current) configuration:
   * the directional evaluator's schema rules plus the settings rules (a lower `maxMessageBytes`
   * or `maxDepth` is incompatible). A snapshot of another kind is always incompatible.
   */
  resolveSchemaCompatibility(saved: SerializerSnapshot<unknown>): SchemaCompatibility {
    return this._resolve(saved, true);
  }

  /** @internal resolveSchemaCompatibility; `jsNumbers` as evaluateMessages takes it (false: the generated kind). */
  _resolve(saved: SerializerSnapshot<unknown>, jsNumbers: boolean): SchemaCompatibility {
    checkSnapshotArgument(saved);
    if (
      !(saved instanceof ProtobufDynamicSerializerSnapshot) &&
      saved?.className === DYNAMIC_SNAPSHOT_CLASS &&
      typeof saved.writePayload === "function"
    ) {
      // A dynamic snapshot from another copy of this package fails `instanceof`; its payload
      // bytes are the contract, so read them back with every check of readSnapshot.
      saved = viaPayloadBytes(saved, (input, version) => readDynamicPayload(input, version, 0, {}));
    }
    if (!(saved instanceof ProtobufDynamicSerializerSnapshot)) {
      const kind = typeof saved?.className === "string" ? saved.className : typeof saved;
      const message = `the saved snapshot is ${kind}, the current one is ${DYNAMIC_SNAPSHOT_CLASS}; the kinds differ (dynamic and generated values are not interchangeable, even for the same schema) and protokeel does not convert data between snapshot kinds, so start with fresh data or replay the input with the current type`;
      return incompatible(`incompatible: ${message}`, [{ rule: "SNAPSHOT_KIND_CHANGED", path: this.fullName, message }]);
    }
    const current = this.restoreType().descriptor;
    let savedRoot: DescMessage;
    try {
      savedRoot = saved.restoreType().descriptor;
    } catch (e) {
      if (!(e instanceof RestoreError)) throw e;
      return incompatible(`incompatible: ${e.message}`, [{ rule: "SAVED_SCHEMA_NOT_RESTORABLE", path: saved.fullName, message: e.message }]);
    }
    const result = evaluateMessages(savedRoot, current, saved.settings, this.settings, jsNumbers);
    if (result.compatible) return COMPATIBLE_AS_IS;
    // The reason lists the first findings; `incompatibilities` keeps every one.
    return incompatible(formatFindingsListing(result, LISTED_FINDINGS), result.incompatibilities);
  }

  /** A copy of the normalized descriptor set the snapshot records. */
  normalizedDescriptorSet(): Uint8Array {
    return this.#set.slice();
  }

  /** @internal */
  writePayload(out: SnapshotOutput): void {
    this.writePayloadWith(out, undefined);
  }

  /**
   * @internal The payload, with the generated type name (docs/design.md §10.2 item 3) after the settings
   * when given: the generated snapshot's payload is this one plus that name.
   */
  writePayloadWith(out: SnapshotOutput, generatedTypeName: string | undefined): void {
    const s = this.settings;
    out.u8(this.framingVersion);
    out.u8(this.normalizationVersion);
    out.u32(s.maxMessageBytes);
    out.u32(s.maxDepth);
    out.u8(s.deterministic ? 1 : 0);
    out.u32(s.aliasThreshold);
    if (generatedTypeName !== undefined) out.utf8(generatedTypeName, `the generated type name of ${this.fullName.slice(0, 64)}`);
    out.utf8(this.fullName, `the root full name of ${this.fullName.slice(0, 64)}`);
    out.u32(this.#set.length);
    out.raw(this.#set);
    out.raw(this.#digest);
  }
}

const COMPATIBLE_AS_IS: SchemaCompatibility = Object.freeze({ kind: "compatibleAsIs" });

function incompatible(reason: string, incompatibilities: SchemaCompatibilityFinding[] | readonly SchemaCompatibilityFinding[]): SchemaCompatibility {
  return Object.freeze({ kind: "incompatible", reason, incompatibilities: Object.freeze([...incompatibilities]) });
}

/**
 * @internal A snapshot from another copy of this package (it fails `instanceof`: the ESM and the
 * CommonJS build are two), read back from its payload bytes by `read` with every check of
 * readSnapshot.
 */
export function viaPayloadBytes<T>(foreign: SerializerSnapshot<unknown>, read: (input: SnapshotInput, version: number) => T): T {
  const out = new SnapshotOutput();
  foreign.writePayload(out);
  const input = new SnapshotInput(out.finish());
  const snapshot = read(input, foreign.version);
  if (input.remaining > 0) {
    input.fail("SNAPSHOT_TRAILING_BYTES", input.pos, "bytes follow the end of the payload", CORRUPTED);
  }
  return snapshot;
}

/** @internal The snapshot of a type's configuration (what `serializer.snapshotConfiguration()` returns). */
export function snapshotOf(type: ProtobufType): ProtobufDynamicSerializerSnapshot {
  return new ProtobufDynamicSerializerSnapshot(
    { settings: type.settings, fullName: type.fullName, normalizedDescriptorSet: normalizedBytesOf(type) },
    undefined,
    type,
  );
}

function readRange(input: SnapshotInput, what: string, min: number, max: number, width: 1 | 4): number {
  const at = input.pos;
  const v = width === 1 ? input.u8(what) : input.u32(what);
  if (v < min || v > max) {
    input.fail("SNAPSHOT_SETTING_OUT_OF_RANGE", at, `${what} is ${v}, outside ${min}..${max}`, CORRUPTED);
  }
  return v;
}

/** Reads and checks a dynamic payload of version 1. */
export function readDynamicPayload(
  input: SnapshotInput,
  version: number,
  versionAt: number,
  _options: ReadSnapshotOptions,
): ProtobufDynamicSerializerSnapshot {
  if (version !== DYNAMIC_SNAPSHOT_VERSION) {
    input.fail(
      "SNAPSHOT_UNSUPPORTED_VERSION",
      versionAt,
      `${DYNAMIC_SNAPSHOT_CLASS} version ${version} is not supported (this version of protokeel reads version ${DYNAMIC_SNAPSHOT_VERSION})`,
      "read it with the protokeel version that wrote it or a newer one",
    );
  }
  const body = readPayloadBody(input, false);
  return new ProtobufDynamicSerializerSnapshot(body.parts, body.digest);
}

/** @internal What a payload of version 1 records, checked (the generated type name only when asked). */
export interface PayloadBody {
  readonly parts: DynamicSnapshotParts;
  readonly digest: Uint8Array;
  readonly generatedTypeName: string | undefined;
}

/**
 * @internal Reads and checks a payload of version 1 after its version: items 1-6 of docs/design.md
 * §10.2, with item 3 (the generated type name) when `generated`.
 */
export function readPayloadBody(input: SnapshotInput, generated: boolean): PayloadBody {
  let at = input.pos;
  const framing = input.u8("the framing version");
  if (framing !== FRAMING_VERSION) {
    input.fail(
      "SNAPSHOT_UNSUPPORTED_FRAMING_VERSION",
      at,
      `framing version ${framing} is not supported (supported: ${FRAMING_VERSION})`,
      "read it with the protokeel version that wrote it or a newer one",
    );
  }
  at = input.pos;
  const normalization = input.u8("the normalization version");
  if (normalization !== NORMALIZATION_VERSION) {
    input.fail(
      "SNAPSHOT_UNSUPPORTED_NORMALIZATION_VERSION",
      at,
      `normalization version ${normalization} is not supported (supported: ${NORMALIZATION_VERSION})`,
      "read it with the protokeel version that wrote it or a newer one",
    );
  }
  const maxMessageBytes = readRange(input, "setting maxMessageBytes", 1, MAX_MESSAGE_BYTES_LIMIT, 4);
  const maxDepth = readRange(input, "setting maxDepth", 1, MAX_DEPTH_LIMIT, 4);
  const deterministic = readRange(input, "setting deterministic", 0, 1, 1) === 1;
  const aliasThreshold = readRange(input, "setting aliasThreshold", 0, maxMessageBytes, 4);

  let generatedTypeName: string | undefined;
  if (generated) {
    at = input.pos;
    generatedTypeName = input.utf8("the generated type name");
    if (generatedTypeName.length === 0) input.fail("SNAPSHOT_EMPTY_NAME", at, "the generated type name is empty", CORRUPTED);
  }

  at = input.pos;
  const fullName = input.utf8("the root full name");
  if (fullName.length === 0) {
    input.fail("SNAPSHOT_EMPTY_NAME", at, "the root full name is empty", CORRUPTED);
  }
  input.subject = ` of ${fullName}`;

  at = input.pos;
  const length = input.u32("the descriptor set length");
  if (length < 1 || length > MAX_DESCRIPTOR_SET_BYTES) {
    input.fail(
      "SNAPSHOT_SET_LENGTH_OUT_OF_RANGE",
      at,
      `the descriptor set length is ${length}, outside 1..${MAX_DESCRIPTOR_SET_BYTES}`,
      CORRUPTED,
    );
  }
  const setAt = input.pos;
  const set = input.take(length, "the descriptor set");
  at = input.pos;
  const recorded = input.take(FINGERPRINT_BYTES, "the fingerprint");
  const digest = sha256(set);
  if (!bytesEqual(digest, recorded)) {
    input.fail(
      "SNAPSHOT_FINGERPRINT_MISMATCH",
      at,
      `the SHA-256 of the descriptor set (${bytesToHex(digest)}) differs from the recorded fingerprint (${bytesToHex(recorded)})`,
      CORRUPTED,
    );
  }

  // Counted before it is decoded: the decoder's objects are up to ~190x its bytes (see set-scan),
  // and a checksum that matches says nothing about who wrote the snapshot.
  const { over } = scanDescriptorSet(set);
  if (over !== undefined) {
    input.fail("SNAPSHOT_SET_TOO_LARGE", setAt, `the descriptor set holds ${over}, past what a normalized set may hold`, CORRUPTED);
  }
  let decoded: FileDescriptorSet;
  try {
    decoded = fromBinary(FileDescriptorSetSchema, set);
  } catch (e) {
    // Any failure of the decoder is a property of these bytes, including a stack overflow
    // on hostile nesting, so it is a format error, not a crash.
    const why = e instanceof Error ? e.message : String(e);
    return input.fail(
      "SNAPSHOT_SET_UNDECODABLE",
      setAt,
      `the descriptor set does not decode as google.protobuf.FileDescriptorSet (${why})`,
      CORRUPTED,
    );
  }
  const count = countDeclarations(decoded, fullName);
  if (count.messages + count.others === 0) {
    input.fail("SNAPSHOT_ROOT_NOT_FOUND", setAt, `the descriptor set does not declare ${fullName}`, CORRUPTED);
  }
  if (count.messages !== 1 || count.others !== 0) {
    input.fail(
      "SNAPSHOT_ROOT_AMBIGUOUS",
      setAt,
      `the descriptor set declares ${fullName} ${count.messages + count.others} times (${count.messages} as a message); the root must resolve exactly once`,
      CORRUPTED,
    );
  }

  // The set is copied out of the caller's buffer, so later changes to that buffer cannot alter
  // the snapshot; its size was checked against the input above. Not set.slice(): from a Node
  // Buffer (a file read, a pooled socket chunk) that is a view of the caller's memory, and a
  // snapshot read from one restored whatever schema the buffer held later.
  return {
    parts: { settings: { maxMessageBytes, maxDepth, deterministic, aliasThreshold }, fullName, normalizedDescriptorSet: new Uint8Array(set) },
    digest,
    generatedTypeName,
  };
}

/** Counts the declarations named `fullName`: as a message, and as anything else (enum, service). */
function countDeclarations(set: FileDescriptorSet, fullName: string): { messages: number; others: number } {
  let messages = 0;
  let others = 0;
  forEachDeclaration(set, (name, kind) => {
    if (name !== fullName) return;
    if (kind === "message") messages++;
    else others++;
  });
  return { messages, others };
}
