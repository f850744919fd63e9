// Generates the code-generating competitors' modules at run time with their own tools, so a fresh
// clone needs nothing checked in (and no generated code is ever written by hand), all under the
// gitignored bench/.generated/:
// - pbjs static code (one ES module for all fixtures), by protobufjs-cli's pbjs;
// - pbf code (one ES module per .proto file), by pbf's CLI;
// - protobuf-ts code, by `buf generate` running the local protoc-gen-ts of @protobuf-ts/plugin
//   (offline: a local plugin, no remote one), TypeScript that esbuild bundles into one ES module.
// Each run generates into a folder of its own and then moves the files into place (a rename
// replaces a file whole), so runs at the same time (the bench tests run in parallel) never read a
// half-written module; the output is the same every time.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { buildSync } from "esbuild";
import { BIN, GENERATED_DIR } from "./paths.mjs";

/**
 * protoc-gen-ts options: 64-bit integers as bigint (its default, said explicitly), messages only
 * (the fixtures declare no services), and the default optimize_for = SPEED (generated
 * internalBinaryRead/internalBinaryWrite methods rather than reflection).
 */
export const PROTOBUF_TS_OPTIONS = ["long_type_bigint", "force_client_none", "force_server_none"];

/** `buf generate` of protoDir with protoc-gen-ts into tsDir, bundled into one ES module at `out`. */
function generateProtobufTs(protoDir, tsDir, out) {
  const template = { version: "v2", plugins: [{ local: BIN.protocGenTs, out: tsDir, opt: PROTOBUF_TS_OPTIONS }] };
  execFileSync(BIN.buf, ["generate", protoDir, "--template", JSON.stringify(template)], { stdio: ["ignore", "ignore", "inherit"] });
  const files = readdirSync(tsDir).filter((n) => n.endsWith(".ts")).sort();
  buildSync({
    stdin: { contents: files.map((f) => `export * from "./${f}";`).join("\n"), resolveDir: tsDir, loader: "ts" },
    bundle: true,
    format: "esm",
    platform: "neutral",
    external: ["@protobuf-ts/runtime"],
    outfile: out,
    logLevel: "error",
  });
}

/**
 * @param {string[]} protoFiles absolute paths (all in one folder)
 * @returns {{ pbjsStatic: string, pbf: string[], protobufTs: string }} absolute paths of the generated modules
 */
export function generateCode(protoFiles) {
  mkdirSync(join(GENERATED_DIR, "pbf"), { recursive: true });
  const tmp = mkdtempSync(join(GENERATED_DIR, ".tmp-"));
  try {
    mkdirSync(join(tmp, "pbf"));
    const files = ["pbjs-static.mjs", "protobuf-ts.mjs"];
    execFileSync(BIN.pbjs, ["-t", "static-module", "-w", "es6", "-o", join(tmp, "pbjs-static.mjs"), ...protoFiles], { stdio: ["ignore", "ignore", "inherit"] });
    for (const file of protoFiles) {
      const name = join("pbf", basename(file, ".proto") + ".mjs");
      writeFileSync(join(tmp, name), execFileSync(BIN.pbf, [file], { stdio: ["ignore", "pipe", "inherit"] }));
      files.push(name);
    }
    generateProtobufTs(join(protoFiles[0], ".."), join(tmp, "protobuf-ts"), join(tmp, "protobuf-ts.mjs"));
    for (const name of files) renameSync(join(tmp, name), join(GENERATED_DIR, name));
    // the TypeScript protoc-gen-ts wrote, kept to read: replaced as a folder (a run that loses the race keeps the other's, identical)
    rmSync(join(GENERATED_DIR, "protobuf-ts"), { recursive: true, force: true });
    try {
      renameSync(join(tmp, "protobuf-ts"), join(GENERATED_DIR, "protobuf-ts"));
    } catch {
      // another run put its copy there first
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return {
    pbjsStatic: join(GENERATED_DIR, "pbjs-static.mjs"),
    pbf: protoFiles.map((file) => join(GENERATED_DIR, "pbf", basename(file, ".proto") + ".mjs")),
    protobufTs: join(GENERATED_DIR, "protobuf-ts.mjs"),
  };
}
