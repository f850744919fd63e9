// Shared setup of the store tests: the acme.Reading fixtures (test/fixtures/store/<variant>), and
// one driver per backend so that each behaviour runs as a table over both.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { DynamicMessage, ProtobufType } from "../../src/index.js";
import { LmdbStore, MemoryStore, listState, mapState, valueState, type StateSpecs } from "../../src/store/index.js";
import { messageFromDir } from "./buf.js";

export function readingType(variant: string, settings: { maxDepth?: number; maxMessageBytes?: number } = {}): ProtobufType {
  const desc = messageFromDir(`fixtures/store/${variant}`, variant === "renamed" ? "acme.Sample" : "acme.Reading");
  let b = ProtobufType.newBuilder(desc);
  if (settings.maxDepth !== undefined) b = b.maxDepth(settings.maxDepth);
  if (settings.maxMessageBytes !== undefined) b = b.maxMessageBytes(settings.maxMessageBytes);
  return b.build();
}

export const V1 = readingType("v1");

export function reading(type: ProtobufType, id: number, extra: Record<string, unknown> = {}): DynamicMessage {
  return DynamicMessage.create(type.descriptor, { id: BigInt(id), count: id * 10, level: 1, note: `n${id}`, score: id, tag: `t${id}`, ...extra });
}

/** Three states, one of each kind, all of `type`. */
export function specsOf(type: ProtobufType) {
  return { current: valueState(type), history: listState(type), byDevice: mapState(type) } satisfies StateSpecs;
}
export type Specs = ReturnType<typeof specsOf>;

export function scratch(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `protokeel-${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The same workflow on either backend: open (restore), use, close (checkpoint). */
export interface Driver {
  readonly name: "memory" | "lmdb";
  /** Opens the store at `where` with these states (memory: restore from the file when it exists). */
  open(where: string, specs: Specs, options?: { fresh?: boolean }): Promise<Opened>;
}
export interface Opened {
  readonly store: MemoryStore<Specs> | LmdbStore<Specs>;
  /** memory: checkpoint to `where`; lmdb: close. */
  close(): Promise<void>;
}

export const memory: Driver = {
  name: "memory",
  async open(where, specs, options = {}) {
    const store = options.fresh ? MemoryStore.create(specs) : MemoryStore.restore(where, specs);
    return { store, close: async () => store.checkpoint(where) };
  },
};

export const lmdb: Driver = {
  name: "lmdb",
  async open(where, specs) {
    const store = await LmdbStore.open(where, specs);
    return { store, close: () => store.close() };
  },
};

export const DRIVERS = [memory, lmdb] as const;

/** Writes ids 1..3 with `type` into every state kind. */
export async function fill(store: MemoryStore<Specs> | LmdbStore<Specs>, type: ProtobufType): Promise<void> {
  for (const id of [1, 2, 3]) {
    await store.state("current").put(`r${id}`, reading(type, id));
    await store.state("history").add("dev", reading(type, id));
    await store.state("byDevice").put("dev", new Uint8Array([id]), reading(type, id));
  }
}

/** All values of the three states, in a fixed order. */
export function everything(store: MemoryStore<Specs> | LmdbStore<Specs>): DynamicMessage[] {
  return [
    ...[1, 2, 3].map((id) => store.state("current").get(`r${id}`)!),
    ...store.state("history").get("dev"),
    ...store.state("byDevice").entries("dev").map(([, v]) => v),
  ];
}
