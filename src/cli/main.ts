#!/usr/bin/env node
// The `protokeel` executable (package.json "bin"): the command line of ./cli.ts on this process.
// Node only: nothing the package's entries load imports this.
import { main } from "./cli.js";
import { processOutput } from "./output.js";

// A closed pipe (`protokeel decode … | head`) ends the output, not the process with a trace; the
// exit code is the command's when it has one (`check … | grep -q` exited 0 for an incompatible
// change). Any other failure to write (a full disk) is exit 2 with a message, not a stack trace
// and exit 1, which says "incompatible" or "bad data".
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
  process.stderr.write(`protokeel: cannot write the output: ${e.message}\n`);
  process.exit(2);
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
