// Run by `npm run build` after tsup. The declarations of the subpath entries (protokeel/store,
// protokeel/registry, protokeel/registry/buf, protokeel/pool) keep the core's declarations as imports
// (tsup.config.ts), which rollup writes as paths to src modules that dist/ has no declarations
// for. They all become the core's dist/index.d.ts (which exports every name the subpaths use), so
// that the subpaths' types ARE the core's: a copy of ProtobufType or DynamicMessage (classes with
// private members) would not accept the application's instances. protokeel/pool also gets a copy
// for require (dist/pool/index.d.cts) that points at the core's CJS declarations (dist/index.d.cts),
// so that a CJS program's classes match.
import { readFileSync, writeFileSync } from "node:fs";

for (const [file, core, to = file] of [
  ["dist/store/index.d.ts", "../index.js"],
  ["dist/registry/index.d.ts", "../index.js"],
  ["dist/registry/buf.d.ts", "../index.js"],
  ["dist/pool/index.d.ts", "../index.cjs", "dist/pool/index.d.cts"],
  ["dist/pool/index.d.ts", "../index.js"],
]) {
  const code = readFileSync(file, "utf8");
  const out = code.replace(/from '(?:\.\.\/)+[^']+';/g, `from '${core}';`);
  const left = out.match(/from '\.[^']*'/g)?.filter((s) => s !== `from '${core}'`) ?? [];
  if (left.length > 0) throw new Error(`${file}: imports left that dist/ does not have: ${left.join(", ")}`);
  writeFileSync(to, out);
}

// protokeel/protokeel.wasm: what workerd, wrangler and bundlers with a wasm loader import it as (a
// TypeScript import of it failed with TS2307 without a declaration).
writeFileSync(
  "dist/protokeel.wasm.d.ts",
  "/** protokeel's WebAssembly core, compiled: what workerd, wrangler and bundlers with a wasm loader give for this import (pass it to initWasm). */\ndeclare const core: WebAssembly.Module;\nexport default core;\n",
);
