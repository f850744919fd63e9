// Child processes for the runtime stage: bounded in time, output collected, killed by their own
// pid (or process group) when the time is up.
import { spawn } from "node:child_process";
import { createServer } from "node:net";

/** Runs a command to completion (or kills it after timeoutMs); resolves { code, stdout, stderr, timedOut }. */
export function run(cmd, args, { cwd, env = process.env, timeoutMs = 60_000 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ code: -1, stdout, stderr: `${stderr}${e.message}`, timedOut });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

/** Starts a long-running process (a server); the caller stops it with stop(). */
export function start(cmd, args, { cwd, env = process.env } = {}) {
  const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exited = new Promise((resolve) => child.on("close", resolve));
  return {
    output: () => output,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The suite's result from a harness's stdout: the JSON after "SMOKE ". */
export function smokeLine(stdout) {
  const line = stdout.split("\n").find((l) => l.startsWith("SMOKE "));
  return line === undefined ? undefined : JSON.parse(line.slice("SMOKE ".length));
}

/** The last lines of a process's output, for a failure report. */
export const tail = (text, lines = 8) => text.trim().split("\n").slice(-lines).join("\n");
