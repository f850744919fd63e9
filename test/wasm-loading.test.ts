// Loading the core (docs/design.md §13 "Loading"): the built package loads through require and import
// without compiling anything at module top level; initWasm takes a Module or bytes; the workerd
// entry imports the .wasm file shipped beside it.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { CodecError, initWasm } from "../src/index.js";
import { core } from "../src/wasm/instance.js";
import { ready, views } from "../src/wasm/memory.js";
import { walkMessage } from "../src/wasm/ops.js";
import { layoutOf } from "../src/codec/layout.js";
import { messageFromDir } from "./support/buf.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");

function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: root, encoding: "utf8" }).trim();
}

// Counts compilations so a test can see that loading the package compiles nothing.
const spy = `let compiled = 0; const M = WebAssembly.Module; globalThis.WebAssembly.Module = function (b) { compiled++; return new M(b); }; globalThis.WebAssembly.Module.prototype = M.prototype;`;
const use = `const before = compiled; m.initWasm(); const inline = compiled; m.initWasm(require("node:fs").readFileSync("dist/protokeel.wasm")); const after = compiled;
  let code; try { m.initWasm(new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9])); } catch (e) { code = e.code; }
  m.initWasm(new M(require("node:fs").readFileSync("dist/protokeel.wasm")));
  console.log(JSON.stringify({ before, inline, after, code, names: Object.keys(m).includes("initWasm") }));`;

describe("the built package", () => {
  test("loads through require without compiling at top level", () => {
    const out = node(["-e", `${spy} const m = require("protokeel"); ${use}`]);
    expect(JSON.parse(out)).toEqual({ before: 0, inline: 1, after: 2, code: "WASM_INSTANTIATION_FAILED", names: true });
  });

  test("loads through import without compiling at top level", () => {
    const out = node([
      "--input-type=module",
      "-e",
      `import { createRequire } from "node:module"; const require = createRequire(import.meta.url + "/../x.js"); ${spy} const m = await import("protokeel"); ${use}`,
    ]);
    expect(JSON.parse(out)).toEqual({ before: 0, inline: 1, after: 2, code: "WASM_INSTANTIATION_FAILED", names: true });
  });

  test("the default entries carry the core inline", () => {
    // "AGFzbQ" is the base64 of the WebAssembly magic "\0asm". The ESM build keeps one file per
    // module (tsup.config.ts): the bytes are in dist/wasm/inline.js, which the core loader imports
    // as "#inline-wasm" (package.json "imports"; the workerd condition maps it to no bytes).
    for (const f of ["wasm/inline.js", "index.cjs"]) expect(readFileSync(join(dist, f), "utf8")).toContain("AGFzbQ");
    expect(readFileSync(join(dist, "wasm/instance.js"), "utf8")).toContain('from "#inline-wasm"');
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(pkg.imports["#inline-wasm"]).toEqual({ workerd: "./dist/wasm/inline-none.js", default: "./dist/wasm/inline.js" });
  });

  test("the workerd entry imports the .wasm file shipped beside it and shares the default entry's modules", () => {
    const entry = readFileSync(join(dist, "workerd.js"), "utf8");
    expect(entry).toMatch(/^import wasmModule from "\.\/protokeel\.wasm";$/m);
    expect(entry).toMatch(/^export \* from "\.\/index\.js";$/m);
    expect(entry).not.toContain("AGFzbQ");
    expect(existsSync(join(dist, "protokeel.wasm"))).toBe(true);
    expect(readFileSync(join(dist, "protokeel.wasm"))).toEqual(readFileSync(join(root, "build", "protokeel.wasm")));
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(pkg.exports["."].workerd.import).toBe("./dist/workerd.js");
  });
});

describe("initWasm", () => {
  test("accepts a precompiled Module and starts with a fresh memory", () => {
    const bytes = readFileSync(join(root, "build", "protokeel.wasm"));
    const first = core();
    initWasm(new WebAssembly.Module(bytes));
    expect(core()).not.toBe(first);
    ready();
    expect(views.buffer).toBe(core().memory.buffer);
  });

  test("layouts compiled before a new instance are uploaded into its memory again", () => {
    const layout = layoutOf(messageFromDir("fixtures/core", "core.test.Node"));
    const input = Uint8Array.from([0x18, 5]);
    const limits = { maxMessageBytes: 100, maxDepth: 10 };
    walkMessage(layout.typeOffset, input, limits);
    initWasm(new WebAssembly.Module(readFileSync(join(root, "build", "protokeel.wasm"))));
    const t = walkMessage(layout.typeOffset, input, limits);
    expect(t.count).toBe(3);
    expect(views.u32[t.start + 4 + 2]).toBe(5);
  });

  test.each([
    ["bytes that are not WebAssembly", new Uint8Array([1, 2, 3]), "WASM_INSTANTIATION_FAILED"],
  ])("rejects %s", (_, input, code) => {
    expect(() => initWasm(input)).toThrow(CodecError);
    try {
      initWasm(input);
    } catch (e) {
      expect((e as CodecError).code).toBe(code);
    }
    initWasm(readFileSync(join(root, "build", "protokeel.wasm")));
  });

  test("rejects what is neither a Module nor bytes", () => {
    expect(() => initWasm("protokeel.wasm" as never)).toThrow(
      new TypeError("initWasm expects a WebAssembly.Module, an ArrayBuffer or a typed array of protokeel.wasm"),
    );
  });
});

test("initWasm() without an argument starts the inlined core", () => {
  const before = core();
  initWasm();
  expect(core()).not.toBe(before);
});
