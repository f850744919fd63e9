// The public API: explicit named exports only (test/api.test.ts pins the list).
// Each area keeps its own block, so that work on one area does not touch another's lines.

// --- errors and settings ---
export {
  ProtokeelError,
  InvalidDescriptorError,
  MissingTypeInfoError,
  InvalidObjectError,
  CodecError,
  SnapshotFormatError,
  RestoreError,
  StateStoreError,
  SchemaRegistryError,
  PoolError,
  isProtokeelError,
} from "./errors.js";
export type { Settings } from "./settings.js";

// --- wasm loading ---
export { initWasm } from "./wasm/instance.js";
export { releaseMemory, wasmMemoryBytes } from "./wasm/memory.js";

// --- descriptors and ProtobufType ---
// ProtobufTypeBuilder and ProtobufDynamicSerializerSnapshot are classes: exported as values, so
// that declarations (which cannot keep a class type-only) and run time list the same names.
export { ProtobufType, ProtobufTypeBuilder, typeFor } from "./type.js";
export type { DescriptorInput, FileDescriptorSetInput, ProtobufjsTypeLike } from "./descriptor/input.js";

// --- messages ---
export { DynamicMessage, DynamicMessageBuilder, isDynamicMessage } from "./message/dynamic-message.js";
export type { DynamicInit } from "./message/dynamic-message.js";
export type { UnknownFieldMap } from "./message/unknown-fields.js";

// --- serializer and framing ---
export { FrameWriter } from "./codec/frame-writer.js";
export { FrameReader } from "./codec/frame-reader.js";
export { ProtobufSerializer } from "./serializer.js";

// --- evaluator ---
export { evaluateSchemaChange } from "./compat/evaluate.js";
export { formatFindings } from "./compat/format.js";
export type {
  CompatibilityRule,
  EvaluateSchemaChangeOptions,
  EvaluationResult,
  Finding,
} from "./compat/evaluate.js";

// --- ProtoJSON and streams (serializer.toJson/fromJson, decodeStream/encodeStream) ---
export type {
  JsonReadOptions,
  JsonTypeRegistry,
  JsonValue,
  JsonWriteOptions,
  JsonWriteStringOptions,
} from "./json/options.js";
export type { ReadableStreamLike, StreamSource } from "./stream/frames.js";
export type { EvaluationBoundary, JsonBoundaryRule } from "./compat/json-boundary.js";

// --- snapshots ---
export { writeSnapshot, readSnapshot } from "./snapshot/envelope.js";
export { ProtobufDynamicSerializerSnapshot } from "./snapshot/dynamic.js";
export { ProtobufGeneratedSerializerSnapshot } from "./snapshot/generated.js";
export type {
  GeneratedTypeRegistry,
  ReadSnapshotOptions,
  SchemaCompatibility,
  SchemaCompatibilityFinding,
  SerializerSnapshot,
} from "./snapshot/types.js";

// --- generated kind (protobuf-es generated messages, docs/design.md §11) ---
export { ProtobufGeneratedType } from "./generated/type.js";
export { ProtobufGeneratedSerializer } from "./generated/serializer.js";
