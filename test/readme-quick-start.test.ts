// The README's quick start runs as written against the built package, and prints what its
// comments claim.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");

test("the README quick start runs and prints what its comments say", () => {
  const readme = readFileSync(join(repo, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Quick start"));
  const code = /```js\n([\s\S]*?)```/.exec(section)![1]!;
  const dir = mkdtempSync(join(tmpdir(), "protokeel-readme-"));
  // Resolve "protokeel" to this checkout's built package and "protobufjs" to the dev copy.
  const modules = join(dir, "node_modules");
  execFileSync("mkdir", ["-p", modules]);
  symlinkSync(repo, join(modules, "protokeel"));
  symlinkSync(join(repo, "node_modules", "protobufjs"), join(modules, "protobufjs"));
  symlinkSync(join(repo, "node_modules", "@bufbuild"), join(modules, "@bufbuild"));
  symlinkSync(join(repo, "node_modules", "@noble"), join(modules, "@noble"));
  writeFileSync(join(dir, "quick-start.mjs"), code);
  const out = execFileSync(process.execPath, [join(dir, "quick-start.mjs")], { encoding: "utf8" });
  const expected = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]!);
  expect(out.trim().split("\n")).toEqual(expected);
});
