// Installed package versions, read from node_modules (package exports maps hide package.json).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT_DIR } from "./paths.mjs";

/** @param {string} name */
export function packageVersion(name) {
  try {
    return JSON.parse(readFileSync(join(ROOT_DIR, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return "not installed";
  }
}

/** The packages whose versions a run records. */
export const RECORDED_PACKAGES = ["protobufjs", "protobufjs-cli", "@bufbuild/protobuf", "pbf", "@protobuf-ts/plugin", "@protobuf-ts/runtime", "tinybench", "@bufbuild/buf", "esbuild"];

/** protokeel's version and commit, e.g. "0.1.0 e1dd5ad" (the version alone outside a git checkout). */
export function protokeelVersion() {
  const version = JSON.parse(readFileSync(join(ROOT_DIR, "package.json"), "utf8")).version;
  try {
    return `${version} ${execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT_DIR, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()}`;
  } catch {
    return version;
  }
}

/** Every recorded package's version, and protokeel's. */
export const benchVersions = () => ({ ...Object.fromEntries(RECORDED_PACKAGES.map((n) => [n, packageVersion(n)])), protokeel: protokeelVersion() });
