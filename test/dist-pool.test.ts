// protokeel/pool as the package ships it (dist/, `npm run build` first): the subpath resolves under
// the "node" condition for import (dist/pool/index.js) and require (dist/pool/index.cjs), both
// start the worker from its place in dist/, errors come back as the application's own classes of
// either build, a program that never closes its pool still exits, the declarations use the core's
// classes, and nothing the core entry loads reaches the pool.
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { compileProtoText } from "./support/buf.js";

const compileItem = () => compileProtoText({ "t.proto": 'syntax = "proto3"; package t; message Item { string s = 1; }' });

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(repo, "dist");

function app(): string {
  const dir = mkdtempSync(join(tmpdir(), "protokeel-dist-pool-"));
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(repo, join(dir, "node_modules", "protokeel"), "dir");
  for (const dep of ["@bufbuild", "@noble", "@types", "protobufjs"]) symlinkSync(join(repo, "node_modules", dep), join(dir, "node_modules", dep), "dir");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  return dir;
}

// The same program for both builds: decode a batch as objects and as messages, check a malformed
// batch's error class against the core's, and end WITHOUT closing the pool (it must not keep the
// process alive once idle).
const BODY = `
const root = protobuf.parse('syntax = "proto3"; package t; message Item { string s = 1; int64 n = 2; }', { keepCase: true }).root;
const type = pk.ProtobufType.of(root.lookupType("t.Item"));
const ser = type.createSerializer();
const frames = ser.encodeAll(Array.from({ length: 3000 }, (_, i) => ({ s: "item " + i + " ".padEnd(200, "x"), n: BigInt(i) })));
const pool = pool_.createCodecPool({ type, size: 2 });
const objects = await pool.decode(frames);
const messages = await pool.decode(frames, { as: "message" });
const bad = frames.slice(); bad[bad.length - 3] = 0xff;
const error = await pool.decode(bad).catch((e) => e);
const closed = await pool_.createCodecPool({ type, size: 1 }).destroy().then(() => "ok");
console.log(JSON.stringify({
  resolved: resolved.slice(resolved.indexOf("/dist/")),
  objects: objects.length, n: String(objects[2999].n),
  messages: messages.every((m, i) => m instanceof pk.DynamicMessage && m.descriptor === type.descriptor && m.get("n") === BigInt(i)),
  codecError: error instanceof pk.CodecError && error.message === (() => { try { ser.decodeAll(bad); } catch (e) { return e.message; } })(),
  poolErrorIsCore: pool_.PoolError === pk.PoolError,
  closed,
}));
`;

const EXPECTED = { objects: 3000, n: "2999", messages: true, codecError: true, poolErrorIsCore: true, closed: "ok" };

test("ESM: protokeel/pool resolves to dist/pool/index.js, runs, and its errors are the core's classes", () => {
  const dir = app();
  writeFileSync(
    join(dir, "main.mjs"),
    `import * as pk from "protokeel"; import * as pool_ from "protokeel/pool"; import protobuf from "protobufjs";
     const resolved = import.meta.resolve("protokeel/pool");
     ${BODY}`,
  );
  const out = JSON.parse(execFileSync(process.execPath, ["main.mjs"], { cwd: dir, encoding: "utf8", timeout: 120_000 }));
  expect(out).toEqual({ resolved: "/dist/pool/index.js", ...EXPECTED });
}, 180_000);

test("CJS: require('protokeel/pool') resolves to dist/pool/index.cjs, starts the worker from dist/pool/, and its errors are require('protokeel')'s classes", () => {
  const dir = app();
  writeFileSync(
    join(dir, "main.cjs"),
    `const pk = require("protokeel"); const pool_ = require("protokeel/pool"); const protobuf = require("protobufjs");
     const resolved = require.resolve("protokeel/pool");
     (async () => { ${BODY} })().catch((e) => { console.error(e); process.exit(1); });`,
  );
  const out = JSON.parse(execFileSync(process.execPath, ["main.cjs"], { cwd: dir, encoding: "utf8", timeout: 120_000 }));
  expect(out).toEqual({ resolved: "/dist/pool/index.cjs", ...EXPECTED });
}, 180_000);

