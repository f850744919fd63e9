// The Node-only subpaths (protokeel/store, protokeel/pool, protokeel/registry/buf) as package.json
// "exports" gives them (`npm run build` first): code only under the "node" condition, so a bundle
// for a browser or workerd fails to resolve them; their types also under "import", for
// TypeScript's `moduleResolution: "bundler"` (which sets no "node" condition: the three were
// "Cannot find module" there, the default of many framework tsconfigs); and no types for a
// require() where the package has no CommonJS file (it type-checked, then threw
// ERR_PACKAGE_PATH_NOT_EXPORTED).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { expect, test } from "vitest";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function app(files: Record<string, string>, compilerOptions: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "protokeel-subpaths-"));
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(repo, join(dir, "node_modules", "protokeel"), "dir");
  for (const dep of ["@bufbuild", "@noble", "@types", "lmdb"]) symlinkSync(join(repo, "node_modules", dep), join(dir, "node_modules", dep), "dir");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: "es2022", skipLibCheck: false, types: ["node"], ...compilerOptions }, files: Object.keys(files) }));
  return dir;
}

/** tsc's diagnostics for the project in `dir` ("" when it type-checks). */
function tsc(dir: string): string {
  try {
    execFileSync(join(repo, "node_modules", ".bin", "tsc"), ["-p", dir], { encoding: "utf8", stdio: "pipe" });
    return "";
  } catch (e) {
    return String((e as { stdout?: string }).stdout);
  }
}

const NODE_ONLY = [
  ["protokeel/store", "MemoryStore", "dist/store/index.js"],
  ["protokeel/pool", "createCodecPool", "dist/pool/index.js"],
  ["protokeel/registry/buf", "bufCompiler", "dist/registry/buf.js"],
] as const;

test("moduleResolution bundler: every subpath's types are found", () => {
  const program = `import { ProtobufType } from "protokeel";
import { RegistrySerializer } from "protokeel/registry";
${NODE_ONLY.map(([spec, name], i) => `import { ${name} as n${i} } from "${spec}";`).join("\n")}
export const all = [ProtobufType, RegistrySerializer, ${NODE_ONLY.map((_, i) => `n${i}`).join(", ")}];
`;
  expect(tsc(app({ "main.ts": program }, { module: "esnext", moduleResolution: "bundler" }))).toBe("");
});

test("nodenext: require() type-checks for the subpaths with a CommonJS file and for no other", () => {
  const program = `import pk = require("protokeel");
import pool = require("protokeel/pool");
import store = require("protokeel/store");
import buf = require("protokeel/registry/buf");
export const all = [pk, pool, store, buf];
`;
  const out = tsc(app({ "main.cts": program }, { module: "nodenext", moduleResolution: "nodenext" }));
  const failed = [...out.matchAll(/main\.cts\((\d+),/g)].map((m) => Number(m[1]));
  expect(failed).toEqual([3, 4]);
});

test.each(NODE_ONLY)("%s: a bundle for node resolves it, one for a browser does not", async (spec, name, file) => {
  const dir = app({ "entry.js": `import { ${name} } from "${spec}"; console.log(${name});` }, {});
  const node = await build({ entryPoints: [join(dir, "entry.js")], bundle: true, write: false, platform: "node", format: "esm", metafile: true, logLevel: "silent", external: ["lmdb", "@bufbuild/*", "@noble/*"] });
  expect(Object.keys(node.metafile!.inputs).some((f) => f.endsWith(file))).toBe(true);
  const browser = await build({ entryPoints: [join(dir, "entry.js")], bundle: true, write: false, platform: "browser", format: "esm", logLevel: "silent", external: ["@bufbuild/*", "@noble/*"] }).catch((e: { errors: { text: string }[] }) => e.errors.map((x) => x.text).join("\n"));
  expect(browser).toMatch(new RegExp(`Could not resolve "${spec.replace(/\//g, "\\/")}"|is not exported|No matching export`));
});
