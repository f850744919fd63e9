// ProtobufType (docs/design.md §5, §6): one root descriptor, its normalized identity and four settings.
import type { DescMessage } from "@bufbuild/protobuf";
import { sha256 } from "@noble/hashes/sha2";
import { MESSAGE_BRAND, TYPE_BRAND, hasBrand } from "./brand.js";
import { InvalidDescriptorError, InvalidObjectError, MissingTypeInfoError, isProtokeelError } from "./errors.js";
import { collectClosure } from "./descriptor/closure.js";
import { isDynamicMessageClass, resolveRoot, type DescriptorInput } from "./descriptor/input.js";
import { fingerprintOf, MAX_NORMALIZED_BYTES, NORMALIZATION_VERSION, normalizeClosure } from "./descriptor/normalize.js";
import { rebuildCounted, rebuildRoot } from "./descriptor/rebuild.js";
import { checkClosure, checkProtocRules, checkRootName } from "./descriptor/rules.js";
import { shortName } from "./descriptor/names.js";
import { resolveSettings, settingsEqual, type Settings } from "./settings.js";
import { ProtobufSerializer } from "./serializer.js";
import { CHECK_BYTES, checksOf, hex32, writeCheck } from "./snapshot/crc32c.js";
import { checkGeneratedNames, checkGeneratedSchema, newGeneratedType, type ProtobufGeneratedType } from "./generated/type.js";
import { bytesEqual, bytesProblem, privateInput } from "./bytes.js";

/** Framing version 1: a varint length followed by the message (docs/design.md §8.2). */
export const FRAMING_VERSION = 1;

/** The transfer form's own version; `fromBytes` rejects any other. */
const TRANSFER_MAGIC = [0x50, 0x4b, 0x54, 0x59] as const; // "PKTY"
const TRANSFER_VERSION = 1;
const KIND_DYNAMIC = 1;

/** Normalized bytes by type, for internal readers (snapshots) that must not pay for a copy. */
const normalizedOf = new WeakMap<ProtobufType, Uint8Array>();

/**
 * @internal A type rebuilt from a normalized set alone (type transfer, snapshot restore): one
 * rebuild, the payload rules (1–5, not 5a: see checkProtocRules), and a check that the set is already normalized (code
 * `SET_NOT_NORMALIZED`), so the type's identity is exactly those bytes. The type gets its own
 * descriptors. Throws `InvalidDescriptorError`.
 */
export function typeFromNormalized(normalized: Uint8Array, fullName: string, settings: Settings): ProtobufType {
  const rebuilt = rebuildRoot(normalized, fullName);
  checkRootName(rebuilt.typeName);
  const closure = collectClosure(rebuilt);
  checkClosure(closure);
  const again = normalizeClosure(closure);
  if (!bytesEqual(again, normalized)) {
    throw new InvalidDescriptorError(
      "SET_NOT_NORMALIZED",
      `invalid descriptor ${shortName(fullName)}: the descriptor set is not in normalization version 1 form, so it would not keep its identity`,
    );
  }
  return construct(rebuilt, again, resolveSettings(settings));
}

/** The private constructor, reachable from this module only. */
let construct: (root: DescMessage, normalized: Uint8Array, settings: Settings) => ProtobufType;

/** @internal The type's normalized set without a copy; callers must not modify it. */
export function normalizedBytesOf(type: ProtobufType): Uint8Array {
  return normalizedOf.get(type)!;
}

interface Validated {
  readonly root: DescMessage;
  readonly normalized: Uint8Array;
}

/**
 * Payload rules, normalization and one rebuild (docs/design.md §4.2–4.4): a descriptor that cannot be
 * rebuilt from its own content fails here rather than in a worker or at restore.
 */
function validate(root: DescMessage): Validated {
  checkRootName(root.typeName);
  const closure = collectClosure(root);
  checkClosure(closure);
  checkProtocRules(closure);
  const normalized = normalizeClosure(closure);
  rebuildCounted(normalized, root.typeName);
  return { root, normalized };
}

