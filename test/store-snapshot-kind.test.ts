// Issue 15: a state whose stored snapshot is of another kind (the generated kind's class, DESIGN
// §11, which this version does not read) does not open on either backend: the store names the
// state and refuses, rather than reading values with a schema it cannot restore.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { open } from "lmdb";
import { expect, test } from "vitest";
import { writeSnapshot } from "../src/index.js";
import { writeCheck } from "../src/snapshot/crc32c.js";
import { checkpointHeader, encodeState } from "../src/store/checkpoint.js";
import { LmdbStore, MemoryStore, valueState } from "../src/store/index.js";
import { V1, scratch } from "./support/store.js";

const DYNAMIC = "protokeel.ProtobufDynamicSerializerSnapshot";
const GENERATED = "protokeel.ProtobufGeneratedSerializerSnapshot";

/** V1's snapshot with the envelope's class name swapped for the generated kind's, check recomputed. */
function generatedKindSnapshot(): Uint8Array {
  const bytes = writeSnapshot(V1.createSerializer().snapshotConfiguration());
  const enc = new TextEncoder();
  const head = 5; // "PKSS" + envelope version
  expect(new TextDecoder().decode(bytes.subarray(head + 2, head + 2 + DYNAMIC.length))).toBe(DYNAMIC);
  const name = enc.encode(GENERATED);
  const rest = bytes.subarray(head + 2 + DYNAMIC.length);
  const out = new Uint8Array(head + 2 + name.length + rest.length);
  out.set(bytes.subarray(0, head));
  out[head] = name.length >> 8;
  out[head + 1] = name.length & 0xff;
  out.set(name, head + 2);
  out.set(rest, head + 2 + name.length);
  writeCheck(out);
  return out;
}

const EXPECTED = { name: "SnapshotFormatError", code: "SNAPSHOT_UNKNOWN_CLASS" };

test("memory: a checkpointed state with a generated-kind snapshot does not restore", () => {
  const file = join(scratch("store-kind-mem"), "s.ckpt");
  const state = encodeState("current", { kind: "value", entries: [] }, generatedKindSnapshot(), V1.createSerializer());
  const header = checkpointHeader(1);
  writeFileSync(file, Buffer.concat([header, state]));
  const e = (() => {
    try {
      MemoryStore.restore(file, { current: valueState(V1) });
    } catch (err) {
      return err as Error;
    }
  })();
  expect(e).toMatchObject(EXPECTED);
  expect(e!.message).toMatch(new RegExp(`^invalid checkpoint .*s\\.ckpt, state "current" at byte \\d+: invalid snapshot at byte 5: snapshot class "${GENERATED.replace(/\./g, "\\.")}" is unknown`));
});

test("lmdb: a state whose stored snapshot is of the generated kind does not open", async () => {
  const path = scratch("store-kind-lmdb");
  const raw = open({ path, encoding: "binary", keyEncoding: "binary" });
  raw.putSync(Uint8Array.from([0, 0, 0, 0, 0, 7, ...new TextEncoder().encode("current")]), Uint8Array.from([1, ...generatedKindSnapshot()]));
  await raw.close();
  const e = await LmdbStore.open(path, { current: valueState(V1) }).catch((err: Error) => err);
  expect(e).toMatchObject(EXPECTED);
  expect((e as Error).message).toMatch(/^lmdb store .*, state "current" at byte 6 of its metadata: invalid snapshot at byte 5: snapshot class "protokeel\.ProtobufGeneratedSerializerSnapshot" is unknown/);
});
