#!/usr/bin/env node
// The `protokeel` executable (package.json "bin"): the command line of ./cli.ts on this process.
// Node only: nothing the package's entries load imports this.
import { main } from "./cli.js";
import { processOutput } from "./output.js";

// A closed pipe (`protokeel decode … | head`) ends the output, not the process with a trace.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(0);
  throw e;
});

main(process.argv.slice(2), processOutput()).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`protokeel: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\nthis is a protokeel bug, please report it\n`);
    process.exitCode = 2;
  },
);
