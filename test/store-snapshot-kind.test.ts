// Issue 15: a state whose stored snapshot is of the other kind (a generated-kind snapshot, docs/
// design.md §11, where the application declares a dynamic type) does not open on either backend:
// the store names the state and refuses, rather than reading values across kinds.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { open } from "lmdb";
import { expect, test } from "vitest";
import { ProtobufType, writeSnapshot } from "../src/index.js";
import { checkpointHeader, encodeState } from "../src/store/checkpoint.js";
import { LmdbStore, MemoryStore, valueState } from "../src/store/index.js";
import { OrderSchema } from "./fixtures/generated-es/gen/es_fixtures_pb.js";
import { scratch } from "./support/store.js";

// The same schema in both kinds: the kinds differ, nothing else. The memory backend restores the
// saved serializer first (values keep the saved descriptor), which a generated snapshot cannot do
// without its generated type; LMDB resolves first and reports the kind change.
const MEMORY_EXPECTED = { name: "StateStoreError", code: "STATE_RESTORE_FAILED", state: "current" };
const LMDB_EXPECTED = { name: "StateStoreError", code: "STATE_SCHEMA_INCOMPATIBLE", state: "current", incompatibilities: [expect.objectContaining({ rule: "SNAPSHOT_KIND_CHANGED" })] };
const dynamic = ProtobufType.of(OrderSchema);
const generatedSnapshot = (): Uint8Array => writeSnapshot(ProtobufType.ofGenerated(OrderSchema).createSerializer().snapshotConfiguration());

function failure(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected an error");
}

test("memory: a checkpointed state with a generated-kind snapshot does not restore", () => {
  const file = join(scratch("store-kind-mem"), "s.ckpt");
  const state = encodeState("current", { kind: "value", entries: [] }, generatedSnapshot(), dynamic.createSerializer());
  writeFileSync(file, Buffer.concat([checkpointHeader(1), state]));
  const e = failure(() => MemoryStore.restore(file, { current: valueState(dynamic) }));
  expect(e.message).toContain('state "current"');
  expect(e).toMatchObject(MEMORY_EXPECTED);
});

test("lmdb: a state whose stored snapshot is of the generated kind does not open", async () => {
  const path = scratch("store-kind-lmdb");
  const raw = open({ path, encoding: "binary", keyEncoding: "binary" });
  raw.putSync(Uint8Array.from([0, 0, 0, 0, 0, 7, ...new TextEncoder().encode("current")]), Uint8Array.from([1, ...generatedSnapshot()]));
  await raw.close();
  const e = (await LmdbStore.open(path, { current: valueState(dynamic) }).catch((err: Error) => err)) as Error;
  expect(e.message).toContain('state "current"');
  expect(e).toMatchObject(LMDB_EXPECTED);
});
