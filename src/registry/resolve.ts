// A registered schema back to descriptors: the schema and its references (recursively) fetched
// from the registry, then read as FileDescriptorProtos. A registry returns Protobuf schemas as
// base64 FileDescriptorProtos when asked for format=serialized: those are read here on any
// runtime. Schemas that come back as .proto text (a registry or a test double that does not
// serialize) need a compiler: bufCompiler() (Node, protokeel/registry/buf) or the caller's own,
// which may return a FileDescriptorSet the caller built ahead of time.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { shortName } from "../descriptor/names.js";
import { protoFileText } from "../descriptor/proto-text.js";
import { reason } from "../descriptor/rebuild.js";
import { CodecError, RegistryCode, isProtokeelError } from "../errors.js";
import { decodeBase64 } from "../json/base64.js";
import type { RegisteredSchema, SchemaReference, SchemaRegistryClient } from "./client.js";
import type { ProtobufType } from "../type.js";
import { registrySchemasOf } from "./schema-files.js";
import { wellKnownFile } from "./well-known.js";

/**
 * Compiles .proto text to a FileDescriptorSet: `files` maps import paths to text (the imports
 * resolve among them; well-known imports are the compiler's own), `main` names the schema's own
 * file. The result must hold a file named `main` and every file it imports.
 */
export type SchemaCompiler = (files: Readonly<Record<string, string>>, main: string) => Uint8Array | Promise<Uint8Array>;

/** Most files (the schema and its references, transitively) one schema may pull in. */
export const MAX_SCHEMA_FILES = 10_000;

