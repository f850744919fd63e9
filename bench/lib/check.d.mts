// Types for check.mjs (used by the TypeScript tests).
import type { Fixture } from "./fixtures.mjs";

export declare const OPERATIONS: { message: string[]; frames: string[] };

/** What an adapter's prepare(fixture) returns: the operations bound to one fixture's type. */
export interface Bound {
  value?: unknown;
  values?: unknown[];
  /** the codec's plain object form of the content (frames: one per frame), built once */
  plain?: unknown;
  plains?: unknown[];
  decode(bytes: Uint8Array): unknown;
  encode(value: unknown): Uint8Array;
  encodePlain(plain: unknown): Uint8Array;
  relay(bytes: Uint8Array): Uint8Array;
  validate?(bytes: Uint8Array): unknown;
  /** a fresh encode input built from neutral content (timing only) */
  build?(content: unknown): unknown;
  decodeFrames(buf: Uint8Array): ArrayLike<unknown>;
  encodeFrames(values: unknown[]): Uint8Array;
  encodePlainFrames(plains: unknown[]): Uint8Array;
}

export type CheckResult = { ok: true; note?: string } | { ok: false; reason: string };
export declare function checkOperation(bound: Bound, fixture: Fixture, op: string): CheckResult;
