// Headless Chromium driven by playwright-core. Playwright's own browser download is not used:
// the binary comes from the @sparticuz/chromium npm tarball (brotli-compressed chromium plus the
// NSS libraries it links, built for Amazon Linux and self-contained enough for any x64 glibc
// Linux), unpacked once into a cache folder. The page is served from 127.0.0.1 with the CSP
// script-src 'self' 'wasm-unsafe-eval' and loads one module bundled by esbuild from the installed
// package's ESM build (as a web app would be), then runs the smoke suite.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { build } from "esbuild";
import { packageVersion } from "./binaries.mjs";
import { ROOT } from "./paths.mjs";

export const CSP = "script-src 'self' 'wasm-unsafe-eval'";

/** Unpacks chromium and its libraries once per @sparticuz/chromium version; returns { executable, libs }. */
export function chromiumBinary() {
  const version = packageVersion("@sparticuz/chromium");
  const cache = join(tmpdir(), `protokeel-chromium-${version}`);
  const executable = join(cache, "chromium");
  const libs = join(cache, "lib");
  if (existsSync(executable)) return { executable, libs };
  if (process.platform !== "linux" || process.arch !== "x64") throw new Error(`@sparticuz/chromium ships a linux-x64 binary; this is ${process.platform}-${process.arch}`);
  const bin = join(ROOT, "node_modules", "@sparticuz", "chromium", "bin");
  const partial = `${cache}.${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const tar = spawnSync("tar", ["-x", "-C", partial], { input: brotliDecompressSync(readFileSync(join(bin, "al2023.tar.br"))) });
  if (tar.status !== 0) throw new Error(`cannot unpack al2023.tar.br: ${tar.stderr}`);
  writeFileSync(join(partial, "chromium"), brotliDecompressSync(readFileSync(join(bin, "chromium.br"))));
  chmodSync(join(partial, "chromium"), 0o755);
  // Another run may have finished first; either copy is complete.
  if (existsSync(executable)) rmSync(partial, { recursive: true, force: true });
  else renameSync(partial, cache);
  return { executable, libs };
}

/** Serves the page and its module with the CSP; resolves the listening server and its URL. */
function servePage(files) {
  const server = createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    const file = files[path === "/" ? "/index.html" : path];
    if (file === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": file.type, "content-security-policy": CSP, "cache-control": "no-store" }).end(file.body);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/` })));
}

/** Runs the page in Chromium; returns { ok, summary, problems }. */
export async function runChromium({ app }) {
  const bundle = await build({
    entryPoints: [join(app, "page.mjs")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const entries = Object.keys(bundle.metafile.inputs).filter((p) => p.includes("node_modules/protokeel/dist/"));
  const { server, url } = await servePage({
    "/index.html": { type: "text/html; charset=utf-8", body: readFileSync(join(app, "page.html")) },
    "/page.js": { type: "text/javascript; charset=utf-8", body: bundle.outputFiles[0].contents },
  });
  const { chromium } = await import("playwright-core");
  const { executable, libs } = chromiumBinary();
  const browser = await chromium.launch({
    executablePath: executable,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    env: { ...process.env, LD_LIBRARY_PATH: [libs, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":") },
    timeout: 60_000,
  });
  const problems = [];
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const response = await page.goto(url);
    if (response?.headers()["content-security-policy"] !== CSP) problems.push("the page was not served with the CSP");
    const result = await page.waitForFunction(() => window.smokeResult, undefined, { timeout: 30_000 }).then((h) => h.jsonValue(), (e) => {
      throw new Error(`the page did not finish: ${e.message}; page errors: ${errors.join("; ") || "none"}`);
    });
    if (!entries.some((p) => p.endsWith("dist/index.js"))) problems.push("the page's bundle did not take dist/index.js");
    if (!result.evalBlocked) problems.push("the CSP did not block new Function: the test would prove nothing");
    for (const v of result.violations) problems.push(`CSP violation while running the suite: ${v}`);
    for (const c of result.checks.filter((c) => !c.ok)) problems.push(`${c.name}: ${c.message}`);
    for (const e of errors) problems.push(`page error: ${e}`);
    const version = browser.version();
    return { ok: problems.length === 0, summary: `${result.passed}/${result.checks.length} checks, Chromium ${version}, CSP ${CSP}`, problems };
  } finally {
    await browser.close();
    server.close();
  }
}
