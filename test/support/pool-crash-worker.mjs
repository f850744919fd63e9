// A protokeel/pool worker for test/pool-lifecycle.test.ts: the built worker, whose task listener
// goes through a hook (pool-crash-hook.mjs, evaluated first) that sees each task before the worker
// answers it. An encode task whose first value is { exit: N } ends the worker with
// process.exit(N); { crash: "text" } throws from the listener (an uncaught error in the worker).
import "./pool-crash-hook.mjs";
import "../../dist/pool/worker.js";