export interface ResolvedSchema {
  /** The FileDescriptorSet of the schema's file and everything it imports. */
  readonly fileDescriptorSet: Uint8Array;
  /** The schema's own file, where message indexes point. */
  readonly main: FileDescriptorProto;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The FileDescriptorProto of a base64 schema, or undefined for .proto text (which always holds
 * `;`, `{` or spaces). Base64 that does not decode as one is a corrupt descriptor: the decoder's
 * error (it was taken for .proto text, and the advice was to install a compiler).
 */
function serialized(schema: string, id: number, name: string): FileDescriptorProto | undefined {
  if (schema.length % 4 !== 0 || !BASE64.test(schema)) return undefined;
  const bytes = decodeBase64(schema);
  if (typeof bytes === "string") return undefined;
  try {
    return fromBinary(FileDescriptorProtoSchema, bytes, { readUnknownFields: false });
  } catch (e) {
    throw unusable(id, `${name} is base64 (${bytes.length} bytes) that does not decode as a FileDescriptorProto (${shortName(reason(e))}); the registry holds a corrupt schema`, e);
  }
}

/**
 * The schema of a known type whose registry text (registrySchemas, deterministic) is exactly the
 * registered text and references: read from the type's normalized set, no compiler needed. This
 * is how a program without a compiler (an edge runtime) reads schemas it registered itself.
 */
function knownSchema(main: string, references: ReadonlyMap<string, string>, known: readonly ProtobufType[]): ResolvedSchema | undefined {
  for (const type of known) {
    const schemas = registrySchemasOf(type);
    if (schemas.main.text !== main) continue;
    const refs = schemas.files.filter((f) => f !== schemas.main);
    if (refs.length !== references.size || refs.some((f) => references.get(f.name) !== f.text)) continue;
    const set = fromBinary(FileDescriptorSetSchema, type.normalizedDescriptorSet(), { readUnknownFields: false });
    const file = set.file.find((f) => f.name === schemas.main.name);
    if (file !== undefined) return { fileDescriptorSet: type.normalizedDescriptorSet(), main: file };
  }
  return undefined;
}

// Names, types and errors the registry sends are quoted by their head and length (shortName):
// a registry answer may hold 16 MiB strings, and each failing record repeats its error.
function unusable(id: number, why: string, cause?: unknown): CodecError {
  return new CodecError(RegistryCode.REGISTRY_SCHEMA_UNUSABLE, `schema registry schema ${id} cannot be read: ${why}`, { cause });
}

/** Fetches schema `id` with its references and reads it into a FileDescriptorSet. */
export async function resolveSchema(
  client: SchemaRegistryClient,
  id: number,
  compile: SchemaCompiler | undefined,
  known: readonly ProtobufType[] = [],
): Promise<ResolvedSchema> {
  let top: RegisteredSchema;
  try {
    top = await client.getById(id, "serialized");
  } catch (e) {
    if (isProtokeelError(e) && (e as { errorCode?: unknown }).errorCode === 40403) {
      throw new CodecError(
        RegistryCode.REGISTRY_UNKNOWN_SCHEMA_ID,
        `schema registry has no schema with id ${id} (error_code 40403); the record was written against another registry, or its schema was deleted`,
        { cause: e },
      );
    }
    throw e;
  }
  if ((top.schemaType ?? "AVRO") !== "PROTOBUF") throw unusable(id, `its schemaType is ${shortName(top.schemaType || "AVRO")}, not PROTOBUF`);

  // The references, breadth first, each import path once. A name is queued only the first time
  // an answer names it: queuing every mention (each answer may list every file again) held n * n
  // entries, and shift() copies a long queue each time, so 1,000 such files took a minute.
  const texts = new Map<string, string>();
  const queue: SchemaReference[] = [];
  const named = new Set<string>();
  const enqueue = (refs: readonly SchemaReference[]): void => {
    for (const r of refs) {
      if (named.has(r.name)) continue;
      if (named.size >= MAX_SCHEMA_FILES) throw unusable(id, `it references more than ${MAX_SCHEMA_FILES} files`);
      named.add(r.name);
      queue.push(r);
    }
  };
  enqueue(top.references);
  for (let next = 0; next < queue.length; next++) {
    const ref = queue[next]!;
    let version;
    try {
      version = await client.getBySubjectVersion(ref.subject, ref.version, "serialized");
    } catch (e) {
      throw unusable(id, `its reference ${shortName(ref.name)} (subject ${shortName(ref.subject)} version ${ref.version}) cannot be fetched: ${shortName(reason(e))}`, e);
    }
    texts.set(ref.name, version.schema);
    enqueue(version.references);
  }

  const mainProto = serialized(top.schema, id, "its schema");
  let mainName = mainProto?.name || `schema-${id}.proto`;
  while (texts.has(mainName)) mainName = `_${mainName}`;
  const protos = new Map<string, FileDescriptorProto | undefined>([[mainName, mainProto]]);
  for (const [name, text] of texts) protos.set(name, serialized(text, id, `its reference ${shortName(name)}`));

  let files: FileDescriptorProto[];
  if ([...protos.values()].every((p) => p !== undefined)) {
    // The schema's own file last, where `main` is taken from.
    files = [];
    for (const [name, p] of protos) {
      p!.name = name;
      if (name !== mainName) files.push(p!);
    }
    files.push(protos.get(mainName)!);
  } else {
    const mine = knownSchema(top.schema, texts, known);
    if (mine !== undefined) return mine;
    if (compile === undefined) {
      throw unusable(
        id,
        "the registry returned .proto text that none of the known types prints, and no compiler was given; pass compile: bufCompiler() (Node, from protokeel/registry/buf) or a function returning the schema's FileDescriptorSet, list the writer's type in knownTypes, or use a registry that serves format=serialized",
      );
    }
    const sources: Record<string, string> = {};
    for (const [name, p] of protos) {
      sources[name] = p === undefined ? (name === mainName ? top.schema : texts.get(name)!) : protoFileText(p, { qualified: true });
    }
    let bytes: Uint8Array;
    try {
      bytes = await compile(sources, mainName);
      files = fromBinary(FileDescriptorSetSchema, bytes, { readUnknownFields: false }).file;
    } catch (e) {
      throw unusable(id, `its .proto text does not compile: ${shortName(reason(e))}`, e);
    }
    const at = files.findIndex((f) => f.name === mainName);
    if (at < 0) throw unusable(id, `the compiler's FileDescriptorSet has no file named ${shortName(mainName)} (the schema's own file, where message indexes point); compile the files it is given, keeping their names`);
    files.push(...files.splice(at, 1));
  }
  // Well-known imports the registry provides without a reference.
  // ProtobufType.of puts the set in dependency order.
  const main = files[files.length - 1];
  if (main === undefined) throw unusable(id, "the compiler returned no files");
  const have = new Set(files.map((f) => f.name));
  for (let k = 0; k < files.length; k++) {
    const f = files[k]!;
    for (const d of f.dependency) {
      if (have.has(d)) continue;
      const wk = wellKnownFile(d);
      if (wk === undefined) throw unusable(id, `file ${shortName(f.name)} imports ${shortName(d)}, which is neither a reference of the schema nor a well-known type`);
      files.push(wk);
      have.add(d);
    }
  }
  return { fileDescriptorSet: toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: files })), main };
}
