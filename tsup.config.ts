import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { defineConfig, type Options } from "tsup";

// dist/ layout (sizes and why: README "Bundle size"; measured by `npm run size`):
// - ESM: one file per source module (dist/index.js, dist/workerd.js, dist/codec/…), not one
//   bundle per entry. An application's bundler then drops whole modules that nothing it imports
//   reaches ("sideEffects" in package.json): an app that imports only evaluateSchemaChange gets
//   no codec and no WebAssembly core. dist/workerd.js is a few lines over the same modules
//   instead of a third copy of the code.
// - dist/wasm/inline.js: the core's bytes inline (the default entry's source; the only bundled
//   ESM file, because esbuild's binary loader is what turns the .wasm into bytes). The core
//   loader reaches it as "#inline-wasm" (package.json "imports"), which the workerd condition
//   maps to dist/wasm/inline-none.js: a workerd bundle shares every other module with the default
//   entry and carries no inline copy (workerd gets the module from dist/workerd.js's import).
// - CJS: one bundle, dist/index.cjs (require() has no tree-shaking to serve).
// - dist/cli/main.js: the `protokeel` command line (package.json "bin"), an ESM module of the
//   per-module build like any other; it keeps its #!/usr/bin/env node line and is made executable
//   (checked below). Nothing an entry loads imports src/cli/, so no runtime gets Node modules.
// - dist/store/index.js: `protokeel/store` (Node only, ESM only; package.json "exports" gives it
//   under the "node" condition alone). No entry of the core imports src/store/, and the store
//   loads the optional peer `lmdb` with a dynamic import only when an LMDB store is opened.
// - dist/registry/index.js: `protokeel/registry` (ESM, every runtime: fetch, no Node module), and
//   dist/registry/buf.js: `protokeel/registry/buf` (Node only: runs buf). No entry of the core
//   imports src/registry/.
// - dist/pool/: `protokeel/pool` (Node only; package.json "exports" gives it under the "node"
//   condition alone). ESM: dist/pool/index.js of the per-module build, over the core's own modules.
//   CJS: dist/pool/index.cjs, one bundle whose only import of the core, "../index.js", becomes
//   require("../index.cjs") (routeCoreToCjs below): the errors it rebuilds are then the
//   application's classes, not a second copy. Both start dist/pool/worker.js (an ES module of the
//   per-module build) from their own location (`new URL("./worker.js", import.meta.url)`; the CJS
//   bundle's import.meta.url is pathToFileURL(__filename)). No entry of the core imports src/pool/.
// - dist/protokeel.wasm: the core as a file, imported by dist/workerd.js (workerd compiles it
//   itself: it refuses to compile WebAssembly from bytes) and exported as protokeel/protokeel.wasm.

const common: Options = {
  target: "es2022",
  platform: "neutral",
  sourcemap: false,
  clean: false,
  external: ["@bufbuild/protobuf", "@noble/hashes", "lmdb"],
};

/**
 * The loader's one import of "./inline.js" becomes "#inline-wasm", resolved by package.json
 * "imports" (default: the inline bytes; workerd: none). src/ keeps the relative import, which
 * vitest runs as is; a build whose loader no longer has exactly that import fails here.
 */
function routeInlineCore(file: string): void {
  const code = readFileSync(file, "utf8");
  const imports = code.match(/from "\.\/inline\.js";/g) ?? [];
  if (imports.length !== 1) throw new Error(`${file}: expected one import from "./inline.js", found ${imports.length}; update tsup.config.ts`);
  writeFileSync(file, code.replace('from "./inline.js";', 'from "#inline-wasm";'));
}

/**
 * The CJS pool's one import of the core, "../index.js" (src/pool/ imports nothing else of the
 * core at run time, except what esbuild inlines: the frame-prefix reader), stays a require of the
 * core's CJS bundle.
 */
const routeCoreToCjs = {
  name: "pool-core-to-cjs",
  setup(build: { onResolve(o: { filter: RegExp }, f: (a: { path: string; importer: string }) => { path: string; external: true } | undefined): void }) {
    build.onResolve({ filter: /^\.\.\/index\.js$/ }, (args) => (args.importer.includes("/src/pool/") ? { path: "../index.cjs", external: true } : undefined));
  },
};

