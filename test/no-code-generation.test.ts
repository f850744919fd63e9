// workerd and strict CSP forbid run-time code generation: neither the sources nor the built
// entries may contain it (a bundled dependency would show up in dist/ too).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const FORBIDDEN = /new\s+Function\s*\(|\beval\s*\(|\bFunction\s*\(\s*["'`]/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|js|cjs)$/.test(name) ? [p] : [];
  });
}

test.each([
  ...files(join(repo, "src")),
  ...files(join(repo, "assembly")),
  ...files(join(repo, "dist")),
].map((p) => [p.slice(repo.length + 1), p]))("%s has no eval or Function constructor", (_name, path) => {
  expect(readFileSync(path, "utf8")).not.toMatch(FORBIDDEN);
});
