// README doc test: every code block of README.md that is meant to run runs against the built
// package (dist/, through the package's own "exports", as an installed copy resolves it), and
// prints what its comments say. The conventions:
//
// - ```js and ```ts blocks run, each as its own ES module, in README order, in one scratch folder
//   (so a block can read a file that an earlier block or command wrote). `protokeel` resolves to
//   this checkout's package, other bare imports to the dev dependencies. ```ts blocks are first
//   type-checked with `tsc --noEmit --strict` against dist/index.d.ts.
// - Expected output, checked line by line against what the block prints, in block order:
//     console.log(…); // TEXT     the line printed must be TEXT (the comment ends the line)
//     EXPRESSION; // → VALUE      the statement's value, shown as Node's util.inspect shows it
//                                 (the REPL's form, on one line), must be VALUE
//   Every console.log in a block must say what it prints, except one that prints the block's
//   `<!-- doctest: output -->` block (see below). Other comments are prose, not checked.
// - An HTML comment on the line before a fence (invisible on the rendered page) changes that:
//     <!-- doctest: skip: REASON -->      not run (a reason is required)
//     <!-- doctest: defines NAME -->      (on a ```ts block) a setup, not run on its own: a module
//                                         exporting the names fragments use freely (PRELUDES)
//     <!-- doctest: prelude NAME -->      the block runs after the setup NAME, which comes first
//     <!-- doctest: output -->            (on a ```text block) the lines printed by the previous
//                                         block's console.log that has no comment
//     <!-- doctest: file PATH -->         (on any block) its text is written to PATH first
//     <!-- doctest: run -->               (on a ```sh block) run with bash; `npx X` runs this
//                                         checkout's node_modules/.bin/X (`npx protokeel`: this
//                                         checkout's built command line); must exit 0
//     <!-- doctest: run: exit N -->       the same, and must exit N
//   A ```text block marked <!-- doctest: output --> right after a ```sh run block is what the
//   commands print on stdout, exactly.
//   ```sh blocks without `run`, ```text, ```proto and unlabelled blocks are not run.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { transformSync } from "esbuild";
import { beforeAll, describe, expect, test } from "vitest";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const readme = readFileSync(join(repo, "README.md"), "utf8");

interface Block {
  /** 1-based line of the block's first code line in README.md. */
  line: number;
  lang: string;
  code: string;
  /** The directive on the line before the fence: ["skip", reason], ["prelude", name], … */
  directive?: [string, string];
  section: string;
}

function parseBlocks(text: string): Block[] {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  let section = "";
  for (let i = 0; i < lines.length; i++) {
    const heading = /^#{1,4} (.*)/.exec(lines[i]!);
    if (heading) section = heading[1]!;
    const fence = /^```(\S*)/.exec(lines[i]!);
    if (!fence) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end] !== "```") end++;
    const comment = /^<!-- doctest: (\w+):? ?(.*?) ?-->$/.exec(lines[i - 1] ?? "");
    blocks.push({
      line: start + 1,
      lang: fence[1]!,
      code: lines.slice(start, end).join("\n"),
      directive: comment ? [comment[1]!, comment[2]!] : undefined,
      section,
    });
    i = end;
  }
  return blocks;
}

const blocks = parseBlocks(readme);
const where = (b: Block) => `README.md:${b.line} (${b.section})`;
const isCode = (b: Block) => b.lang === "js" || b.lang === "ts";
/**
 * Setups for fragments (`<!-- doctest: defines NAME -->` blocks, in the README so that a reader
 * can run the fragments too): each is a TypeScript module exporting the names its fragments use.
 */
const PRELUDES: Record<string, string> = Object.fromEntries(
  blocks.filter((b) => b.directive?.[0] === "defines").map((b) => [b.directive![1], b.code]),
);
const runnable = blocks.filter(
  (b) => (isCode(b) && b.directive?.[0] !== "skip" && b.directive?.[0] !== "defines") || (b.lang === "sh" && b.directive?.[0] === "run"),
);

/** One expected output line and the README line that says it. */
interface Expected {
  line: number;
  text: string;
}

