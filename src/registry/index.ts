// protokeel/registry: the Confluent Schema Registry wire format for Protobuf, registry clients
// (REST over fetch, and in memory), and schemas as .proto text. Runs on every runtime the core
// runs on; compiling .proto text with buf is protokeel/registry/buf (Node only). The core entry
// never imports this folder.
export { RegistrySerializer, RegistryDeserializer, topicValueSubject } from "./serde.js";
export type { RegistrySerializerOptions, RegistryDeserializerOptions } from "./serde.js";
export { HttpRegistryClient } from "./http-client.js";
export type { HttpRegistryOptions } from "./http-client.js";
export { MemoryRegistryClient } from "./memory-client.js";
export type { MemoryRegistryOptions } from "./memory-client.js";
export type {
  CompatibilityVerdict,
  RegisteredSchema,
  SchemaFormat,
  SchemaInput,
  SchemaReference,
  SchemaRegistryClient,
  SubjectVersion,
} from "./client.js";
export { registrySchemas, readRegistryHeader, writeRegistryHeader, resolveRegisteredSchema } from "./api.js";
export type { RegistryFile, RegistrySchemas } from "./schema-files.js";
export type { RegistryHeader } from "./wire.js";
export type { ResolvedSchema, SchemaCompiler } from "./resolve.js";
export { CodecError, SchemaRegistryError } from "../errors.js";
