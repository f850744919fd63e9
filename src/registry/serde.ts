// Serializer and deserializer of the Schema Registry wire format for one ProtobufType, the shape
// Kafka clients call: serialize(topic, value) → bytes, deserialize(topic, bytes) → value.
// Writing registers (or looks up) the type's schema under the topic's subject once; reading
// fetches the writer's schema by the record's id once, and reads its data with the reader's type
// only after the evaluator accepts the pair (docs/design.md §9), before anything is decoded.
import { createFileRegistry, fromBinary, type FileRegistry } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { TYPE_BRAND, hasBrand } from "../brand.js";
import { evaluateMessages, evaluateSchemaChange, type EvaluationResult } from "../compat/evaluate.js";
import { formatFindingsListing, LISTED_FINDINGS } from "../compat/format.js";
import { quoted, shortName } from "../descriptor/names.js";
import { CodecError, RegistryCode, isProtokeelError, shifted } from "../errors.js";
import type { DynamicInit, DynamicMessage } from "../message/dynamic-message.js";
import { checkBytes, type ProtobufSerializer } from "../serializer.js";
import { ProtobufType, withSettings } from "../type.js";
import type { SchemaInput, SchemaRegistryClient } from "./client.js";
import { messageAtIndexes, messageIndexesOf } from "./message-index.js";
import { resolveSchema, type ResolvedSchema, type SchemaCompiler } from "./resolve.js";
import { registrySchemasOf } from "./schema-files.js";
import { readHeader, withHeader, writeHeader } from "./wire.js";

/** Message `at` of a resolved schema as a type with the reader's settings (a registry schema has none of its own). */
/**
 * The registry of a schema's set, decoded once per schema (undefined when it does not decode or
 * resolve: the set's own route then names the fault). Building each message's type from the set
 * decoded it whole every time: records of one id whose message indexes went round more paths than
 * the caches keep cost 0.3-7 ms each for schemas of 2,000-80,000 messages.
 */
const registries = new WeakMap<ResolvedSchema, FileRegistry | null>();

function registryOf(schema: ResolvedSchema): FileRegistry | undefined {
  let r = registries.get(schema);
  if (r === undefined) {
    try {
      r = createFileRegistry(fromBinary(FileDescriptorSetSchema, schema.fileDescriptorSet));
    } catch {
      r = null;
    }
    registries.set(schema, r);
  }
  return r ?? undefined;
}

function typeOfSchema(schema: ResolvedSchema, id: number, at: { name: string }, like: ProtobufType): ProtobufType {
  const s = like.settings;
  try {
    const desc = registryOf(schema)?.getMessage(at.name);
    if (desc !== undefined) return withSettings(ProtobufType.newBuilder(desc), s).build();
    return withSettings(ProtobufType.newBuilder({ fileDescriptorSet: schema.fileDescriptorSet, messageName: at.name }), s).build();
  } catch (e) {
    if (!isProtokeelError(e)) throw e;
    throw new CodecError(RegistryCode.REGISTRY_SCHEMA_UNUSABLE, `schema registry schema ${id} cannot be read: message ${shortName(at.name)}: ${e.message}`, { cause: e });
  }
}

/** Top-level messages an index error lists; a file may declare thousands, and each bad record repeats the error. */
const LISTED_MESSAGES = 10;

/** The file's top-level messages for an error: all of a few, or their count and the first ones. */
function declaredMessages(file: FileDescriptorProto): string {
  const list = file.messageType;
  if (list.length === 0) return "no message at top level";
  const names = list.slice(0, LISTED_MESSAGES).map((m) => shortName(file.package === "" ? m.name : `${file.package}.${m.name}`));
  if (list.length <= LISTED_MESSAGES) return `${names.join(", ")} at top level`;
  return `${list.length} messages at top level: ${names.join(", ")}, …`;
}

/**
 * The subject of a topic's values: `<topic>-value` (Confluent's TopicNameStrategy). A topic that
 * is not a non-empty string is refused: `undefined-value` is a subject no reader looks under.
 */
export function topicValueSubject(topic: string): string {
  if (typeof topic !== "string" || topic === "") {
    const got = topic === "" ? "an empty string" : topic === null || topic === undefined ? String(topic) : typeof topic;
    throw new TypeError(`RegistrySerializer: the topic must be a non-empty string (its values' subject is <topic>-value), got ${got}`);
  }
  return `${topic}-value`;
}