/** A message type bound to one root descriptor and four settings. Build with `of` or `newBuilder`. */
export class ProtobufType {
  // Identity lives in private fields behind getters, so no caller can reassign it.
  readonly #fullName: string;
  readonly #descriptor: DescMessage;
  readonly #settings: Settings;
  #fingerprint: string | undefined;

  static {
    Object.defineProperty(this.prototype, TYPE_BRAND, { value: true });
    construct = (root, normalized, settings) => new ProtobufType(root, normalized, settings);
  }

  private constructor(root: DescMessage, normalized: Uint8Array, settings: Settings) {
    this.#fullName = root.typeName;
    this.#descriptor = root;
    this.#settings = settings;
    normalizedOf.set(this, normalized);
  }

  /** `"dynamic"`: values are `DynamicMessage`s bound to `descriptor`. */
  get kind(): "dynamic" {
    return "dynamic";
  }

  /** The root message's full name, e.g. `acme.Order`. */
  get fullName(): string {
    return this.#fullName;
  }

  /** The descriptor values are built from: the application's instance when one was given. */
  get descriptor(): DescMessage {
    return this.#descriptor;
  }

  /** The four settings (frozen). */
  get settings(): Settings {
    return this.#settings;
  }

  /** Framing version 1: a varint length, then the message. */
  get framingVersion(): number {
    return FRAMING_VERSION;
  }

  /** Normalization version 1 (docs/design.md §4.3). */
  get normalizationVersion(): number {
    return NORMALIZATION_VERSION;
  }

  /** A type with default settings; the same as `newBuilder(root).build()`. */
  static of(root: DescriptorInput): ProtobufType {
    return ProtobufType.newBuilder(root).build();
  }

  /**
   * The generated kind (docs/design.md §11) with default settings: values are the message objects of
   * protobuf-es (`create(schema, init)`, `$typeName`, `$unknown`) for a schema generated by
   * protoc-gen-es (`GenMessage<T>`). `ProtobufType.of(schema)` of the same schema is a dynamic type.
   */
  static ofGenerated<Desc extends DescMessage>(schema: Desc): ProtobufGeneratedType<Desc> {
    return ProtobufType.newGeneratedBuilder(schema).build();
  }

  /** A builder of the generated kind, with a setter for each of the four settings. */
  static newGeneratedBuilder<Desc extends DescMessage>(schema: Desc): ProtobufTypeBuilder<ProtobufGeneratedType<Desc>> {
    return new ProtobufTypeBuilder<ProtobufGeneratedType<Desc>>(schema, (_input, settings) => {
      checkGeneratedSchema(schema);
      const base = ProtobufType.newBuilder(schema).build();
      checkGeneratedNames(schema);
      return newGeneratedType(schema, construct(base.descriptor, normalizedBytesOf(base), settings));
    });
  }

  /** A builder with a setter for each of the four settings. */
  static newBuilder(root: DescriptorInput): ProtobufTypeBuilder {
    return new ProtobufTypeBuilder(root, (input, settings) => {
      const { root: desc, normalized } = validate(resolveRoot(input));
      return new ProtobufType(desc, normalized, settings);
    });
  }

  /**
   * Reads the transfer form written by `toBytes`, rebuilding and validating the descriptors
   * again; the result has its own descriptor instances. Throws `InvalidObjectError`.
   */
  static fromBytes(bytes: Uint8Array): ProtobufType {
    const t = readTransfer(bytes);
    try {
      return typeFromNormalized(t.normalized, t.fullName, t.settings);
    } catch (e) {
      if (!isProtokeelError(e)) throw e;
      if (e.code === "SET_NOT_NORMALIZED") {
        throw new InvalidObjectError(
          "TRANSFER_NOT_NORMALIZED",
          `invalid type bytes: the descriptor set of ${t.fullName} is not in normalized form; pass the exact output of ProtobufType.toBytes()`,
          { cause: e },
        );
      }
      throw new InvalidObjectError("TRANSFER_INVALID_DESCRIPTOR", `invalid type bytes: ${e.message}`, { cause: e });
    }
  }

