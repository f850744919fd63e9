// Run by test/snapshot-separate-process.test.ts in its own Node process. It gets only two files,
// the snapshot bytes and the frames, and no schema: it restores the serializer from the snapshot
// and prints the decoded values as JSON (bigint as "123n", bytes as hex).
import { readFileSync } from "node:fs";
import { readSnapshot } from "../../dist/index.js";

const [snapshotPath, framesPath] = process.argv.slice(2);
const saved = readSnapshot(new Uint8Array(readFileSync(snapshotPath)));
const serializer = saved.restoreSerializer();
const values = serializer.decodeAll(new Uint8Array(readFileSync(framesPath)));
const plain = (v) =>
  JSON.stringify(v, (_k, x) =>
    typeof x === "bigint" ? `${x}n` : x instanceof Uint8Array ? Buffer.from(x).toString("hex") : x,
  );
process.stdout.write(
  JSON.stringify({
    fullName: saved.fullName,
    settings: saved.settings,
    fingerprint: saved.fingerprint,
    descriptor: values[0]?.descriptor.typeName,
    fields: values[0]?.descriptor.fields.map((f) => f.name),
    values: values.map((v) => JSON.parse(plain(v.toObject()))),
  }),
);
