// npm run test:runtimes: the packed tarball, installed into a scratch project, runs the public-API
// smoke suite (runtimes/smoke.mjs) in Node ESM, Node CJS, Deno, Bun, workerd and headless
// Chromium (after publint on the tarball). Prints one line per runtime and exits non-zero if any
// fails. Needs a built dist/
// (`npm run build`; `npm test` builds it). Runtimes come from devDependencies (runtimes/lib/).
// Usage: node runtimes/run.mjs [RUNTIME ...] [--keep]   e.g. node runtimes/run.mjs deno workerd
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { binaryPath, packageVersion } from "./lib/binaries.mjs";
import { runChromium } from "./lib/chromium.mjs";
import { ROOT } from "./lib/paths.mjs";
import { run, smokeLine, tail } from "./lib/proc.mjs";
import { createScratch } from "./lib/scratch.mjs";
import { runWorkerd } from "./lib/workerd.mjs";

/** A harness in its own process: the suite must pass and the package must resolve to `entry`. */
async function smokeProcess(cmd, args, { app, env }, entry) {
  const r = await run(cmd, args, { cwd: app, env: { ...process.env, NO_COLOR: "1", ...env } });
  const result = smokeLine(r.stdout);
  if (result === undefined) {
    return { ok: false, summary: r.timedOut ? "timed out" : `exit ${r.code}, no result`, problems: [tail(`${r.stderr}\n${r.stdout}`)] };
  }
  const problems = result.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.message}`);
  if (!result.entry.endsWith(`/node_modules/protokeel/${entry}`)) problems.push(`resolved ${result.entry}, expected …/protokeel/${entry}`);
  return { ok: problems.length === 0 && r.code === 0, summary: `${result.passed}/${result.checks.length} checks, ${entry}`, problems };
}

/** publint on the tarball itself: exports, imports, types and files as registries and bundlers read them. */
async function lintTarball({ tarball }) {
  const r = await run(join(ROOT, "node_modules", ".bin", "publint"), ["run", "--strict", tarball], { env: { ...process.env, NO_COLOR: "1" } });
  const ok = r.code === 0 && r.stdout.includes("All good!");
  return { ok, summary: ok ? "no issues (--strict)" : `exit ${r.code}`, problems: ok ? [] : [tail(`${r.stdout}\n${r.stderr}`, 20)] };
}

const RUNTIMES = {
  publint: { version: () => `publint ${packageVersion("publint")}`, run: lintTarball },
  "node-esm": { version: () => `Node ${process.versions.node}`, run: (s) => smokeProcess(process.execPath, ["esm.mjs"], s, "dist/index.js") },
  "node-cjs": { version: () => `Node ${process.versions.node}`, run: (s) => smokeProcess(process.execPath, ["cjs.cjs"], s, "dist/index.cjs") },
  deno: {
    version: () => `Deno ${packageVersion("deno")}`,
    run: (s) =>
      smokeProcess(binaryPath("deno"), ["run", "--allow-read", "--allow-env", "esm.mjs"], { ...s, env: { DENO_DIR: join(s.dir, "deno-cache"), DENO_NO_UPDATE_CHECK: "1" } }, "dist/index.js"),
  },
  bun: { version: () => `Bun ${packageVersion("bun")}`, run: (s) => smokeProcess(binaryPath("bun"), ["--no-install", "esm.mjs"], s, "dist/index.js") },
  workerd: { version: () => `workerd ${packageVersion("workerd")}`, run: runWorkerd },
  chromium: { version: () => `@sparticuz/chromium ${packageVersion("@sparticuz/chromium")}, playwright-core ${packageVersion("playwright-core")}`, run: runChromium },
};

const { values: args, positionals } = parseArgs({ allowPositionals: true, options: { keep: { type: "boolean", default: false } } });
const unknown = positionals.filter((p) => !(p in RUNTIMES));
if (unknown.length > 0) {
  console.error(`unknown runtime ${unknown.join(", ")}; runtimes: ${Object.keys(RUNTIMES).join(", ")}`);
  process.exit(2);
}
if (!existsSync(join(ROOT, "dist", "index.js"))) {
  console.error("dist/ is missing: run `npm run build` (or `npm test`) first");
  process.exit(2);
}

const started = Date.now();
const scratch = await createScratch();
console.log(`packed ${scratch.tarball.slice(scratch.dir.length + 1)} (${scratch.files.length} files), installed into ${scratch.app} (${((Date.now() - started) / 1000).toFixed(1)} s)`);

const width = Math.max(...Object.keys(RUNTIMES).map((n) => n.length));
let failed = 0;
for (const name of positionals.length > 0 ? positionals : Object.keys(RUNTIMES)) {
  const runtime = RUNTIMES[name];
  const t0 = Date.now();
  let outcome;
  try {
    outcome = await runtime.run(scratch);
  } catch (e) {
    outcome = { ok: false, summary: "could not run", problems: [e instanceof Error ? e.message : String(e)] };
  }
  let version;
  try {
    version = runtime.version();
  } catch {
    version = "version unknown";
  }
  if (!outcome.ok) failed++;
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  console.log(`${name.padEnd(width)}  ${outcome.ok ? "pass" : "FAIL"}  ${outcome.summary} (${version}; ${seconds} s)`);
  for (const p of outcome.problems) console.log(`${" ".repeat(width)}    ${p.replace(/\n/g, `\n${" ".repeat(width + 4)}`)}`);
}

if (args.keep) console.log(`kept ${scratch.dir}`);
else rmSync(scratch.dir, { recursive: true, force: true });
const total = positionals.length > 0 ? positionals.length : Object.keys(RUNTIMES).length;
console.log(`runtimes: ${total - failed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
process.exit(failed === 0 ? 0 : 1);
