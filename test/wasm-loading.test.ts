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

  // Modules that instantiate (valid WebAssembly, no imports) but are not protokeel's core: each
  // was accepted before, and the next core call threw a TypeError and left the memory set-up half
  // done, so that the call after it never returned.
  const core0 = readFileSync(join(root, "build", "protokeel.wasm"));
  const exportsOf = (m: WebAssembly.Module) => Object.fromEntries(WebAssembly.Module.exports(m).map((e) => [e.name, e.kind]));
  const arities = Object.entries(new WebAssembly.Instance(new WebAssembly.Module(core0), {}).exports).flatMap(([name, v]) =>
    typeof v === "function" ? [[name, v.length] as [string, number]] : [],
  );
  test.each([
    ["an empty module", moduleBytes(false, []), "the module exports no memory"],
    ["a module with a memory only", moduleBytes(true, []), "the module has no export heapBase"],
    ["every export but one", moduleBytes(true, arities.filter(([n]) => n !== "writePacked")), "the module has no export writePacked"],
    [
      "an export with other parameters",
      moduleBytes(true, arities.map(([n, k]) => [n, n === "walk" ? k - 1 : k])),
      "its export walk takes 11 parameters, not 12",
    ],
  ])("rejects %s, keeps the core it had, and reads on", (_, bytes, why) => {
    const layout = layoutOf(messageFromDir("fixtures/core", "core.test.Node"));
    const input = Uint8Array.from([0x18, 5]);
    const limits = { maxMessageBytes: 100, maxDepth: 10 };
    const before = core();
    const message = `cannot start the protokeel core: the WebAssembly module is not protokeel's core (${why}); pass the protokeel.wasm shipped with this version to initWasm`;
    for (const given of [bytes, new WebAssembly.Module(bytes)]) {
      let error: unknown;
      try {
        initWasm(given);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(CodecError);
      expect(error).toMatchObject({ code: "WASM_INSTANTIATION_FAILED", message });
      expect(core()).toBe(before);
      for (let i = 0; i < 3; i++) expect(walkMessage(layout.typeOffset, input, limits).count).toBe(3);
    }
    // The hand-made module is what the test means: the same names as the core where it says so.
    if (why.startsWith("its export")) expect(exportsOf(new WebAssembly.Module(bytes))).toEqual(exportsOf(new WebAssembly.Module(core0)));
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

/**
 * A WebAssembly module (binary format 1) with an optional exported memory and one exported
 * function per (name, parameter count): i32 parameters, no results, an empty body.
 */
function moduleBytes(memory: boolean, fns: readonly (readonly [string, number])[]): Uint8Array<ArrayBuffer> {
  const u32 = (n: number): number[] => {
    const out: number[] = [];
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n !== 0) b |= 0x80;
      out.push(b);
    } while (n !== 0);
    return out;
  };
  const vec = (items: number[][]): number[] => [...u32(items.length), ...items.flat()];
  const name = (s: string): number[] => [...u32(s.length), ...new TextEncoder().encode(s)];
  const section = (id: number, body: number[]): number[] => [id, ...u32(body.length), ...body];
  const out = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  if (fns.length > 0) {
    out.push(...section(1, vec(fns.map(([, k]) => [0x60, ...vec(Array.from({ length: k }, () => [0x7f])), 0]))));
    out.push(...section(3, vec(fns.map((_, i) => u32(i)))));
  }
  if (memory) out.push(...section(5, vec([[0x00, 0x01]])));
  const exports = fns.map(([n], i) => [...name(n), 0x00, ...u32(i)]);
  if (memory) exports.push([...name("memory"), 0x02, 0x00]);
  if (exports.length > 0) out.push(...section(7, vec(exports)));
  if (fns.length > 0) out.push(...section(10, vec(fns.map(() => [0x02, 0x00, 0x0b]))));
  return Uint8Array.from(out);
}
