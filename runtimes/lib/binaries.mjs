// The runtimes' executables, from the exact versions pinned in devDependencies. Each wrapper
// package (deno, bun, workerd) lists its binaries as platform-specific optional dependencies,
// which are ordinary registry tarballs; the wrappers' postinstall scripts only link or move that
// binary (and would download from the registry only when it is missing). So this looks in the
// platform package first and in the wrapper second, and works whether or not the postinstall
// scripts ran (`npm ci --ignore-scripts`).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./paths.mjs";

const NODE_MODULES = join(ROOT, "node_modules");

/** Candidate paths per runtime: [scope folder, path inside a platform package] and wrapper paths. */
const CANDIDATES = {
  deno: { scope: "@deno", inside: "deno", wrappers: ["deno/deno"] },
  bun: { scope: "@oven", inside: "bin/bun", wrappers: ["bun/bin/bun.exe"] },
  workerd: { scope: "@cloudflare", inside: "bin/workerd", wrappers: [], prefix: "workerd-" },
};

/** A real executable (the wrappers ship small placeholders that postinstall replaces). */
const isBinary = (p) => existsSync(p) && statSync(p).isFile() && statSync(p).size > 1_000_000;

/** The path of the runtime's executable; throws with what was looked at when there is none. */
export function binaryPath(runtime) {
  const { scope, inside, wrappers, prefix = "" } = CANDIDATES[runtime];
  const scopeDir = join(NODE_MODULES, scope);
  const platformPackages = existsSync(scopeDir) ? readdirSync(scopeDir).filter((n) => n.startsWith(prefix)) : [];
  const tried = [...platformPackages.map((n) => join(scopeDir, n, inside)), ...wrappers.map((w) => join(NODE_MODULES, w))];
  const found = tried.find(isBinary);
  if (found === undefined) {
    throw new Error(`no ${runtime} executable for ${process.platform}-${process.arch}; looked at ${tried.join(", ") || `${scopeDir}/*`} (npm ci installs it)`);
  }
  return found;
}

/** The version of an installed package (for the report line). */
export function packageVersion(name) {
  return JSON.parse(readFileSync(join(NODE_MODULES, name, "package.json"), "utf8")).version;
}
