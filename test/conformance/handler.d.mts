import type { DescMessage, FileRegistry } from "@bufbuild/protobuf";
import type { ProtobufType } from "../../src/index.js";

export declare const TEST_MESSAGE: string;
export declare const FORMAT_PROTOBUF: number;
export declare const FORMAT_JSON: number;
export declare function envelope(setBytes: Uint8Array): { registry: FileRegistry; Request: DescMessage; Response: DescMessage; Test: DescMessage };
export declare function conformanceHandler(
  type: typeof ProtobufType,
  setBytes: Uint8Array,
  options: { kind: "dynamic" | "generated"; deterministic: boolean },
): (requestBytes: Uint8Array) => Uint8Array;
