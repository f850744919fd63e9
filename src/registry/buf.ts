// protokeel/registry/buf (Node only): compiles the .proto text a registry returns with buf, which
// an edge runtime cannot run (no processes). Registries that serve format=serialized never need it.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { findBuf } from "../node/find-buf.js";
import type { SchemaCompiler } from "./resolve.js";
import { quoted } from "../descriptor/names.js";

function run(argv: string[]): Promise<void> {
  return new Promise((done, fail) => {
    execFile(argv[0]!, argv.slice(1), { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error === null) done();
      else fail(new Error(`buf failed: ${stderr.trim() || error.message}`));
    });
  });
}

/**
 * A SchemaCompiler that runs `buf build` on the files in a temporary folder (buf from
 * PROTOKEEL_BUF, an installed @bufbuild/buf, or PATH). Throws when buf is not installed.
 */
export function bufCompiler(): SchemaCompiler {
  const buf = findBuf((m) => new Error(m));
  if (buf === undefined) {
    throw new Error("bufCompiler: buf is not installed; run npm install --save-dev @bufbuild/buf (or put buf on PATH, or set PROTOKEEL_BUF)");
  }
  return async (files, main) => {
    const dir = await mkdtemp(join(tmpdir(), "protokeel-registry-"));
    try {
      const src = join(dir, "src");
      for (const [name, text] of Object.entries(files)) {
        const path = resolve(src, name);
        // An import path from the registry must stay inside the folder.
        if (!path.startsWith(src + sep)) throw new Error(`bufCompiler: import path ${quoted(name)} leaves the source folder`);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, text);
      }
      const out = join(dir, "set.binpb");
      await run([...buf, "build", src, "--path", resolve(src, main), "--as-file-descriptor-set", "--exclude-source-info", "-o", out]);
      return new Uint8Array(await readFile(out));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}
