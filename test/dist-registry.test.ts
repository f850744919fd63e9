// protokeel/registry and protokeel/registry/buf as the package ships them (dist/, `npm run build`
// first): the subpaths resolve (registry under every condition, registry/buf under node only),
// their declarations use the core's own classes, nothing the core entry loads reaches the
// registry, and nothing protokeel/registry loads imports a Node module (it runs on edge runtimes).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(repo, "dist");

function app(): string {
  const dir = mkdtempSync(join(tmpdir(), "protokeel-dist-registry-"));
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(repo, join(dir, "node_modules", "protokeel"), "dir");
  for (const dep of ["@bufbuild", "@noble", "@types"]) symlinkSync(join(repo, "node_modules", dep), join(dir, "node_modules", dep), "dir");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  return dir;
}

/** Every module a dist file loads, transitively (relative imports), with the bare specifiers it names. */
function graph(entry: string): { files: string[]; bare: string[] } {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
      const spec = m[1]!;
      // Template text in messages (`from "${x}"`) is not an import.
      if (spec.includes("${")) continue;
      if (spec.startsWith(".")) visit(resolve(dirname(file), spec));
      else bare.add(spec);
    }
  };
  visit(entry);
  return { files: [...seen].map((f) => f.slice(dist.length + 1)).sort(), bare: [...bare].sort() };
}

const PROGRAM = `
import { DynamicMessage, ProtobufType, SchemaRegistryError } from "protokeel";
import { MemoryRegistryClient, RegistryDeserializer, RegistrySerializer, type SchemaRegistryClient } from "protokeel/registry";
import { bufCompiler } from "protokeel/registry/buf";
declare const type: ProtobufType;
const client: SchemaRegistryClient = new MemoryRegistryClient();
const ser = new RegistrySerializer(type, { client });
const bytes: Promise<Uint8Array> = ser.serialize("orders", DynamicMessage.create(type.descriptor, {}));
const value: Promise<DynamicMessage> = new RegistryDeserializer(type, { client, compile: bufCompiler() }).deserialize("orders", new Uint8Array(0));
const e: SchemaRegistryError | undefined = undefined;
console.log(bytes, value, e);
`;

test("an application's ProtobufType and DynamicMessage type-check against protokeel/registry", () => {
  const dir = app();
  writeFileSync(join(dir, "main.ts"), PROGRAM);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", skipLibCheck: false, types: ["node"] }, files: ["main.ts"] }),
  );
  execFileSync(join(repo, "node_modules", ".bin", "tsc"), ["-p", dir], { stdio: "pipe" });
});

test("the subpaths resolve; protokeel/registry/buf only under node", () => {
  const dir = app();
  writeFileSync(
    join(dir, "main.mjs"),
    `import { RegistrySerializer, HttpRegistryClient } from "protokeel/registry";
     import { bufCompiler } from "protokeel/registry/buf";
     const at = (s) => { const r = import.meta.resolve(s); return r.slice(r.indexOf("/dist/")); };
     console.log(JSON.stringify({ registry: at("protokeel/registry"), buf: at("protokeel/registry/buf"), kinds: [typeof RegistrySerializer, typeof HttpRegistryClient, typeof bufCompiler] }));`,
  );
  const out = JSON.parse(execFileSync(process.execPath, ["main.mjs"], { cwd: dir, encoding: "utf8" }));
  expect(out).toEqual({ registry: "/dist/registry/index.js", buf: "/dist/registry/buf.js", kinds: ["function", "function", "function"] });
  const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
  // Under "import" only its types (for TypeScript's bundler resolution; test/dist-subpath-conditions.test.ts).
  expect(Object.keys(pkg.exports["./registry/buf"])).toEqual(["node", "import"]);
  expect(Object.keys(pkg.exports["./registry"])).toEqual(["types", "import"]);
});

test("the core entry never loads the registry; protokeel/registry imports no Node module", () => {
  expect(graph(join(dist, "index.js")).files.filter((f) => f.startsWith("registry/"))).toEqual([]);
  expect(readFileSync(join(dist, "index.cjs"), "utf8")).not.toMatch(/RegistrySerializer|HttpRegistryClient/);
  const registry = graph(join(dist, "registry", "index.js"));
  expect(registry.files).not.toContain("registry/buf.js");
  expect(registry.bare.filter((s) => !s.startsWith("@bufbuild/protobuf") && !s.startsWith("@noble/hashes") && s !== "#inline-wasm")).toEqual([]);
  expect(graph(join(dist, "registry", "buf.js")).bare.filter((s) => s.startsWith("node:"))).toEqual(["node:child_process", "node:fs", "node:fs/promises", "node:module", "node:os", "node:path"]);
});
