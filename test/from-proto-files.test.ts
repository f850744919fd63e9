// README "From .proto files": the three ways from .proto files on disk to a type (buf, protoc,
// protobufjs with resolvePath) give equal types, and the two mistakes the section warns about
// fail the way it says. The .proto files are the README's own (its `doctest: file` blocks); the
// README doc test (test/readme.test.ts) runs the section's commands and code as written.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import { beforeAll, expect, test } from "vitest";
import { InvalidDescriptorError, ProtobufType } from "../src/index.js";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name: string) => join(repo, "node_modules", ".bin", name);
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "protokeel-from-proto-"));
  const readme = readFileSync(join(repo, "README.md"), "utf8");
  for (const [, path, text] of readme.matchAll(/<!-- doctest: file (proto\/\S+) -->\n```proto\n([\s\S]*?)```/g)) {
    mkdirSync(dirname(join(dir, path!)), { recursive: true });
    writeFileSync(join(dir, path!), text!);
  }
});

const run = (cmd: string, args: string[]) => execFileSync(bin(cmd), args, { cwd: dir, stdio: "pipe" });
const fromSet = (file: string) => ProtobufType.of({ fileDescriptorSet: readFileSync(join(dir, file)), messageName: "acme.Order" });

function fromProtobufjs(): ProtobufType {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(dir, "proto", target);
  root.loadSync("acme/order.proto", { keepCase: true });
  return ProtobufType.of(root.lookupType("acme.Order"));
}

test("buf build, protoc --include_imports and protobufjs with resolvePath give equal types", () => {
  run("buf", ["build", "proto", "--as-file-descriptor-set", "--exclude-source-info", "-o", "buf.binpb"]);
  run("protoc", ["--include_imports", "--descriptor_set_out=protoc.binpb", "-I", "proto", "acme/order.proto"]);
  const viaBuf = fromSet("buf.binpb");
  const viaProtoc = fromSet("protoc.binpb");
  const viaProtobufjs = fromProtobufjs();
  expect(viaBuf.equals(viaProtoc)).toBe(true);
  expect(viaBuf.equals(viaProtobufjs)).toBe(true);
  expect(new Set([viaBuf, viaProtoc, viaProtobufjs].map((t) => t.fingerprint())).size).toBe(1);
  // the imported message and the well-known type are part of the schema
  expect(viaBuf.descriptor.fields.map((f) => f.message?.typeName)).toEqual([undefined, "acme.Item", undefined, "google.protobuf.Timestamp"]);
});

test("protoc without --include_imports: construction names the missing import (UNRESOLVED_TYPE)", () => {
  run("protoc", ["--descriptor_set_out=no-imports.binpb", "-I", "proto", "acme/order.proto"]);
  expect(() => fromSet("no-imports.binpb")).toThrow(InvalidDescriptorError);
  expect(() => fromSet("no-imports.binpb")).toThrow(/Cannot find acme\/item\.proto, imported by acme\/order\.proto.*--include_imports/);
  try {
    fromSet("no-imports.binpb");
  } catch (e) {
    expect((e as InvalidDescriptorError).code).toBe("UNRESOLVED_TYPE");
  }
});

test("protobufjs without resolvePath looks for an import beside the importing file", () => {
  const root = new protobuf.Root();
  expect(() => root.loadSync(join(dir, "proto", "acme", "order.proto"), { keepCase: true })).toThrow(/acme\/acme\/item\.proto/);
});
