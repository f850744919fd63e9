// Types for node-context.mjs (used by the TypeScript tests).
import type { FileRegistry } from "@bufbuild/protobuf";

export interface NodeContext {
  registry: FileRegistry;
  fileDescriptorSet: Uint8Array;
  protoFiles: string[];
  protoTexts: string[];
  generated: { pbjsStatic: string; pbf: string[]; protobufTs: string };
  modules: Record<string, unknown>;
  protokeelMissing?: string;
  versions: Record<string, string>;
}
export declare function loadNodeContext(): Promise<NodeContext>;
