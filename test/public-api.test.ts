// The public surface is small and deliberate: this list changes only on purpose.
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import * as source from "../src/index.js";

const dist = resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist");

const PUBLIC = [
  "CodecError",
  "DynamicMessage",
  "DynamicMessageBuilder",
  "FrameReader",
  "FrameWriter",
  "InvalidDescriptorError",
  "InvalidObjectError",
  "MissingTypeInfoError",
  "PoolError",
  "ProtobufDynamicSerializerSnapshot",
  "ProtobufGeneratedSerializer",
  "ProtobufGeneratedSerializerSnapshot",
  "ProtobufGeneratedType",
  "ProtobufSerializer",
  "ProtobufType",
  "ProtobufTypeBuilder",
  "ProtokeelError",
  "RestoreError",
  "SchemaRegistryError",
  "SnapshotFormatError",
  "StateStoreError",
  "evaluateSchemaChange",
  "formatFindings",
  "initWasm",
  "isDynamicMessage",
  "isProtokeelError",
  "readSnapshot",
  "releaseMemory",
  "typeFor",
  "wasmMemoryBytes",
  "writeSnapshot",
];

test.each([
  ["src/index.ts", async () => source],
  ["dist/index.js (import)", async () => import(resolve(dist, "index.js"))],
  ["dist/index.cjs (require)", async () => createRequire(import.meta.url)(resolve(dist, "index.cjs"))],
])("%s exports exactly the public names", async (_name, load) => {
  expect(Object.keys(await load()).sort()).toEqual(PUBLIC);
});
