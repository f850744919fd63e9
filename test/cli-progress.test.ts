// The command line in-process, where a terminal can be pretended: a progress line on stderr for
// inputs over 8 MiB when stderr is a terminal (and only then), and no binary output to a
// terminal's stdout.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { main } from "../src/cli/cli.js";
import { PROGRESS_MIN_BYTES } from "../src/cli/data-commands.js";
import type { Output } from "../src/cli/output.js";
import { ProtobufType } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";

let dir: string;

function terminal(tty: { stdout: boolean; stderr: boolean }): Output & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (d) => void out.push(typeof d === "string" ? d : `<${d.length} bytes>`),
    stderr: (t) => void err.push(t),
    stdoutIsTTY: tty.stdout,
    stderrIsTTY: tty.stderr,
  };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "protokeel-cli-progress-"));
  const set = compileProtoText({ "blob.proto": 'syntax = "proto3";\npackage t;\nmessage Blob { bytes data = 1; }\n' });
  writeFileSync(join(dir, "blob.binpb"), set);
  const ser = ProtobufType.of({ fileDescriptorSet: set, messageName: "t.Blob" }).createSerializer();
  // 9 MiB of frames: over the progress threshold.
  const frames = Array.from({ length: 9 * 16 }, () => ({ data: new Uint8Array(65536 - 8) }));
  writeFileSync(join(dir, "blobs.bin"), ser.encodeAll(frames));
  expect(readFileSync(join(dir, "blobs.bin")).length).toBeGreaterThan(PROGRESS_MIN_BYTES);
  writeFileSync(join(dir, "small.bin"), ser.encodeAll(frames.slice(0, 2)));
});

const decode = (file: string, out: Output) => main(["decode", "--schema", join(dir, "blob.binpb"), "--message", "t.Blob", "--framed", join(dir, file)], out);

describe("progress", () => {
  test("a large file on a terminal: a progress line, rewritten in place, ended by a newline", async () => {
    const t = terminal({ stdout: false, stderr: true });
    expect(await decode("blobs.bin", t)).toBe(0);
    const last = t.err.at(-2)!;
    expect(last).toMatch(/^\rdecoding .*blobs\.bin: 9\.0 of 9\.0 MB \(100%\), 144 frames$/);
    expect(t.err.at(-1)).toBe("\n");
    expect(t.out.join("").split("\n").length).toBe(145);
  });

  test("no progress when stderr is not a terminal, or for a small file", async () => {
    const piped = terminal({ stdout: false, stderr: false });
    expect(await decode("blobs.bin", piped)).toBe(0);
    expect(piped.err).toEqual([]);
    const small = terminal({ stdout: false, stderr: true });
    expect(await decode("small.bin", small)).toBe(0);
    expect(small.err).toEqual([]);
  });
});

test("encode refuses to write binary to a terminal", async () => {
  const t = terminal({ stdout: true, stderr: true });
  expect(await main(["encode", "--schema", join(dir, "blob.binpb"), "--message", "t.Blob", "-"], t)).toBe(2);
  expect(t.err).toEqual(["protokeel: refusing to write binary to a terminal; redirect stdout to a file or a pipe\n"]);
});