export interface RegistrySerializerOptions {
  readonly client: SchemaRegistryClient;
  /** The subject, or the subject of a topic. Defaults to `<topic>-value` (TopicNameStrategy). */
  readonly subject?: string | ((topic: string) => string);
  /**
   * Register the schema and its references on first use (POST /subjects/{subject}/versions).
   * With false, the schema must already be registered: it is looked up (POST /subjects/{subject})
   * and a schema the registry does not hold is an error. Defaults to true.
   */
  readonly autoRegister?: boolean;
  /** The subject of a referenced file. Defaults to its import path (Confluent's default reference strategy). */
  readonly referenceSubject?: (importPath: string) => string;
  /**
   * Before registering, read the subject's latest version and refuse (REGISTRY_SCHEMA_INCOMPATIBLE,
   * with the evaluator's report) unless the evaluator accepts it → this type: readers of this type
   * read what was written before (the registry's BACKWARD level, checked locally first). Needs
   * `compile` for registries that return .proto text. Defaults to false.
   */
  readonly checkLatest?: boolean;
  /** Compiles .proto text for `checkLatest` (see RegistryDeserializerOptions.compile). */
  readonly compile?: SchemaCompiler;
}

/** Most schema ids (with their paths) a deserializer remembers; the oldest is dropped past it. */
const MAX_CACHED_WRITERS = 1024;

function remember<K, V>(map: Map<K, V>, key: K, value: V): V {
  if (map.size >= MAX_CACHED_WRITERS) map.delete(map.keys().next().value as K);
  map.set(key, value);
  return value;
}

/** A promise cached until it rejects, so that a failed registry call is tried again next time. */
function cachedPromise<K, V>(map: Map<K, Promise<V>>, key: K, make: () => Promise<V>): Promise<V> {
  const known = map.get(key);
  if (known !== undefined) return known;
  const p = make();
  remember(map, key, p);
  p.catch(() => {
    if (map.get(key) === p) map.delete(key);
  });
  return p;
}

/**
 * A subject that a strategy gave: a strategy returning undefined or a number registered the
 * schema under "undefined" or "5", where no reader looks.
 */
function givenSubject(option: string, s: unknown, of: string): string {
  // "." and ".." too: a registry's REST paths hold the subject as a segment, which fetch resolves
  // (HttpRegistryClient refuses them too, but only once the references before were registered).
  if (typeof s === "string" && s !== "" && s !== "." && s !== "..") return s;
  const got = s === "" ? "an empty string" : typeof s === "string" ? quoted(s) : s === null || s === undefined ? String(s) : typeof s;
  throw new TypeError(`RegistrySerializer: options.${option} gave ${got} for ${of}; it must give a non-empty string other than "." and ".." (a subject is a segment of the registry's URL paths)`);
}

/** Writes values of one type in the Schema Registry wire format. */
export class RegistrySerializer {
  readonly type: ProtobufType;
  readonly #ser: ProtobufSerializer;
  readonly #client: SchemaRegistryClient;
  readonly #subject: (topic: string) => string;
  readonly #autoRegister: boolean;
  readonly #referenceSubject: (importPath: string) => string;
  readonly #checkLatest: boolean;
  readonly #compile: SchemaCompiler | undefined;
  readonly #headers = new Map<string, Promise<Uint8Array>>();

  constructor(type: ProtobufType, options: RegistrySerializerOptions) {
    if (!hasBrand(type, TYPE_BRAND)) throw new TypeError("RegistrySerializer: pass a ProtobufType, e.g. new RegistrySerializer(ProtobufType.of(desc), { client })");
    if (options?.client === undefined) throw new TypeError("RegistrySerializer: options.client is required (HttpRegistryClient or MemoryRegistryClient)");
    this.type = type;
    this.#ser = type.createSerializer();
    this.#client = options.client;
    const s = options.subject;
    this.#subject = typeof s === "string" ? () => s : (s ?? topicValueSubject);
    this.#autoRegister = options.autoRegister ?? true;
    this.#referenceSubject = options.referenceSubject ?? ((p) => p);
    this.#checkLatest = options.checkLatest ?? false;
    this.#compile = options.compile;
  }

