// See pool-crash-worker.mjs. parentPort (a MessagePort) has no prependListener: its `on` is
// wrapped before the worker module registers its listener.
import { parentPort } from "node:worker_threads";

const on = parentPort.on.bind(parentPort);
parentPort.on = (event, listener) =>
  on(event, event !== "message" ? listener : (task) => {
    const first = task.op === "encode" ? task.values[0] : undefined;
    if (first?.exit !== undefined) process.exit(first.exit);
    if (first?.crash !== undefined) throw new Error(first.crash);
    listener(task);
  });
