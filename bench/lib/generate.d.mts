// Types for generate.mjs (used by the TypeScript tests).
export declare const DEFAULT_SEED: number;
export interface Random {
  next(): number;
  float(): number;
  int(n: number): number;
  range(lo: number, hi: number): number;
  bool(p?: number): boolean;
  pick<T>(items: readonly T[]): T;
  bytes(n: number): Uint8Array;
  uint64(): bigint;
}
/** Neutral content: proto field names, bigint for 64-bit, Uint8Array for bytes, a oneof member by name. */
export type Content = Record<string, unknown>;
export declare function createRandom(seed: number): Random;
export declare function smallContent(rng: Random): Content;
export declare function classicContent(rng: Random): Content;
export declare function spanContent(rng: Random, spanCount?: number): Content;
export declare function numericContent(rng: Random, count?: number): Content;
export declare function nestedContent(rng: Random, depth?: number): Content;
export declare function framesContent(rng: Random, count?: number): Content[];
