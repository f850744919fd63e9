// Run by `npm run build` after tsup: dist/store/index.d.ts keeps the core's declarations as
// imports (tsup.config.ts), which rollup writes as paths to src modules that dist/ has no
// declarations for. They all become "../index.js" (dist/index.d.ts exports every name the store
// uses), so that protokeel/store's types ARE the core's: a copy of ProtobufType or DynamicMessage
// (classes with private members) would not accept the application's instances.
// protokeel/pool's declarations get the same, and a copy for require (dist/pool/index.d.cts) that
// points at the core's CJS declarations (dist/index.d.cts), so that a CJS program's classes match.
import { readFileSync, writeFileSync } from "node:fs";

/** `file` with every relative import pointed at `core`; throws if a relative import is left. */
function pointed(file, core) {
  const code = readFileSync(file, "utf8");
  const out = code.replace(/from '(?:\.\.\/)+[^']+';/g, `from '${core}';`);
  const left = out.match(/from '\.[^']*'/g)?.filter((s) => s !== `from '${core}'`) ?? [];
  if (left.length > 0) throw new Error(`${file}: imports left that dist/ does not have: ${left.join(", ")}`);
  return out;
}

writeFileSync("dist/store/index.d.ts", pointed("dist/store/index.d.ts", "../index.js"));
writeFileSync("dist/pool/index.d.cts", pointed("dist/pool/index.d.ts", "../index.cjs"));
writeFileSync("dist/pool/index.d.ts", pointed("dist/pool/index.d.ts", "../index.js"));
