// protokeel/store as the package ships it (dist/, `npm run build` first): the subpath resolves
// under the "node" condition, its declarations use the core's own classes (an application's
// ProtobufType and DynamicMessage type-check against it), and nothing the core entry loads reaches
// the store or lmdb.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(repo, "dist");

function app(): string {
  const dir = mkdtempSync(join(tmpdir(), "protokeel-dist-store-"));
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(repo, join(dir, "node_modules", "protokeel"), "dir");
  for (const dep of ["@bufbuild", "@noble", "lmdb", "@types"]) symlinkSync(join(repo, "node_modules", dep), join(dir, "node_modules", dep), "dir");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  return dir;
}

const PROGRAM = `
import { DynamicMessage, ProtobufType, StateStoreError, readSnapshot } from "protokeel";
import { MemoryStore, listState, valueState, type ListState, type StateSpecs, type ValueState } from "protokeel/store";
const type: ProtobufType = ProtobufType.of({ fileDescriptorSet: new Uint8Array(0), messageName: "x" } as never);
const store = MemoryStore.create({ orders: valueState(type) });
const v: DynamicMessage | undefined = store.state("orders").get("k");
const e: StateStoreError | undefined = undefined;
// A spec whose kind is not one literal is the union of the states (it was ListState: a value
// state's add type-checked, then threw).
const keep = Math.random() > 2;
const either = MemoryStore.create({ s: keep ? listState(type) : valueState(type) }).state("s");
const narrowed: ValueState | ListState = either;
// @ts-expect-error add is a ListState method: the union must be narrowed first
either.add("k", v!);
const loose: StateSpecs = { latest: valueState(type) };
// @ts-expect-error a wide StateSpecs gives the union of all three states
const wide: ListState = MemoryStore.create(loose).state("latest");
// The README's snapshot uses: a null registry is none, and snapshot.kind says which kind.
const snap = readSnapshot(new Uint8Array(0), { registry: null });
const kind: "dynamic" | "generated" | undefined = snap.kind;
const name: string | undefined = snap.fullName;
console.log(typeof v, e, narrowed, wide, kind, name);
`;

test("an application's ProtobufType and DynamicMessage type-check against protokeel/store", () => {
  const dir = app();
  writeFileSync(join(dir, "main.ts"), PROGRAM);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", skipLibCheck: false, types: ["node"] }, files: ["main.ts"] }),
  );
  execFileSync(join(repo, "node_modules", ".bin", "tsc"), ["-p", dir], { stdio: "pipe" });
});

test("protokeel/store resolves to dist/store/index.js under node and runs the memory backend without lmdb loaded", () => {
  const dir = app();
  writeFileSync(
    join(dir, "main.mjs"),
    `import { MemoryStore, LmdbStore } from "protokeel/store";
     import { createRequire } from "node:module";
     const resolved = import.meta.resolve("protokeel/store");
     const require = createRequire(import.meta.url);
     const lmdbLoaded = Object.keys(require.cache).some((k) => k.includes("/lmdb/"));
     console.log(JSON.stringify({ resolved: resolved.slice(resolved.indexOf("/dist/")), memory: typeof MemoryStore.create, lmdb: typeof LmdbStore.open, lmdbLoaded }));`,
  );
  const out = JSON.parse(execFileSync(process.execPath, ["main.mjs"], { cwd: dir, encoding: "utf8" }));
  expect(out).toEqual({ resolved: "/dist/store/index.js", memory: "function", lmdb: "function", lmdbLoaded: false });
});

test("nothing the core entry imports reaches dist/store/ or lmdb; the store imports lmdb only dynamically", () => {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, "utf8");
    for (const m of code.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
      const spec = m[1]!;
      expect(spec, `${file} imports ${spec}`).not.toBe("lmdb");
      if (spec.startsWith(".")) visit(resolve(dirname(file), spec));
    }
  };
  visit(join(dist, "index.js"));
  expect([...seen].filter((f) => f.includes("/store/"))).toEqual([]);
  expect(readFileSync(join(dist, "index.cjs"), "utf8")).not.toMatch(/lmdb|MemoryStore/);
  const lmdbJs = readFileSync(join(dist, "store", "lmdb.js"), "utf8");
  expect(lmdbJs).toMatch(/await import\("lmdb"\)/);
  expect(lmdbJs).not.toMatch(/from "lmdb"/);
});
