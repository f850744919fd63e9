// Hardening (descriptors) item 3: a chain across N files and packages given as an encoded
// FileDescriptorSet, listed root file first (createFileRegistry needs dependency order).
import { pk } from "../lib.mjs";
import { bytesOf, chainFiles } from "../schemas.mjs";

export const family = {
  name: "descriptor: ProtobufType.of(set), chain over N files",
  prepare: (n) => bytesOf(chainFiles(n, { order: "dependents-first" })),
  run: (bytes) => pk.ProtobufType.of({ fileDescriptorSet: bytes, messageName: "p0.T" }),
};
