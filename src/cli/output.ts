// Where the command line writes: stdout with backpressure (a slow pipe must not make a large
// decode buffer its whole output), stderr for errors and progress.
import { once } from "node:events";

export interface Output {
  /** Writes text or bytes to stdout; resolves when the stream can take more. */
  stdout(data: string | Uint8Array): Promise<void> | void;
  stderr(text: string): void;
  /** True when stdout is a terminal (binary output is refused there). */
  readonly stdoutIsTTY: boolean;
  /** True when stderr is a terminal (progress lines are shown only there). */
  readonly stderrIsTTY: boolean;
}

export function processOutput(): Output {
  return {
    stdout(data) {
      if (!process.stdout.write(data)) return once(process.stdout, "drain").then(() => undefined);
      return undefined;
    },
    stderr(text) {
      process.stderr.write(text);
    },
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
  };
}

const BATCH_BYTES = 65536;
/** The longest a value waits in a batch that is not full. */
const BATCH_MS = 50;

/**
 * Many small lines or frames, written to stdout in pieces of about 64 KiB: one write per value
 * costs a system call per value on a pipe.
 */
export class Batch {
  private parts: (string | Uint8Array)[] = [];
  private size = 0;
  private timer: ReturnType<typeof setTimeout> | undefined = undefined;

  constructor(private readonly out: Output) {}

  async push(data: string | Uint8Array): Promise<void> {
    this.parts.push(data);
    this.size += data.length;
    if (this.size >= BATCH_BYTES) await this.flush();
    // Values of a live stream that stops short of a batch are written after BATCH_MS: they were
    // held until 64 KiB built up or the input ended (a stream that pauses showed nothing).
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.flush();
      }, BATCH_MS);
      this.timer.unref?.();
    }
  }

  async flush(): Promise<void> {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.parts.length === 0) return;
    const parts = this.parts;
    this.parts = [];
    this.size = 0;
    if (typeof parts[0] === "string") await this.out.stdout((parts as string[]).join(""));
    else {
      const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts as Uint8Array[]) {
        all.set(p, at);
        at += p.length;
      }
      await this.out.stdout(all);
    }
  }
}
