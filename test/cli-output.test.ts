// The command line's output and input bounds, run as a process from the built package (an attack
// on the CLI): a reader that closes the pipe early no longer turns an incompatible `check` into
// exit 0; a failed write (a full disk) is exit 2 with a message, not a stack trace and exit 1;
// values of a live stream are written while it pauses, not held until 64 KiB or its end; an
// `encode` of one document counts its lines as they come (all were kept, then measured); and a
// schema without messages says so.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, openSync, closeSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(repo, "dist", "cli", "main.js");
let dir: string;

/** A message of 2,000 fields: a change of every field's type makes a report of ~600 KB. */
const wide = (type: string) => `syntax = "proto3"; package w; message M { ${Array.from({ length: 2000 }, (_, i) => `${type} f${i} = ${i + 1};`).join(" ")} }`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "protokeel-cli-output-"));
  writeFileSync(join(dir, "a.binpb"), compileProtoText({ "w.proto": wide("int32") }));
  writeFileSync(join(dir, "b.binpb"), compileProtoText({ "w.proto": wide("string") }));
  const small = compileProtoText({ "s.proto": 'syntax = "proto3"; package s; message M { string note = 1; }' });
  writeFileSync(join(dir, "small.binpb"), small);
  writeFileSync(join(dir, "tiny.type"), ProtobufType.newBuilder({ fileDescriptorSet: small, messageName: "s.M" }).maxMessageBytes(16).build().toBytes());
  writeFileSync(join(dir, "enums.binpb"), compileProtoText({ "e.proto": 'syntax = "proto3"; package e; enum E { E_ZERO = 0; }' }));
});

test("check: a reader that closes the pipe early does not change the exit code (1: incompatible)", async () => {
  const child = spawn(process.execPath, [bin, "check", "a.binpb", "b.binpb", "--message", "w.M"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  // The reader takes the first bytes, then goes away (`| head -c 20`).
  child.stdout.once("data", () => child.stdout.destroy());
  const code = await new Promise<number | null>((done) => child.once("exit", (c) => done(c)));
  expect(code).toBe(1);
});

test.skipIf(!existsSync("/dev/full"))("a failed write of the output is exit 2 with a message", () => {
  const fd = openSync("/dev/full", "w");
  try {
    const r = spawnSync(process.execPath, [bin, "check", "small.binpb", "small.binpb", "--message", "s.M"], { cwd: dir, stdio: ["ignore", fd, "pipe"] });
    expect(r.status).toBe(2);
    expect(r.stderr.toString()).toMatch(/^protokeel: cannot write the output: .*ENOSPC.*\n$/);
  } finally {
    closeSync(fd);
  }
});

test("decode --framed writes the values of a stream that pauses, before it ends", async () => {
  const ser = ProtobufType.of({ fileDescriptorSet: compileProtoText({ "s.proto": 'syntax = "proto3"; package s; message M { string note = 1; }' }), messageName: "s.M" }).createSerializer();
  const child = spawn(process.execPath, [bin, "decode", "--schema", "small.binpb", "--message", "s.M", "--framed"], { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin.write(ser.encodeAll([{ note: "first" }, { note: "second" }]));
  // The input stays open: the two values must come out while it does.
  const out = await new Promise<string>((done) => {
    let text = "";
    child.stdout.on("data", (d: Buffer) => {
      text += d.toString();
      if (text.split("\n").length > 2) done(text);
    });
  });
  child.stdin.end();
  await new Promise((done) => child.once("exit", done));
  expect(out).toBe('{"note":"first"}\n{"note":"second"}\n');
});

test.each([
  ["one line longer than the limit", `{"note": "${"x".repeat(200)}"}`, "protokeel: line 1 of stdin is longer than 128 characters (8 × maxMessageBytes); write one message per line\n"],
  ["a document of lines longer than the limit in all", `{\n"note":\n"${"x".repeat(60)}"\n${" ".repeat(60)}\n}`, "protokeel: stdin is longer than 128 characters (8 × maxMessageBytes)\n"],
])("encode: %s is refused", (_name, input, message) => {
  const r = spawnSync(process.execPath, [bin, "encode", "--schema", "tiny.type"], { cwd: dir, input });
  expect([r.status, r.stderr.toString()]).toEqual([1, message]);
});

test("a schema that declares no message says so", () => {
  const r = spawnSync(process.execPath, [bin, "check", "enums.binpb", "enums.binpb"], { cwd: dir });
  expect([r.status, r.stderr.toString()]).toEqual([2, "protokeel: enums.binpb is a descriptor set that declares no message; pass the schema that declares the root message\n"]);
});
