import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: false,
  target: "es2022",
  platform: "neutral",
  outExtension: ({ format }) => ({ js: format === "cjs" ? ".cjs" : ".js" }),
  // The default entry carries the core inline so that no runtime has to resolve a path.
  loader: { ".wasm": "binary" },
  external: ["@bufbuild/protobuf", "@noble/hashes"],
});