  /** The evaluator's verdict on the subject's latest version → this type; nothing when the subject is new. */
  async #checkAgainstLatest(subject: string): Promise<void> {
    let latest;
    try {
      latest = await this.#client.getBySubjectVersion(subject, "latest", "serialized");
    } catch (e) {
      if (isProtokeelError(e) && (e as { errorCode?: unknown }).errorCode === 40401) return;
      throw e;
    }
    const schema = await resolveSchema(this.#client, latest.id, this.#compile, [this.type]);
    const indexes = messageIndexesOf(schema.main, this.type.fullName);
    if (indexes === undefined) {
      throw new CodecError(
        RegistryCode.REGISTRY_SCHEMA_INCOMPATIBLE,
        `schema registry subject ${subject} version ${latest.version} (schema ${latest.id}) declares no message ${this.type.fullName} at top level or nested; register ${this.type.fullName} under another subject`,
      );
    }
    const previous = typeOfSchema(schema, latest.id, messageAtIndexes(schema.main, indexes) as { name: string }, this.type);
    if (previous.equals(this.type)) return;
    const s = this.type.settings;
    const result = evaluateSchemaChange(previous.descriptor, this.type.descriptor, { savedSettings: s, currentSettings: s });
    if (!result.compatible) {
      throw new CodecError(
        RegistryCode.REGISTRY_SCHEMA_INCOMPATIBLE,
        `schema registry subject ${subject} version ${latest.version} (schema ${latest.id}) is not readable as ${this.type.fullName}, so ${this.type.fullName} is not registered: ${formatFindingsListing(result, LISTED_FINDINGS)}`,
      );
    }
  }

