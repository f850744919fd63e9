import { readFileSync } from "node:fs";
import { defineConfig, type Plugin } from "vitest/config";

// Vitest runs the TypeScript sources: give `.wasm` imports the bytes, as tsup's binary loader
// does for the built package.
const wasmBytes: Plugin = {
  name: "protokeel-wasm-bytes",
  enforce: "pre",
  load(id) {
    const file = id.split("?")[0]!;
    if (!file.endsWith(".wasm")) return null;
    const b64 = readFileSync(file).toString("base64");
    return `export default new Uint8Array(Buffer.from(${JSON.stringify(b64)}, "base64"));`;
  },
};

export default defineConfig({
  plugins: [wasmBytes],
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