// The package installed under directories whose names are URL syntax: a worker URL made from the
// path unescaped ("file:" + __filename) named another file, and every batch failed.
test.each(["a#b", "q?x", "pct%41", "sp ace ü"])("both builds start their workers when the package is installed under %j", (name) => {
  const root = join(mkdtempSync(join(tmpdir(), "protokeel-dist-pool-")), name);
  const pkg = join(root, "node_modules", "protokeel");
  mkdirSync(pkg, { recursive: true });
  // A copy, not a link: a required file's __filename is the link's target.
  cpSync(dist, join(pkg, "dist"), { recursive: true });
  copyFileSync(join(repo, "package.json"), join(pkg, "package.json"));
  for (const dep of ["@bufbuild", "@noble"]) symlinkSync(join(repo, "node_modules", dep), join(root, "node_modules", dep), "dir");
  const body = `const type = pk.ProtobufType.of({ fileDescriptorSet: FDS, messageName: "t.Item" });
    const frames = type.createSerializer().encodeAll([{ s: "a" }, { s: "b" }]);
    const pool = pool_.createCodecPool({ type, size: 1 });
    const out = await pool.decode(frames);
    await pool.close();
    console.log(out.map((o) => o.s).join(""));`;
  const fds = `new Uint8Array(${JSON.stringify([...compileItem()])})`;
  writeFileSync(join(root, "main.cjs"), `const pk = require("protokeel"); const pool_ = require("protokeel/pool"); const FDS = ${fds};\n(async () => { ${body} })().catch((e) => { console.error(e); process.exit(1); });`);
  writeFileSync(join(root, "main.mjs"), `import * as pk from "protokeel"; import * as pool_ from "protokeel/pool"; const FDS = ${fds};\n${body}`);
  for (const main of ["main.cjs", "main.mjs"]) expect(execFileSync(process.execPath, [main], { cwd: root, encoding: "utf8", timeout: 120_000 }).trim(), main).toBe("ab");
}, 180_000);

test("an application's ProtobufType and DynamicMessage type-check against protokeel/pool (import and require)", () => {
  const dir = app();
  const program = (from: string) => `
import { DynamicMessage, ProtobufType } from "protokeel";
import { createCodecPool, PoolError, type CodecPool } from "protokeel/pool";
export async function run(type: ProtobufType, frames: Uint8Array): Promise<DynamicMessage[]> {
  const pool: CodecPool = createCodecPool({ type, size: 2, transfer: true });
  const objects: Record<string, unknown>[] = await pool.decode(frames);
  const encoded: Uint8Array = await pool.encode([{ id: 1n }]);
  const bare: Uint8Array[] = await pool.encode(objects, { form: "bare" });
  const e: PoolError | undefined = undefined;
  console.log(${JSON.stringify(from)}, encoded, bare, e);
  return pool.decode(frames, { as: "message" });
}
// A pool made with results: "message" returns messages when a call gives no "as".
export async function messages(type: ProtobufType, frames: Uint8Array): Promise<DynamicMessage[]> {
  const pool = createCodecPool({ type, results: "message" });
  const plain: Record<string, unknown>[] = await pool.decode(frames, { as: "object", transfer: false });
  console.log(plain);
  // @ts-expect-error its default results are messages, not plain objects
  const wrong: Record<string, unknown>[] = await pool.decode(frames);
  console.log(wrong);
  return pool.decode(frames, { transfer: true });
}
`;
  writeFileSync(join(dir, "esm.mts"), program("esm"));
  writeFileSync(join(dir, "cjs.cts"), program("cjs"));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", skipLibCheck: false, types: ["node"] }, files: ["esm.mts", "cjs.cts"] }),
  );
  execFileSync(join(repo, "node_modules", ".bin", "tsc"), ["-p", dir], { stdio: "pipe" });
}, 120_000);

test("nothing the core entry imports reaches dist/pool/ or worker_threads; the CJS pool bundle has no copy of the core's classes", () => {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, "utf8");
    for (const m of code.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
      const spec = m[1]!;
      expect(spec, `${file} imports ${spec}`).not.toMatch(/worker_threads/);
      if (spec.startsWith(".")) visit(resolve(dirname(file), spec));
    }
  };
  visit(join(dist, "index.js"));
  expect([...seen].filter((f) => f.includes("/pool/"))).toEqual([]);
  expect(readFileSync(join(dist, "index.cjs"), "utf8")).not.toMatch(/worker_threads|createCodecPool/);
  const cjs = readFileSync(join(dist, "pool", "index.cjs"), "utf8");
  expect(cjs).toMatch(/require\("\.\.\/index\.cjs"\)/);
  expect(cjs).not.toMatch(/class \w*Error\b|extends Error\b|class ProtobufType|class DynamicMessage/);
});
