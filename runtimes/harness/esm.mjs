// Node ESM, Deno and Bun: the package through `import` (the "import" condition: dist/index.js).
import * as protokeel from "protokeel";
import { runSmoke } from "./smoke.mjs";

const result = await runSmoke(protokeel);
console.log(`SMOKE ${JSON.stringify({ entry: import.meta.resolve("protokeel"), ...result })}`);
