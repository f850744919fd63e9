import { copyFileSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig, type Options } from "tsup";

const inlineNone = fileURLToPath(new URL("./src/wasm/inline-none.ts", import.meta.url));

const common: Options = {
  target: "es2022",
  platform: "neutral",
  sourcemap: false,
  external: ["@bufbuild/protobuf", "@noble/hashes"],
};

export default defineConfig([
  {
    ...common,
    entry: { index: "src/index.ts" },
    format: ["esm", "cjs"],
    dts: true,
    clean: false,
    outExtension: ({ format }) => ({ js: format === "cjs" ? ".cjs" : ".js" }),
    // The default entry carries the core inline so that no runtime has to resolve a path.
    loader: { ".wasm": "binary" },
  },
  {
    ...common,
    entry: { workerd: "src/workerd.ts" },
    format: ["esm"],
    dts: false,
    clean: false,
    outExtension: () => ({ js: ".js" }),
    esbuildPlugins: [
      {
        // workerd compiles `import x from "./protokeel.wasm"` itself: keep the import, ship the
        // file beside the entry, and leave the inline bytes out of this bundle.
        name: "protokeel-workerd-wasm",
        setup(build) {
          build.onResolve({ filter: /^\.\/protokeel\.wasm$/ }, () => ({ path: "./protokeel.wasm", external: true }));
          build.onResolve({ filter: /\/inline\.js$/ }, () => ({ path: inlineNone }));
        },
      },
    ],
    onSuccess: async () => {
      mkdirSync("dist", { recursive: true });
      copyFileSync("build/protokeel.wasm", "dist/protokeel.wasm");
    },
  },
]);
