// Run by `npm run build` after tsup: dist/store/index.d.ts keeps the core's declarations as
// imports (tsup.config.ts), which rollup writes as paths to src modules that dist/ has no
// declarations for. They all become "../index.js" (dist/index.d.ts exports every name the store
// uses), so that protokeel/store's types ARE the core's: a copy of ProtobufType or DynamicMessage
// (classes with private members) would not accept the application's instances.
import { readFileSync, writeFileSync } from "node:fs";

const file = "dist/store/index.d.ts";
const code = readFileSync(file, "utf8");
const out = code.replace(/from '(?:\.\.\/)+[^']+';/g, "from '../index.js';");
const left = out.match(/from '\.[^']*'/g)?.filter((s) => s !== "from '../index.js'") ?? [];
if (left.length > 0) throw new Error(`${file}: imports left that dist/ does not have: ${left.join(", ")}`);
writeFileSync(file, out);