  /** The normalized descriptor set (normalization v1), a fresh copy on each call. */
  normalizedDescriptorSet(): Uint8Array {
    return normalizedBytesOf(this).slice();
  }

  /** Lowercase hex SHA-256 of the normalized descriptor set. */
  fingerprint(): string {
    return (this.#fingerprint ??= fingerprintOf(normalizedBytesOf(this)));
  }

  /**
   * Equal by content: kind, full name, normalized bytes, framing and normalization versions and
   * the four settings. Types built from distinct descriptor instances with equal content are equal.
   */
  equals(other: unknown): boolean {
    if (other === this) return true;
    if (!hasBrand(other, TYPE_BRAND)) return false;
    const o = other as ProtobufType;
    const same =
      o.kind === this.kind &&
      o.fullName === this.fullName &&
      o.framingVersion === this.framingVersion &&
      o.normalizationVersion === this.normalizationVersion &&
      settingsEqual(o.settings, this.settings);
    if (!same) return false;
    // A type of another copy of this package (ESM beside CJS) keeps its normalized bytes private
    // to that copy; its fingerprint is their SHA-256.
    if (o instanceof ProtobufType) return bytesEqual(normalizedBytesOf(o), normalizedBytesOf(this));
    return (other as { fingerprint(): string }).fingerprint() === this.fingerprint();
  }

  /**
   * Always false: a message is never a partitioning or map key, because descriptor identity
   * differs between processes. Extract a scalar key instead.
   */
  isKeyType(): false {
    return false;
  }

  /**
   * The transfer form for worker threads and job plans: kind, settings, versions, full name and
   * the normalized set, ended by an integrity check over every byte. Never a descriptor object
   * or a function.
   */
  toBytes(): Uint8Array {
    return writeTransfer(this);
  }

  /** A serializer of this type's values (docs/design.md §8); each has its own accepted-pair cache. */
  createSerializer(): ProtobufSerializer {
    return new ProtobufSerializer(this);
  }

  toString(): string {
    return `ProtobufType(${this.kind} ${this.fullName})`;
  }
}

/**
 * Collects the four settings; `build()` validates the descriptor (docs/design.md §5). `T` is the type it
 * builds: a `ProtobufType`, or a `ProtobufGeneratedType` from `ProtobufType.newGeneratedBuilder`.
 */
export class ProtobufTypeBuilder<T = ProtobufType> {
  readonly #input: DescriptorInput;
  readonly #make: (input: DescriptorInput, settings: Settings) => T;
  #settings: Partial<Settings> = {};

  /** @internal Use `ProtobufType.newBuilder(root)`. */
  constructor(input: DescriptorInput, make: (input: DescriptorInput, settings: Settings) => T) {
    this.#input = input;
    this.#make = make;
  }

  /** Largest frame payload written or read, 1..2,147,483,647. Defaults to 67,108,864 (64 MiB). */
  maxMessageBytes(value: number): this {
    return this.#set({ maxMessageBytes: value });
  }

  /** Deepest message nesting written or read (the root is depth 1), 1..10,000. Defaults to 100. */
  maxDepth(value: number): this {
    return this.#set({ maxDepth: value });
  }

  /** Canonical output order. Defaults to false. */
  deterministic(value: boolean): this {
    return this.#set({ deterministic: value });
  }

  /** Bytes fields of at least this size decode as views; 0 = never, up to maxMessageBytes. Defaults to 0. */
  aliasThreshold(value: number): this {
    return this.#set({ aliasThreshold: value });
  }

  build(): T {
    return this.#make(this.#input, resolveSettings(this.#settings));
  }

