// The CJS build (dist/index.cjs) as an ES module, for the "dist-cjs" test project: vitest.config.ts
// aliases tests' imports of src/index.js here. Node's ESM loader does not see the bundle's named
// exports (tsup's CJS output assigns them through getters), so they are listed: a test that
// imports a name missing here fails to load, loudly.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const pk = require("../../dist/index.cjs") as typeof import("../../src/index.js");

export const {
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
  initWasm,
  ProtobufType,
  ProtobufTypeBuilder,
  typeFor,
  DynamicMessage,
  DynamicMessageBuilder,
  isDynamicMessage,
  releaseMemory,
  wasmMemoryBytes,
  FrameWriter,
  FrameReader,
  ProtobufSerializer,
  evaluateSchemaChange,
  formatFindings,
  writeSnapshot,
  readSnapshot,
  ProtobufDynamicSerializerSnapshot,
  ProtobufGeneratedSerializerSnapshot,
  ProtobufGeneratedType,
  ProtobufGeneratedSerializer,
} = pk;
