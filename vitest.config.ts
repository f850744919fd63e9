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
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    projects: [
      { extends: true, test: { name: "default", include: ["test/**/*.test.ts"] } },
      {
        // The read path's two forms (eager and lazy, src/codec/reader.ts) must give the same values
        // and the same errors: the codec tests run again with every bare message decoded lazily.
        extends: true,
        test: {
          name: "lazy-decode",
          include: [
            "test/decode-*.test.ts",
            "test/serializer-*.test.ts",
            "test/field-note-relays.test.ts",
            "test/write-*.test.ts",
            "test/writer-*.test.ts",
            "test/snapshot-upgrade.test.ts",
            "test/dynamic-message.test.ts",
          ],
          setupFiles: ["test/support/lazy-everywhere.ts"],
        },
      },
    ],
  },
});
