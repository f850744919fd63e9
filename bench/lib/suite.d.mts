// Types for suite.mjs (used by the TypeScript tests).
import type { Bound } from "./check.mjs";
import type { Fixture } from "./fixtures.mjs";

export interface Adapter {
  id: string;
  name: string;
  load(ctx: unknown): Promise<{ skip: string } | { version: string; notes: string[]; prepare(fixture: Fixture): Bound }>;
}
export interface Codec {
  adapter: Adapter;
  loaded: { skip?: string; version?: string; notes?: string[]; prepare(fixture: Fixture): Bound };
}
export declare const ADAPTERS: Adapter[];
export declare function loadCodecs(ctx: unknown, log?: (line: string) => void): Promise<Codec[]>;
export declare function planCases(fixtures: Fixture[], codecs: Codec[], filter: RegExp, operations?: (op: string) => boolean): Array<{ fixture: Fixture; operation: string; codec: Codec }>;
