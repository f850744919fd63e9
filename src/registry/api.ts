// The lower-level functions of protokeel/registry, under the names it exports them by.
import { bytesProblem } from "../bytes.js";
import { CodecError } from "../errors.js";
import type { ProtobufType } from "../type.js";
import type { SchemaRegistryClient } from "./client.js";
import { resolveSchema, type ResolvedSchema, type SchemaCompiler } from "./resolve.js";
import { registrySchemasOf, type RegistrySchemas } from "./schema-files.js";
import { readHeader, writeHeader, type RegistryHeader } from "./wire.js";

/** The type's schema files as the registry takes them: .proto text, the root's file last, and the root's message indexes. */
export function registrySchemas(type: ProtobufType): RegistrySchemas {
  return registrySchemasOf(type);
}

/** Reads the wire-format header (magic byte, schema id, message indexes); `bodyAt` is where the message starts. */
export function readRegistryHeader(bytes: Uint8Array): RegistryHeader {
  // A Proxy threw the engine's TypeError, a detached array read as a header 0 bytes long.
  const problem = bytes instanceof Uint8Array ? bytesProblem(bytes) : bytes === null ? "null" : typeof bytes;
  if (problem !== undefined) {
    throw new CodecError("NOT_BYTES", `schema registry header: expected a Uint8Array, got ${problem}; pass the record's value bytes`);
  }
  return readHeader(bytes);
}

/** The wire-format header for a schema id and message indexes. */
export function writeRegistryHeader(schemaId: number, messageIndexes: readonly number[] = [0]): Uint8Array {
  return writeHeader(schemaId, messageIndexes);
}

/**
 * Fetches a registered schema with its references and reads it into a FileDescriptorSet: base64
 * descriptors directly, .proto text that one of `knownTypes` prints from its own descriptors, other
 * .proto text with `compile`.
 */
export function resolveRegisteredSchema(client: SchemaRegistryClient, id: number, compile?: SchemaCompiler, knownTypes: readonly ProtobufType[] = []): Promise<ResolvedSchema> {
  return resolveSchema(client, id, compile, knownTypes);
}
