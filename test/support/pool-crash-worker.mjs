// A protokeel/pool worker for test/pool-lifecycle.test.ts: the built worker, behind a listener
// that sees each task first. An encode task whose first value is { exit: N } ends the worker with
// process.exit(N); { crash: "text" } throws from the listener (an uncaught error in the worker).
// Registered before the worker is imported, so it runs before the worker answers.
import { parentPort } from "node:worker_threads";

parentPort.on("message", (task) => {
  const first = task.op === "encode" ? task.values[0] : undefined;
  if (first?.exit !== undefined) process.exit(first.exit);
  if (first?.crash !== undefined) throw new Error(first.crash);
});
await import("../../dist/pool/worker.js");
