// Builds the benchmark fixtures in Node: compiles bench/fixtures/*.proto with buf into a registry;
// the fixtures themselves (content, reference bytes, probes) come from build-fixtures.mjs.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { registryOf } from "./build-fixtures.mjs";
import { BENCH_DIR, BIN, GENERATED_DIR } from "./paths.mjs";

export { buildFixtures, registryOf, toEsInit, UNKNOWN_FIELDS } from "./build-fixtures.mjs";

export const PROTO_DIR = join(BENCH_DIR, "fixtures");

/** The .proto files of the fixtures, sorted. */
export function protoFiles() {
  return readdirSync(PROTO_DIR).filter((n) => n.endsWith(".proto")).sort().map((n) => join(PROTO_DIR, n));
}

/** `buf build` of bench/fixtures into bench/.generated/fixtures.binpb, returned as a registry. */
export function compileFixtures() {
  mkdirSync(GENERATED_DIR, { recursive: true });
  const out = join(GENERATED_DIR, "fixtures.binpb");
  // written beside and renamed into place, so that runs at the same time never read half a file
  const partial = `${out}.${process.pid}`;
  execFileSync(BIN.buf, ["build", PROTO_DIR, "--as-file-descriptor-set", "--exclude-source-info", "-o", partial], { stdio: ["ignore", "ignore", "inherit"] });
  renameSync(partial, out);
  const fileDescriptorSet = new Uint8Array(readFileSync(out));
  return { fileDescriptorSet, registry: registryOf(fileDescriptorSet) };
}