/** The bin entry must start with its #! line and be executable, whatever esbuild and tsup do. */
function markExecutable(file: string): void {
  if (!readFileSync(file, "utf8").startsWith("#!/usr/bin/env node\n")) throw new Error(`${file}: the bin entry lost its #!/usr/bin/env node line; update tsup.config.ts`);
  chmodSync(file, 0o755);
}

export default defineConfig([
  {
    ...common,
    // Every module but the inline core (bundled below) and declaration-only files.
    entry: ["src/**/*.ts", "!src/**/*.d.ts", "!src/wasm/inline.ts"],
    format: ["esm"],
    bundle: false,
    dts: false,
    outExtension: () => ({ js: ".js" }),
    onSuccess: async () => {
      routeInlineCore("dist/wasm/instance.js");
      markExecutable("dist/cli/main.js");
    },
  },
  {
    ...common,
    entry: { "wasm/inline": "src/wasm/inline.ts" },
    format: ["esm"],
    dts: false,
    outExtension: () => ({ js: ".js" }),
    loader: { ".wasm": "binary" },
  },
  {
    ...common,
    entry: { index: "src/index.ts" },
    format: ["cjs"],
    dts: false,
    outExtension: () => ({ js: ".cjs" }),
    // Classes keep their names (one bundle renames clashing ones: _ProtobufType in stack traces).
    keepNames: true,
    // The default entry carries the core inline so that no runtime has to resolve a path.
    loader: { ".wasm": "binary" },
    onSuccess: async () => {
      mkdirSync("dist", { recursive: true });
      copyFileSync("build/protokeel.wasm", "dist/protokeel.wasm");
    },
  },
  {
    // Declarations of the one public entry: dist/index.d.ts (import) and dist/index.d.cts (require).
    ...common,
    entry: { index: "src/index.ts" },
    format: ["esm", "cjs"],
    dts: { only: true },
    outExtension: ({ format }) => ({ js: format === "cjs" ? ".cjs" : ".js" }),
  },
  {
    ...common,
    entry: { "pool/index": "src/pool/index.ts" },
    format: ["cjs"],
    platform: "node",
    dts: false,
    // import.meta.url as the file URL of the bundle. tsup's shim wrote `file:${__filename}`
    // unescaped: under a directory named with "#", "?" or "%41" the worker's URL named another
    // file, and every batch failed (POOL_WORKER_EXITED).
    define: { "import.meta.url": "__protokeelPoolUrl" },
    banner: { js: '"use strict";\nconst __protokeelPoolUrl = require("node:url").pathToFileURL(__filename).href;' },
    keepNames: true,
    outExtension: () => ({ js: ".cjs" }),
    esbuildPlugins: [routeCoreToCjs],
  },
  {
    // Declarations of protokeel/pool, made like the store's (below): dist/pool/index.d.ts, and a
    // copy for require, dist/pool/index.d.cts, pointed at dist/index.d.cts.
    ...common,
    entry: { "pool/index": "src/pool/index.ts" },
    format: ["esm"],
    dts: { only: true },
    external: [...(common.external as string[]), /^\.\.\//],
    outExtension: () => ({ js: ".js" }),
  },
  {
    // Declarations of protokeel/store: dist/store/index.d.ts (ESM only, Node only). The core's
    // declarations are not copied in: a copy of ProtobufType or DynamicMessage (classes with
    // private members) would not accept the application's instances. Every core module stays an
    // import and is pointed at dist/index.d.ts, which exports all the names the store uses.
    ...common,
    entry: { "store/index": "src/store/index.ts" },
    format: ["esm"],
    dts: { only: true },
    external: [...(common.external as string[]), /^\.\.\//],
    outExtension: () => ({ js: ".js" }),
    // scripts/point-subpath-types.mjs (after tsup, in `npm run build`) points them at dist/index.d.ts.
  },
  {
    // Declarations of protokeel/registry (every runtime, ESM) and protokeel/registry/buf (Node):
    // like the store's, core modules stay imports, pointed at dist/index.d.ts afterwards.
    ...common,
    // One config per entry: declarations of two entries in one config share a chunk file.
    entry: { "registry/index": "src/registry/index.ts" },
    format: ["esm"],
    dts: { only: true },
    external: [...(common.external as string[]), /^\.\.\//],
    outExtension: () => ({ js: ".js" }),
  },
  {
    ...common,
    entry: { "registry/buf": "src/registry/buf.ts" },
    format: ["esm"],
    dts: { only: true },
    external: [...(common.external as string[]), /^\.\.\//],
    outExtension: () => ({ js: ".js" }),
  },
]);
