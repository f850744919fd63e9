// Where buf is, for the Node-only parts that compile .proto text (the command line and
// protokeel/registry/buf): PROTOKEEL_BUF, an installed @bufbuild/buf (from the working directory
// or beside protokeel), or buf on PATH. Nothing an entry of the core loads imports this file.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

/** The command that runs buf (argv prefix), undefined when there is none; `bad` makes the error for a PROTOKEEL_BUF that names no file. */
export function findBuf(bad: (message: string) => Error): string[] | undefined {
  const explicit = process.env.PROTOKEEL_BUF;
  if (explicit !== undefined && explicit !== "") {
    if (!existsSync(explicit)) throw bad(`PROTOKEEL_BUF names ${explicit}, which does not exist; point it at a buf executable or unset it`);
    return [explicit];
  }
  for (const from of [join(process.cwd(), "package.json"), import.meta.url]) {
    try {
      const script = createRequire(from).resolve("@bufbuild/buf/bin/buf");
      return [process.execPath, script];
    } catch {
      // not installed there
    }
  }
  const probe = spawnSync("buf", ["--version"], { stdio: "ignore" });
  return probe.status === 0 ? ["buf"] : undefined;
}