  #set(change: Partial<Settings>): this {
    const next = { ...this.#settings, ...change };
    resolveSettings(next, true);
    this.#settings = next;
    return this;
  }
}

/**
 * @internal `builder` with the four settings of `s`: a type built again from a saved or fetched
 * schema reads with the settings of the type it stands for (snapshots, schema registry).
 */
export function withSettings<T>(builder: ProtobufTypeBuilder<T>, s: Settings): ProtobufTypeBuilder<T> {
  return builder.maxMessageBytes(s.maxMessageBytes).maxDepth(s.maxDepth).deterministic(s.deterministic).aliasThreshold(s.aliasThreshold);
}

/**
 * Type inference from a value or class, the analog of a type-info factory. A class cannot select
 * a schema, so `DynamicMessage` (class or value) throws `MissingTypeInfoError`; build the type
 * with `ProtobufType.of(descriptor)`. Other inputs throw `TypeError`.
 */
export function typeFor(valueOrClass: unknown): ProtobufType {
  const isDynamicValue = typeof valueOrClass === "object" && hasBrand(valueOrClass, MESSAGE_BRAND);
  if (isDynamicMessageClass(valueOrClass) || isDynamicValue) {
    throw new MissingTypeInfoError(
      "DYNAMIC_MESSAGE_TYPE_INFO",
      "missing type info for DynamicMessage: one class represents every schema, so it cannot select one; build the type explicitly with ProtobufType.of(descriptor)",
    );
  }
  throw new TypeError(
    `cannot infer a protobuf type from ${typeof valueOrClass === "function" ? `class ${valueOrClass.name || "(anonymous)"}` : typeof valueOrClass}; build it with ProtobufType.of(descriptor)`,
  );
}

// --- transfer form, version 1 (big-endian) ---
// "PKTY" | u8 version | u8 kind | u8 framing | u8 normalization | u32 maxMessageBytes |
// u32 maxDepth | u8 deterministic | u32 aliasThreshold | u16 + UTF-8 full name |
// u32 + normalized set | 32-byte SHA-256 of the set | 4-byte CRC-32C of every byte before it.
// Nothing may follow.

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function writeTransfer(type: ProtobufType): Uint8Array {
  const name = encoder.encode(type.fullName);
  const set = normalizedBytesOf(type);
  const out = new Uint8Array(4 + 4 + 13 + 2 + name.length + 4 + set.length + 32 + CHECK_BYTES);
  const view = new DataView(out.buffer);
  let p = 0;
  out.set(TRANSFER_MAGIC, p);
  p += 4;
  out[p++] = TRANSFER_VERSION;
  out[p++] = KIND_DYNAMIC;
  out[p++] = type.framingVersion;
  out[p++] = type.normalizationVersion;
  view.setUint32(p, type.settings.maxMessageBytes);
  view.setUint32(p + 4, type.settings.maxDepth);
  out[p + 8] = type.settings.deterministic ? 1 : 0;
  view.setUint32(p + 9, type.settings.aliasThreshold);
  p += 13;
  view.setUint16(p, name.length);
  out.set(name, p + 2);
  p += 2 + name.length;
  view.setUint32(p, set.length);
  out.set(set, p + 4);
  p += 4 + set.length;
  out.set(sha256(set), p);
  writeCheck(out);
  return out;
}

interface Transfer {
  readonly fullName: string;
  readonly settings: Settings;
  readonly normalized: Uint8Array;
}

function bad(code: string, detail: string, cause?: unknown): InvalidObjectError {
  return new InvalidObjectError(
    code,
    `invalid type bytes: ${detail}; pass the exact output of ProtobufType.toBytes()`,
    cause === undefined ? undefined : { cause },
  );
}

function readTransfer(given: Uint8Array): Transfer {
  if (!(given instanceof Uint8Array)) throw bad("TRANSFER_NOT_BYTES", "expected a Uint8Array");
  const problem = bytesProblem(given);
  if (problem !== undefined) throw bad("TRANSFER_NOT_BYTES", `expected a Uint8Array, got ${problem}`);
  // One private copy of shared memory: the integrity check and the reads after it see the same bytes.
  const bytes = privateInput(given);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let p = 0;
  // Where the readable bytes end: before the integrity check once it was verified.
  let end = bytes.length;
  const need = (n: number, what: string): void => {
    if (end - p < n) {
      throw bad("TRANSFER_TRUNCATED", `truncated at offset ${p} reading ${what} (${n} bytes needed, ${end - p} left)`);
    }
  };
  need(4, "the magic");
  if (TRANSFER_MAGIC.some((b, i) => bytes[i] !== b)) throw bad("TRANSFER_BAD_MAGIC", "the magic is not PKTY");
  p = 4;
  need(1, "the transfer version");
  const version = bytes[p]!;
  if (version !== TRANSFER_VERSION) {
    throw bad("TRANSFER_UNSUPPORTED_VERSION", `transfer version ${version} is not supported (this package reads ${TRANSFER_VERSION})`);
  }
  p += 1;
  // The version says where the check is; nothing after it is read before the check holds.
  need(CHECK_BYTES, "the integrity check");
  const { recorded, computed } = checksOf(bytes);
  end -= CHECK_BYTES;
  if (recorded !== computed) {
    throw bad(
      "TRANSFER_CORRUPT",
      `the bytes are corrupt: the CRC-32C of bytes 0..${end - 1} is ${hex32(computed)}, but the transfer form records ${hex32(recorded)}, so they were damaged, cut short or modified on the way`,
    );
  }
  need(3, "the versions");
  const kind = bytes[p]!;
  const framing = bytes[p + 1]!;
  const normalization = bytes[p + 2]!;
  if (kind !== KIND_DYNAMIC) throw bad("TRANSFER_UNSUPPORTED_KIND", `type kind ${kind} is not supported (1 = dynamic)`);
  if (framing !== FRAMING_VERSION) {
    throw bad("TRANSFER_UNSUPPORTED_VERSION", `framing version ${framing} is not supported (this package writes ${FRAMING_VERSION})`);
  }
  if (normalization !== NORMALIZATION_VERSION) {
    throw bad(
      "TRANSFER_UNSUPPORTED_VERSION",
      `normalization version ${normalization} is not supported (this package writes ${NORMALIZATION_VERSION})`,
    );
  }
  p += 3;
  need(13, "the settings");
  const deterministicByte = bytes[p + 8]!;
  if (deterministicByte > 1) throw bad("TRANSFER_BAD_SETTINGS", `deterministic is ${deterministicByte}, not 0 or 1`);
  let settings: Settings;
  try {
    settings = resolveSettings({
      maxMessageBytes: view.getUint32(p),
      maxDepth: view.getUint32(p + 4),
      deterministic: deterministicByte === 1,
      aliasThreshold: view.getUint32(p + 9),
    });
  } catch (e) {
    throw bad("TRANSFER_BAD_SETTINGS", (e as Error).message, e);
  }
  p += 13;
  need(2, "the full name length");
  const nameLength = view.getUint16(p);
  p += 2;
  need(nameLength, "the full name");
  let fullName: string;
  try {
    fullName = decoder.decode(bytes.subarray(p, p + nameLength));
  } catch (e) {
    throw bad("TRANSFER_BAD_NAME", "the full name is not valid UTF-8", e);
  }
  if (fullName === "") throw bad("TRANSFER_BAD_NAME", "the full name is empty");
  p += nameLength;
  need(4, "the descriptor set length");
  const setLength = view.getUint32(p);
  p += 4;
  if (setLength < 1 || setLength > MAX_NORMALIZED_BYTES) {
    throw bad("TRANSFER_BAD_LENGTH", `the descriptor set length ${setLength} is outside 1..${MAX_NORMALIZED_BYTES}`);
  }
  need(setLength, "the descriptor set");
  const normalized = bytes.slice(p, p + setLength);
  p += setLength;
  need(32, "the SHA-256 digest");
  const digest = sha256(normalized);
  if (!bytesEqual(digest, bytes.subarray(p, p + 32))) {
    throw bad("TRANSFER_DIGEST_MISMATCH", `the SHA-256 digest of ${fullName}'s descriptor set does not match`);
  }
  p += 32;
  if (p !== end) throw bad("TRANSFER_TRAILING_BYTES", `${end - p} bytes follow the digest`);
  return { fullName, settings, normalized };
}