const CONSOLE_LOG = /\bconsole\.log\(.*?(?:\/\/ (.*))?$/;
const ARROW = /^(\s*)(.*?);\s*\/\/ → (.*)$/;

/** The lines a block must print, and its code with each `// →` statement made to print its value. */
function expectations(block: Block): { expected: Expected[]; code: string } {
  const output = blocks[blocks.indexOf(block) + 1];
  const outputLines = output?.directive?.[0] === "output" ? output.code.split("\n") : undefined;
  const expected: Expected[] = [];
  let usedOutput = false;
  const code = block.code.split("\n").map((text, k) => {
    const line = block.line + k;
    const arrow = ARROW.exec(text);
    if (arrow) {
      if (/^(const|let|var|import|export|return)\b/.test(arrow[2]!)) {
        throw new Error(`README.md:${line}: a "// →" comment must follow an expression statement, not a declaration`);
      }
      expected.push({ line, text: arrow[3]! });
      return `${arrow[1]}__show((${arrow[2]}));`;
    }
    const log = CONSOLE_LOG.exec(text);
    if (log && log[1] !== undefined) expected.push({ line, text: log[1] });
    else if (log) {
      if (outputLines === undefined || usedOutput) {
        throw new Error(`README.md:${line}: console.log without a "// …" comment saying what it prints (or a <!-- doctest: output --> block after the code block)`);
      }
      usedOutput = true;
      expected.push(...outputLines.map((t, j) => ({ line: output!.line + j, text: t })));
    }
    return text;
  });
  return { expected, code: code.join("\n") };
}

/** `import { a, b } from "./prelude-x.js";` for a prelude's exported names. */
function preludeImport(name: string): string {
  const source = PRELUDES[name];
  if (source === undefined) throw new Error(`unknown prelude "${name}"; preludes: ${Object.keys(PRELUDES).join(", ")}`);
  const names = [...source.matchAll(/^\s*export (?:const|let|function|async function) (\w+)/gm)].map((m) => m[1]);
  return `import { ${names.join(", ")} } from "./prelude-${name}.js";`;
}

/** The packages a runnable block imports (bare specifiers, not node: builtins, not protokeel). */
function importedPackages(code: string): string[] {
  return [...code.matchAll(/^import .*? from "([^"]+)";/gm)]
    .map((m) => m[1]!)
    .filter((s) => !s.startsWith(".") && !s.startsWith("node:"))
    .map((s) => (s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : s.split("/")[0]!))
    .filter((p) => p !== "protokeel");
}

let scratch: string;
const fileOf = (b: Block, ext: string) => `block-${b.line}.${ext}`;
const HEADER = `import { inspect as __inspect } from "node:util"; const __show = (v) => console.log(__inspect(v, { depth: 8, breakLength: Infinity }));`;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "protokeel-readme-"));
  writeFileSync(join(scratch, "package.json"), JSON.stringify({ name: "readme-doctest", private: true, type: "module" }));
  // An installed-package view: "protokeel" is this checkout (its package.json "exports" and
  // "types" decide what resolves), the rest are the dev dependencies.
  mkdirSync(join(scratch, "node_modules", ".bin"), { recursive: true });
  symlinkSync(repo, join(scratch, "node_modules", "protokeel"));
  // As npm links a package's "bin" on install.
  symlinkSync(join("..", "protokeel", "dist", "cli", "main.js"), join(scratch, "node_modules", ".bin", "protokeel"));
  for (const dep of ["protobufjs", "@bufbuild", "@noble", "@types"]) {
    symlinkSync(join(repo, "node_modules", dep), join(scratch, "node_modules", dep));
  }
  for (const b of blocks.filter((b) => b.directive?.[0] === "file")) {
    const path = join(scratch, b.directive![1]);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${b.code}\n`);
  }
  for (const [name, source] of Object.entries(PRELUDES)) {
    writeFileSync(join(scratch, `prelude-${name}.ts`), source);
    writeFileSync(join(scratch, `prelude-${name}.js`), transformSync(source, { loader: "ts", format: "esm" }).code);
  }
});

describe("README.md code blocks", () => {
  test("every directive is known and every skip gives a reason", () => {
    const bad = blocks
      .filter((b) => b.directive !== undefined)
      .filter((b) => {
        const { directive: [kind, arg] = ["", ""], lang } = b;
        if (kind === "skip") return arg.length < 10 || !isCode({ lang } as Block);
        // A fragment's setup comes before it, once: what a reader going down the page has seen.
        if (kind === "prelude") return !(arg in PRELUDES) || blocks.findIndex((d) => d.directive?.[0] === "defines" && d.directive[1] === arg) > blocks.indexOf(b);
        if (kind === "defines") return lang !== "ts" || blocks.filter((d) => d.directive?.[0] === "defines" && d.directive[1] === arg).length !== 1;
        if (kind === "file") return arg === "";
        if (kind === "run") return lang !== "sh";
        return kind !== "output";
      })
      .map((b) => `${where(b)}: <!-- doctest: ${b.directive!.join(" ")} --> on a \`\`\`${b.lang} block`);
    expect(bad).toEqual([]);
  });

  test("every package a block imports is named in an install command of the Install section", () => {
    const install = blocks.filter((b) => b.section === "Install" && b.lang === "sh").map((b) => b.code).join("\n");
    const named = new Set([...install.matchAll(/npm install ([^#\n]+)/g)].flatMap((m) => m[1]!.trim().split(/\s+/)));
    const missing = runnable
      .filter(isCode)
      .flatMap((b) => importedPackages(b.code).filter((p) => !named.has(p)).map((p) => `${where(b)} imports ${p}`));
    expect(missing).toEqual([]);
  });

  test("the TypeScript blocks type-check under --strict against dist/index.d.ts", () => {
    const ts = runnable.filter((b) => b.lang === "ts");
    const dir = join(scratch, "typecheck");
    mkdirSync(dir, { recursive: true });
    for (const b of ts) {
      // The first line holds the prelude's import, so that line N of the file is README line b.line + N - 2.
      const first = b.directive?.[0] === "prelude" ? preludeImport(b.directive[1]).replace("./", "../") : "export {};";
      writeFileSync(join(dir, fileOf(b, "ts")), `${first}\n${b.code}\n`);
    }
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", types: ["node"], skipLibCheck: true },
        include: ["*.ts", "../prelude-*.ts"],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(repo, "node_modules", "typescript", "bin", "tsc"), "-p", "."], { cwd: dir, encoding: "utf8" });
    // "block-123.ts(4,7): error TS…" → "README.md:125: error TS…"
    const errors = tsc.stdout
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => l.replace(/^(?:.*\/)?block-(\d+)\.ts\((\d+),(\d+)\)/, (_, start, line, col) => `README.md:${Number(start) + Number(line) - 2}:${col}`));
    expect(errors).toEqual([]);
  });

  test.each(runnable.map((b) => [where(b), b] as const))("%s runs and prints what its comments say", (_name, block) => {
    if (block.lang === "sh") {
      const bin = join(repo, "node_modules", ".bin");
      const npx = `npx() { if [ -x "node_modules/.bin/$1" ]; then "node_modules/.bin/$1" "\${@:2}"; else "${bin}/$1" "\${@:2}"; fi; }`;
      const sh = spawnSync("bash", ["-euo", "pipefail", "-c", `${npx}\n${block.code}`], { cwd: scratch, encoding: "utf8" });
      const exit = Number(/^exit (\d+)$/.exec(block.directive![1])?.[1] ?? 0);
      expect(sh.status, `${where(block)} exited ${sh.status}:\n${sh.stderr}`).toBe(exit);
      const output = blocks[blocks.indexOf(block) + 1];
      if (output?.directive?.[0] === "output") expect(sh.stdout.replace(/\n$/, ""), `${where(block)}: its stdout`).toBe(output.code);
      return;
    }
    const { expected, code } = expectations(block);
    const first = block.directive?.[0] === "prelude" ? `${preludeImport(block.directive[1])} ${HEADER}` : HEADER;
    const source = `${first}\n${code}\n`;
    const js = block.lang === "ts" ? transformSync(source, { loader: "ts", format: "esm", sourcemap: "inline", sourcefile: fileOf(block, "ts") }).code : source;
    writeFileSync(join(scratch, fileOf(block, "mjs")), js);
    const run = spawnSync(process.execPath, ["--enable-source-maps", fileOf(block, "mjs")], { cwd: scratch, encoding: "utf8" });
    // Line N of the file is README line block.line + N - 2: name README lines in stack traces.
    const stderr = run.stderr.replace(/(?:file:\/\/)?[^\s(]*block-\d+\.(?:mjs|ts):(\d+)/g, (_, n) => `README.md:${block.line + Number(n) - 2}`);
    expect(run.status, `${where(block)} threw:\n${stderr}`).toBe(0);
    const printed = run.stdout.replace(/\n$/, "").split("\n").filter((_, i, all) => all.length > 1 || all[0] !== "");
    // Each printed line next to the README line that expects it, so a mismatch names its line.
    const label = (i: number) => `README.md:${expected[i]?.line ?? "?"}`;
    expect(printed.map((t, i) => `${label(i)}  ${t}`)).toEqual(expected.map((e, i) => `${label(i)}  ${e.text}`));
  });
});

describe("README.md references", () => {
  test("every relative link names a file in the repository and in the published package (npm shows this README)", () => {
    const links = [...readme.matchAll(/\]\((?!https?:|#)([^)]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    const missing = links.filter((l) => spawnSync("test", ["-e", join(repo, l)]).status !== 0);
    expect(missing).toEqual([]);
    const packed = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: repo, encoding: "utf8" }));
    const files = new Set(packed[0].files.map((f: { path: string }) => f.path));
    expect(links.filter((l) => !files.has(l))).toEqual([]);
  });

  test("the benchmark chart is an image the published package serves, at this version", () => {
    const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
    const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]!);
    expect(images).toEqual([`https://cdn.jsdelivr.net/npm/${pkg.name}@${pkg.version}/bench/results/latest.svg`]);
    const packed = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: repo, encoding: "utf8" }));
    expect(packed[0].files.map((f: { path: string }) => f.path)).toContain("bench/results/latest.svg");
  });
});
