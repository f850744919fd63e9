// A separate Node process, given only the snapshot bytes and the frames (no schema, no
// descriptor), restores the serializer from the built package and decodes the frames.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { DynamicMessage, ProtobufType, writeSnapshot } from "../src/index.js";
import { messageFromDir } from "./support/buf.js";

const here = dirname(fileURLToPath(import.meta.url));
const child = join(here, "support", "restore-child.mjs");
const dist = resolve(here, "..", "dist", "index.js");

test("another process restores the serializer from the snapshot alone and decodes the frames", () => {
  // `npm test` builds dist/ before vitest runs; the child imports the package as a user would.
  expect(existsSync(dist), `${dist} is missing; run npm run build`).toBe(true);
  const desc = messageFromDir("fixtures/snapshot/v1", "acme.Order");
  const type = ProtobufType.newBuilder(desc).maxMessageBytes(4096).maxDepth(9).deterministic(true).build();
  const ser = type.createSerializer();
  const orders = [
    DynamicMessage.create(desc, { id: 9_007_199_254_740_993n, items: [{ sku: "ä€😀", qty: 2_147_483_647 }], note: "n" }),
    DynamicMessage.create(desc, { id: -1n, items: [{ sku: "", qty: -2_147_483_648 }, {}] }),
    DynamicMessage.create(desc, {}),
  ];
  const dir = mkdtempSync(join(tmpdir(), "protokeel-snapshot-"));
  writeFileSync(join(dir, "orders.snapshot"), writeSnapshot(ser.snapshotConfiguration()));
  writeFileSync(join(dir, "orders.bin"), ser.encodeAll(orders));

  const out = execFileSync(process.execPath, [child, join(dir, "orders.snapshot"), join(dir, "orders.bin")], {
    cwd: dir,
    encoding: "utf8",
  });

  const big = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? `${x}n` : x)));
  expect(JSON.parse(out)).toEqual({
    fullName: "acme.Order",
    settings: { maxMessageBytes: 4096, maxDepth: 9, deterministic: true, aliasThreshold: 0 },
    fingerprint: type.fingerprint(),
    descriptor: "acme.Order",
    fields: ["id", "items", "note"],
    values: orders.map((o) => big(o.toObject())),
  });
});
