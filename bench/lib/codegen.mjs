// Generates the code-generating competitors' modules at run time with their own CLIs, so a fresh
// clone needs nothing checked in: pbjs static code (one ES module for all fixtures) and pbf code
// (one ES module per .proto file), both under the gitignored bench/.generated/.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { BIN, GENERATED_DIR } from "./paths.mjs";

/**
 * @param {string[]} protoFiles absolute paths
 * @returns {{ pbjsStatic: string, pbf: string[] }} absolute paths of the generated modules
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
  return { pbjsStatic, pbf };
}
