// npm run bench:runtimes: the harness the other runtimes run is plain JavaScript (it bundles for a
// browser without any Node API), and the command runs end to end in Node on one case (Deno, Bun
// and Chromium run the same bundle; npm run bench:runtimes runs them). No timed assertion.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, test } from "vitest";
import { RUNTIME_OPERATIONS, runtimeInfo } from "../bench/lib/runtime-main.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");

describe("bench:runtimes", () => {
  test("the shared harness bundles for a browser: no Node API in it", async () => {
    const result = await build({
      entryPoints: [join(repo, "bench", "lib", "runtime-main.mjs")],
      bundle: true,
      format: "esm",
      platform: "browser",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((p) => p.startsWith("bench/"))).toEqual(expect.arrayContaining(["bench/lib/suite.mjs", "bench/lib/check.mjs", "bench/lib/timing.mjs", "bench/adapters/protobuf-ts.mjs"]));
    expect(inputs.some((p) => p.endsWith("bench/lib/fixtures.mjs") || p.endsWith("bench/lib/paths.mjs"))).toBe(false);
  });

  test("the runtimes run the decode and both encode operations", () => {
    expect(RUNTIME_OPERATIONS).toEqual(["decode", "encode", "encode-plain"]);
    expect(runtimeInfo()).toEqual({ id: "node", version: `Node ${process.versions.node} (V8 ${process.versions.v8})` });
  });

  test.skipIf(!existsSync(join(repo, "dist", "index.js")))(
    "one case end to end in Node, from the bundle: a table, the summary and the results file",
    () => {
      const results = mkdtempSync(join(tmpdir(), "protokeel-bench-runtimes-"));
      const r = spawnSync(process.execPath, ["bench/runtimes.mjs", "node", "--filter", "^classic/decode/", "--time", "20", "--results", results], { cwd: repo, encoding: "utf8", timeout: 240_000 });
      expect(r.status, r.stderr).toBe(0);
      const row = r.stdout.split("\n").find((l) => l.startsWith("| classic decode |"));
      expect(row?.split("|").slice(2, -1).map((c) => c.trim().replace(/ \(.*\)$/, ""))).toEqual([expect.stringMatching(/^\d+\.\d+×$/), "1.00×", ...Array(4).fill(expect.stringMatching(/^\d+\.\d+×$/))]);
      expect(r.stdout).toContain("protokeel's ratio per runtime");
      const record = JSON.parse(readFileSync(join(results, "node", "latest.json"), "utf8"));
      expect(record.runtime).toMatchObject({ name: "node", id: "node", gc: true });
      expect(record.results.map((x: { codec: string; check: { ok: boolean } }) => [x.codec, x.check.ok])).toEqual([
        ["protokeel", true],
        ["pbjs-reflect", true],
        ["pbjs-static", true],
        ["bufbuild", true],
        ["pbf", true],
        ["protobuf-ts", true],
      ]);
    },
    240_000,
  );
});
