// Types for fixtures.mjs (used by the TypeScript tests).
import type { DescMessage, FileRegistry, Message } from "@bufbuild/protobuf";
import type { Content } from "./generate.mjs";

export declare const PROTO_DIR: string;
export declare const UNKNOWN_FIELDS: ReadonlyArray<{ number: number; wire: "varint" | "len"; value: number | string }>;

interface FixtureBase {
  id: string;
  title: string;
  typeName: string;
  desc: DescMessage;
  /** reference bytes: @bufbuild/protobuf toBinary of the content (frames: varint-delimited) */
  bytes: Uint8Array;
  stats: { bytes: number; strings: number };
}
export interface MessageFixture extends FixtureBase {
  kind: "message";
  content: Content;
  reference: Message;
  withUnknown: Uint8Array;
  truncated: Uint8Array;
  invalidUtf8: Uint8Array | null;
}
export interface FramesFixture extends FixtureBase {
  kind: "frames";
  contents: Content[];
  references: Message[];
  count: number;
}
export type Fixture = MessageFixture | FramesFixture;

export declare function protoFiles(): string[];
export declare function compileFixtures(): { fileDescriptorSet: Uint8Array; registry: FileRegistry };
export declare function registryOf(fileDescriptorSet: Uint8Array): FileRegistry;
export declare function toEsInit(desc: DescMessage, content: Content): Record<string, unknown>;
export declare function buildFixtures(registry: FileRegistry, seed?: number): Fixture[];
