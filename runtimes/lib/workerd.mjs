// workerd (`workerd serve`, the runtime of Cloudflare Workers) with two workers, each bundled by
// esbuild from the installed package as wrangler bundles a worker (the .wasm import left to
// workerd as a wasm module):
// - "workerd-entry": the "workerd" export condition, so dist/workerd.js, whose import of
//   ./protokeel.wasm workerd compiles; the smoke suite must pass as is.
// - "default-entry": no "workerd" condition, so dist/index.js with the inline bytes, which
//   workerd refuses to compile; the first decode must fail with the documented CodecError and the
//   suite must pass after initWasm(module of protokeel/protokeel.wasm).
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { binaryPath } from "./binaries.mjs";
import { freePort, start, tail } from "./proc.mjs";

const COMPATIBILITY_DATE = "2026-11-01";

const WORKERS = {
  "workerd-entry": { source: "worker-workerd.mjs", conditions: ["workerd", "worker", "browser"] },
  "default-entry": { source: "worker-default.mjs", conditions: ["worker", "browser"] },
};

/** Bundles the worker; returns the dist/ files of protokeel that the bundle took. */
async function bundleWorker(app, out, { source, conditions }) {
  const result = await build({
    entryPoints: [join(app, source)],
    outfile: join(out, "worker.js"),
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    conditions,
    mainFields: ["module", "main"],
    metafile: true,
    logLevel: "silent",
    // Every .wasm import becomes the module named "protokeel.wasm" beside the worker.
    plugins: [{ name: "wasm-module", setup: (b) => b.onResolve({ filter: /\.wasm$/ }, () => ({ path: "./protokeel.wasm", external: true })) }],
  });
  return Object.keys(result.metafile.inputs).filter((p) => p.includes("node_modules/protokeel/dist/")).map((p) => p.slice(p.indexOf("dist/")));
}

function capnpConfig(ports) {
  const services = Object.keys(WORKERS).map((name) => `    (name = "${name}", worker = (
      modules = [
        (name = "worker.js", esModule = embed "${name}/worker.js"),
        (name = "protokeel.wasm", wasm = embed "${name}/protokeel.wasm"),
      ],
      compatibilityDate = "${COMPATIBILITY_DATE}",
    )),`);
  const sockets = Object.keys(WORKERS).map((name) => `    (name = "${name}", address = "127.0.0.1:${ports[name]}", http = (), service = "${name}"),`);
  return `using Workerd = import "/workerd/workerd.capnp";\n\nconst config :Workerd.Config = (\n  services = [\n${services.join("\n")}\n  ],\n  sockets = [\n${sockets.join("\n")}\n  ],\n);\n`;
}

async function fetchWhenUp(url, server, deadline) {
  for (;;) {
    try {
      return await (await fetch(url)).json();
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`no answer from ${url}: ${e.message}\n${tail(server.output())}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Runs both workers; returns { ok, summary, problems, entries }. */
export async function runWorkerd({ app, dir }) {
  const root = join(dir, "workerd");
  const entries = {};
  const ports = {};
  for (const [name, worker] of Object.entries(WORKERS)) {
    const out = join(root, name);
    mkdirSync(out, { recursive: true });
    entries[name] = await bundleWorker(app, out, worker);
    copyFileSync(join(app, "node_modules", "protokeel", "dist", "protokeel.wasm"), join(out, "protokeel.wasm"));
    ports[name] = await freePort();
  }
  writeFileSync(join(root, "config.capnp"), capnpConfig(ports));

  const server = start(binaryPath("workerd"), ["serve", "config.capnp"], { cwd: root });
  const problems = [];
  try {
    const deadline = Date.now() + 30_000;
    const own = await fetchWhenUp(`http://127.0.0.1:${ports["workerd-entry"]}/`, server, deadline);
    const viaDefault = await fetchWhenUp(`http://127.0.0.1:${ports["default-entry"]}/`, server, deadline);

    if (!entries["workerd-entry"].includes("dist/workerd.js")) problems.push(`the workerd condition did not select dist/workerd.js (bundled: ${entries["workerd-entry"].join(", ")})`);
    if (entries["workerd-entry"].includes("dist/wasm/inline.js")) problems.push("the workerd bundle carries the inline core (dist/wasm/inline.js)");
    if (!entries["default-entry"].includes("dist/index.js")) problems.push("the default-entry worker did not bundle dist/index.js");
    for (const c of own.checks.filter((c) => !c.ok)) problems.push(`workerd entry: ${c.name}: ${c.message}`);

    const { before } = viaDefault;
    if (!before.threw) problems.push("default entry: the first decode worked without initWasm (expected workerd to refuse compiling the inline bytes)");
    else if (before.name !== "CodecError" || before.code !== "WASM_INSTANTIATION_FAILED" || !before.message.includes("initWasm")) {
      problems.push(`default entry: expected CodecError WASM_INSTANTIATION_FAILED naming initWasm, got ${before.name} ${before.code}: ${before.message}`);
    }
    for (const c of viaDefault.checks.filter((c) => !c.ok)) problems.push(`default entry after initWasm: ${c.name}: ${c.message}`);

    const summary =
      `workerd entry ${own.passed}/${own.checks.length} checks; default entry: ${before.code ?? "no error"} before initWasm, ` +
      `${viaDefault.passed}/${viaDefault.checks.length} checks after`;
    return { ok: problems.length === 0, summary, problems };
  } finally {
    await server.stop();
  }
}