  /**
   * The record value for `topic`: header (magic byte, schema id, message indexes) and the bare
   * message. The value is checked and encoded before the registry is asked, so a value the type
   * refuses never registers a schema.
   */
  async serialize(topic: string, value: DynamicMessage | DynamicInit): Promise<Uint8Array> {
    const body = this.#ser.toBinary(value);
    return withHeader(await this.#header(topic), body);
  }

  /** The schema id of the type under the topic's subject (registered or looked up once). */
  async schemaId(topic: string): Promise<number> {
    const h = await this.#header(topic);
    return ((h[1]! << 24) | (h[2]! << 16) | (h[3]! << 8) | h[4]!) >>> 0;
  }

  #header(topic: string): Promise<Uint8Array> {
    const subject = givenSubject("subject", this.#subject(topic), `topic ${quoted(String(topic))}`);
    return cachedPromise(this.#headers, subject, async () => {
      const schemas = registrySchemasOf(this.type);
      // Every subject before anything is registered, so that a bad one registers nothing.
      const subjectOf = new Map<string, string>();
      for (const file of schemas.files) {
        if (file !== schemas.main) subjectOf.set(file.name, givenSubject("referenceSubject", this.#referenceSubject(file.name), `import path ${quoted(file.name)}`));
      }
      if (this.#checkLatest && this.#autoRegister) await this.#checkAgainstLatest(subject);
      const versions = new Map<string, number>();
      let id = 0;
      for (const file of schemas.files) {
        const isMain = file === schemas.main;
        const input: SchemaInput = {
          schema: file.text,
          schemaType: "PROTOBUF",
          references: file.references.map((name) => ({ name, subject: subjectOf.get(name)!, version: versions.get(name)! })),
        };
        const fileSubject = isMain ? subject : subjectOf.get(file.name)!;
        if (this.#autoRegister) id = await this.#client.register(fileSubject, input);
        if (!isMain || !this.#autoRegister) {
          const found = await this.#client.lookup(fileSubject, input);
          versions.set(file.name, found.version);
          id = found.id;
        }
      }
      return writeHeader(id, schemas.messageIndexes);
    });
  }
}

export interface RegistryDeserializerOptions {
  readonly client: SchemaRegistryClient;
  /**
   * Compiles schemas the registry returns as .proto text (registries that serve
   * format=serialized never need it): `bufCompiler()` from protokeel/registry/buf (Node), or a
   * function returning the FileDescriptorSet.
   */
  readonly compile?: SchemaCompiler;
  /**
   * Types whose registered schemas are read without a compiler: a registered .proto text that
   * one of them prints (registrySchemas) is read from its own descriptors. The reader's type is
   * always known; list older versions that producers may still write with.
   */
  readonly knownTypes?: readonly ProtobufType[];
}

interface Writer {
  readonly type: ProtobufType;
  readonly result: EvaluationResult | undefined;
  /** The refusal's report when `result` is incompatible, made once (every record of the id repeats it). */
  report?: string;
}

/**
 * Reads values of one (reader) type from Schema Registry records written with any registered
 * schema the evaluator accepts against it.
 */
export class RegistryDeserializer {
  readonly type: ProtobufType;
  readonly #ser: ProtobufSerializer;
  readonly #client: SchemaRegistryClient;
  readonly #compile: SchemaCompiler | undefined;
  readonly #known: readonly ProtobufType[];
  readonly #schemas = new Map<number, Promise<ResolvedSchema>>();
  readonly #writers = new Map<string, Writer>();
  /**
   * Refusals that follow from a resolved schema alone (its message indexes, its type), kept like
   * writers: a schema id is immutable, and building the type of a 2,000-message schema to refuse
   * it again took ~1 ms per record (every record of that id, and the id is the sender's to choose).
   */
  readonly #refused = new Map<string, CodecError>();

  constructor(type: ProtobufType, options: RegistryDeserializerOptions) {
    if (!hasBrand(type, TYPE_BRAND)) throw new TypeError("RegistryDeserializer: pass a ProtobufType, e.g. new RegistryDeserializer(ProtobufType.of(desc), { client })");
    if (options?.client === undefined) throw new TypeError("RegistryDeserializer: options.client is required (HttpRegistryClient or MemoryRegistryClient)");
    this.type = type;
    this.#ser = type.createSerializer();
    this.#client = options.client;
    this.#compile = options.compile;
    this.#known = [type, ...(options.knownTypes ?? [])];
  }

  /** The value of a record written in the Schema Registry wire format; `topic` is not needed to read and may be undefined. */
  async deserialize(_topic: string | undefined, bytes: Uint8Array): Promise<DynamicMessage> {
    // A private copy before the first await: the call returns at it, and a consumer that reuses
    // its buffer then (a pooled Buffer) had record A's header and verdict applied to record B's
    // body. Not input.slice(): a Node Buffer's is a view of the same memory.
    const input = new Uint8Array(checkBytes(bytes, this.type.descriptor));
    const header = readHeader(input);
    const writer = await this.#writer(header.schemaId, header.messageIndexes);
    if (writer.result !== undefined && !writer.result.compatible) {
      throw new CodecError(
        RegistryCode.REGISTRY_SCHEMA_INCOMPATIBLE,
        `schema registry schema ${header.schemaId} (${writer.type.fullName}) is not readable as ${this.type.fullName}: ${(writer.report ??= formatFindingsListing(writer.result, LISTED_FINDINGS))}`,
        { offset: 1 },
      );
    }
    try {
      return this.#ser.fromBinary(input.subarray(header.bodyAt));
    } catch (e) {
      throw shifted(e, header.bodyAt);
    }
  }

  /** The writer's type of a schema id and message path, with the evaluator's verdict (undefined when the writer is the reader's own schema). */
  async #writer(id: number, indexes: readonly number[]): Promise<Writer> {
    const key = `${id}:${indexes.join(",")}`;
    const known = this.#writers.get(key);
    if (known !== undefined) return known;
    const refused = this.#refused.get(key);
    if (refused !== undefined) throw new CodecError(refused.code, refused.message, { offset: refused.offset, cause: refused.cause });
    // A failed fetch or compile is not kept (cachedPromise): it may succeed next time.
    const schema = await cachedPromise(this.#schemas, id, () => resolveSchema(this.#client, id, this.#compile, this.#known));
    try {
      const at = messageAtIndexes(schema.main, indexes);
      if ("missingAt" in at) {
        throw new CodecError(
          RegistryCode.REGISTRY_MESSAGE_INDEX_UNRESOLVED,
          `schema registry header: message indexes [${indexes.join(", ")}] do not resolve in schema ${id} (index ${at.missingAt + 1} names no message; the file declares ${declaredMessages(schema.main)}); the record does not belong to this schema`,
          { offset: 5 },
        );
      }
      const s = this.type.settings;
      const type = typeOfSchema(schema, id, at, this.type);
      // Each record is checked against its own writer's schema, not a chain: a reservation the
      // writer holds and this reader lacks is no finding (an older consumer keeps the field as
      // unknown), or every consumer would stop at a producer's new `reserved` line.
      const result = type.equals(this.type) ? undefined : evaluateMessages(type.descriptor, this.type.descriptor, s, s, true, false, false);
      return remember(this.#writers, key, { type, result });
    } catch (e) {
      if (e instanceof CodecError) remember(this.#refused, key, e);
      throw e;
    }
  }
}
