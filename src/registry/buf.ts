// protokeel/registry/buf (Node only): compiles the .proto text a registry returns with buf, which
// an edge runtime cannot run (no processes). Registries that serve format=serialized never need it.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { findBuf } from "../node/find-buf.js";
import type { SchemaCompiler } from "./resolve.js";
import { MAX_TIMER_MS } from "./client.js";
import { quoted } from "../descriptor/names.js";
import { SchemaRegistryError } from "../errors.js";

/** How long one `buf build` may run by default: the registry's text is not the application's. */
const DEFAULT_TIMEOUT_MS = 60_000;

/** No buf to run (REGISTRY_COMPILER_UNAVAILABLE): thrown when the compiler is made. */
function unavailable(message: string): SchemaRegistryError {
  return new SchemaRegistryError("REGISTRY_COMPILER_UNAVAILABLE", message, { status: 0 });
}

/** A compilation that did not give a set (REGISTRY_COMPILE_FAILED): the promise rejects with it. */
function failed(message: string): SchemaRegistryError {
  return new SchemaRegistryError("REGISTRY_COMPILE_FAILED", message, { status: 0 });
}

function run(argv: string[], timeoutMs: number): Promise<void> {
  return new Promise((done, fail) => {
    execFile(argv[0]!, argv.slice(1), { encoding: "utf8", maxBuffer: 16 * 1024 * 1024, timeout: timeoutMs, killSignal: "SIGKILL" }, (error, _stdout, stderr) => {
      if (error === null) done();
      else if (error.killed) fail(failed(`buf did not finish within ${timeoutMs} ms (timeoutMs) and was stopped; check the schema, or raise timeoutMs`));
      else fail(failed(`buf failed: ${stderr.trim() || error.message}`));
    });
  });
}

export interface BufCompilerOptions {
  /**
   * The longest one compilation may run, in milliseconds (default 60,000): a schema a registry
   * serves comes from whoever registered it, and without a bound a build that never ends
   * stalled every record of its schema id.
   */
  readonly timeoutMs?: number;
}

/**
 * A SchemaCompiler that runs `buf build` on the files in a temporary folder (buf from
 * PROTOKEEL_BUF, an installed @bufbuild/buf, or PATH). Throws when buf is not installed.
 */
export function bufCompiler(options: BufCompilerOptions = {}): SchemaCompiler {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Above setTimeout's longest delay execFile's timer fires after 1 ms: every build was killed.
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMER_MS) {
    throw new RangeError(`bufCompiler: timeoutMs must be a positive integer of milliseconds up to ${MAX_TIMER_MS} (the longest timer delay, ~24.8 days), got ${String(timeoutMs)}`);
  }
  const buf = findBuf(unavailable);
  if (buf === undefined) {
    throw unavailable("bufCompiler: buf is not installed; run npm install --save-dev @bufbuild/buf (or put buf on PATH, or set PROTOKEEL_BUF)");
  }
  return async (files, main) => {
    const dir = await mkdtemp(join(tmpdir(), "protokeel-registry-"));
    try {
      const src = join(dir, "src");
      for (const [name, text] of Object.entries(files)) {
        const path = resolve(src, name);
        // An import path from the registry must stay inside the folder, and name a .proto file:
        // buf reads buf.yaml, buf.work.yaml and buf.lock there as its configuration (a reference
        // named buf.lock made buf fetch a module from the network).
        if (!path.startsWith(src + sep)) throw failed(`bufCompiler: import path ${quoted(name)} leaves the source folder`);
        if (!path.endsWith(".proto")) throw failed(`bufCompiler: import path ${quoted(name)} does not name a .proto file (buf would read it as its configuration, or not at all); the registry's references must name .proto files`);
        try {
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, text);
        } catch (e) {
          // A name the file system refuses (a NUL character, a part named as an existing file).
          throw failed(`bufCompiler: import path ${quoted(name)} cannot be written as a file: ${(e as Error)?.message ?? String(e)}`);
        }
      }
      const out = join(dir, "set.binpb");
      await run([...buf, "build", src, "--path", resolve(src, main), "--as-file-descriptor-set", "--exclude-source-info", "-o", out], timeoutMs);
      return new Uint8Array(await readFile(out));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}
