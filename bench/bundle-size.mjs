// npm run size: what protokeel costs an application, measured on the built package (run
// `npm run build` first). Each app is a one-line module bundled by esbuild (the bundler tsup
// runs) against dist/ the way an installed package resolves (package.json "exports" and
// "sideEffects"), minified, then gzipped at level 9. Dependencies (@bufbuild/protobuf,
// @noble/hashes) are bundled too: the app ships them. README "Bundle size" shows the numbers.
// Usage: node bench/bundle-size.mjs [--json]
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { ROOT_DIR } from "./lib/paths.mjs";

/** The apps whose bundles are measured: id → source (imports from "protokeel" only) and conditions. */
export const APPS = {
  evaluator: { source: `import { evaluateSchemaChange } from "protokeel";\nglobalThis.app = evaluateSchemaChange;` },
  codec: { source: `import { ProtobufType } from "protokeel";\nglobalThis.app = (desc) => ProtobufType.of(desc).createSerializer();` },
  snapshot: { source: `import { readSnapshot } from "protokeel";\nglobalThis.app = (bytes) => readSnapshot(bytes).fullName;` },
  everything: { source: `import * as protokeel from "protokeel";\nglobalThis.app = protokeel;` },
  "everything (workerd)": { source: `import * as protokeel from "protokeel";\nglobalThis.app = protokeel;`, conditions: ["workerd"] },
};

/** The inline core starts with the bytes "\0asm", whose base64 is "AGFzbQ". */
export const INLINE_WASM_MARK = "AGFzbQ";

const sizes = (bytes) => ({ bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length });
const sum = (rows, key) => rows.reduce((n, r) => n + r[key], 0);

/** "…/node_modules/@bufbuild/protobuf/dist/…" → "@bufbuild/protobuf"; protokeel's own files → "protokeel". */
function packageOf(path) {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  return m && m[1] !== "protokeel" ? m[1] : "protokeel";
}

/**
 * Bundles each app against the built package. Per app: minified and gzipped bytes, whether the
 * inline core is in it, minified bytes per package, and the dist/ modules it contains.
 */
export async function measureApps(apps = APPS) {
  const dir = mkdtempSync(join(tmpdir(), "protokeel-size-"));
  try {
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(ROOT_DIR, join(dir, "node_modules", "protokeel"));
    const out = {};
    for (const [id, { source, conditions = [] }] of Object.entries(apps)) {
      const file = join(dir, `app-${Object.keys(out).length}.mjs`);
      writeFileSync(file, source);
      const result = await build({
        entryPoints: [file],
        bundle: true,
        minify: true,
        format: "esm",
        platform: "browser",
        target: "es2022",
        conditions,
        // workerd compiles the .wasm file itself; it is not part of the JavaScript bundle.
        external: ["*.wasm"],
        write: false,
        metafile: true,
        logLevel: "silent",
      });
      const code = result.outputFiles[0].contents;
      const [output] = Object.values(result.metafile.outputs);
      const byPackage = {};
      const modules = [];
      for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
        const pkg = packageOf(path);
        byPackage[pkg] = (byPackage[pkg] ?? 0) + bytesInOutput;
        const at = path.lastIndexOf("dist/");
        if (pkg === "protokeel" && at >= 0) modules.push(path.slice(at));
      }
      out[id] = { ...sizes(code), wasm: Buffer.from(code).toString("latin1").includes(INLINE_WASM_MARK), byPackage, modules: modules.sort() };
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function listDist(dir = join(ROOT_DIR, "dist"), prefix = "") {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listDist(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

/** The built files as users load them without a bundler: label → files under dist/. */
export function distGroups(files = listDist()) {
  const workerd = ["workerd.js", "wasm/inline-none.js"];
  const esm = files.filter((f) => f.endsWith(".js") && !workerd.includes(f));
  return {
    "ESM: dist/index.js and the modules under dist/ it imports": esm,
    "ESM: what dist/workerd.js adds to them": workerd,
    "CJS: dist/index.cjs": ["index.cjs"],
    "dist/protokeel.wasm": ["protokeel.wasm"],
  };
}

/** Sizes of each group of built files (gzip per file, added up). */
export function measureDist(groups = distGroups()) {
  return Object.fromEntries(
    Object.entries(groups).map(([label, files]) => {
      const each = files.map((f) => sizes(readFileSync(join(ROOT_DIR, "dist", f))));
      return [label, { files: files.length, bytes: sum(each, "bytes"), gzip: sum(each, "gzip") }];
    }),
  );
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values: args } = parseArgs({ options: { json: { type: "boolean", default: false } } });
  const apps = await measureApps();
  const dist = measureDist();
  if (args.json) {
    console.log(JSON.stringify({ apps, dist }, null, 2));
  } else {
    console.log("| app imports | minified | gzip | protokeel's part (minified) | inline WASM |\n|---|--:|--:|--:|---|");
    for (const [id, s] of Object.entries(apps)) {
      console.log(`| ${id} | ${kib(s.bytes)} | ${kib(s.gzip)} | ${kib(s.byPackage.protokeel ?? 0)} | ${s.wasm ? "yes" : "no"} |`);
    }
    console.log("\n| built files | size | gzip |\n|---|--:|--:|");
    for (const [label, s] of Object.entries(dist)) {
      console.log(`| ${label}${s.files > 1 ? ` (${s.files} files)` : ""} | ${kib(s.bytes)} | ${kib(s.gzip)} |`);
    }
  }
}
