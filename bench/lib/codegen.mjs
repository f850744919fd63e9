// Generates the code-generating competitors' modules at run time with their own tools, so a fresh
// clone needs nothing checked in (and no generated code is ever written by hand), all under the
// gitignored bench/.generated/:
// - pbjs static code (one ES module for all fixtures), by protobufjs-cli's pbjs;
// - pbf code (one ES module per .proto file), by pbf's CLI;
// - protobuf-ts code, by `buf generate` running the local protoc-gen-ts of @protobuf-ts/plugin
//   (offline: a local plugin, no remote one), TypeScript that esbuild bundles into one ES module.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { buildSync } from "esbuild";
import { BIN, GENERATED_DIR } from "./paths.mjs";

/**
 * protoc-gen-ts options: 64-bit integers as bigint (its default, said explicitly), messages only
 * (the fixtures declare no services), and the default optimize_for = SPEED (generated
 * internalBinaryRead/internalBinaryWrite methods rather than reflection).
 */
export const PROTOBUF_TS_OPTIONS = ["long_type_bigint", "force_client_none", "force_server_none"];

/** `buf generate` of protoDir with protoc-gen-ts, bundled into one ES module at `out`. */
function generateProtobufTs(protoDir, out) {
  const tsDir = join(GENERATED_DIR, "protobuf-ts");
  rmSync(tsDir, { recursive: true, force: true });
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
  const pbfDir = join(GENERATED_DIR, "pbf");
  mkdirSync(pbfDir, { recursive: true });
  const pbjsStatic = join(GENERATED_DIR, "pbjs-static.mjs");
  execFileSync(BIN.pbjs, ["-t", "static-module", "-w", "es6", "-o", pbjsStatic, ...protoFiles], { stdio: ["ignore", "ignore", "inherit"] });
  const pbf = protoFiles.map((file) => {
    const out = join(pbfDir, basename(file, ".proto") + ".mjs");
    writeFileSync(out, execFileSync(BIN.pbf, [file], { stdio: ["ignore", "pipe", "inherit"] }));
    return out;
  });
  const protobufTs = join(GENERATED_DIR, "protobuf-ts.mjs");
  generateProtobufTs(join(protoFiles[0], ".."), protobufTs);
  return { pbjsStatic, pbf, protobufTs };
}
