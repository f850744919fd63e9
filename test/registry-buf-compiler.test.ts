// bufCompiler (protokeel/registry/buf, Node only): compiles the .proto text a registry returns,
// refuses import paths that leave its temporary folder, and says what to install without buf.
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";
import { bufCompiler } from "../src/registry/buf.js";
import { SchemaRegistryError } from "../src/index.js";
import { thrown } from "./support/thrown.js";

afterEach(() => vi.unstubAllEnvs());

test("compiles a schema with its references and well-known imports", async () => {
  const bytes = await bufCompiler()(
    {
      "main.proto": 'syntax = "proto3"; package a; import "dep/b.proto"; import "google/protobuf/duration.proto"; message A { .a.B b = 1; google.protobuf.Duration d = 2; }',
      "dep/b.proto": 'syntax = "proto3"; package a; message B {}',
    },
    "main.proto",
  );
  const names = fromBinary(FileDescriptorSetSchema, bytes).file.map((f) => f.name);
  expect(names).toEqual(["dep/b.proto", "google/protobuf/duration.proto", "main.proto"]);
});

test.each([["../escape.proto"], ["/etc/passwd"], ["a/../../x.proto"]])("the import path %s is refused", async (name) => {
  const e = await Promise.resolve(bufCompiler()({ "main.proto": 'syntax = "proto3";', [name]: 'syntax = "proto3";' }, "main.proto")).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(SchemaRegistryError);
  expect(e).toMatchObject({ code: "REGISTRY_COMPILE_FAILED", message: `bufCompiler: import path ${JSON.stringify(name)} leaves the source folder` });
});

// buf reads these as its configuration: a buf.yaml with a dependency and a buf.lock made it fetch
// the module from buf.build.
test.each([["buf.yaml"], ["buf.work.yaml"], ["buf.lock"], ["dep/buf.yaml"], ["notes.txt"], ["x.proto/../buf.gen.yaml"]])("the import path %s, not a .proto file, is refused", async (name) => {
  const e = await Promise.resolve(bufCompiler()({ "main.proto": 'syntax = "proto3";', [name]: "version: v1\ndeps: [buf.build/acme/x]\n" }, "main.proto")).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(SchemaRegistryError);
  expect(e).toMatchObject({
    code: "REGISTRY_COMPILE_FAILED",
    message: `bufCompiler: import path ${JSON.stringify(name)} does not name a .proto file (buf would read it as its configuration, or not at all); the registry's references must name .proto files`,
  });
});

test("an import path the file system refuses is REGISTRY_COMPILE_FAILED, naming it", async () => {
  const e = await Promise.resolve(bufCompiler()({ "main.proto": 'syntax = "proto3";', "x\u0000.proto": 'syntax = "proto3";' }, "main.proto")).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(SchemaRegistryError);
  expect(e).toMatchObject({ code: "REGISTRY_COMPILE_FAILED", message: expect.stringMatching(/^bufCompiler: import path "x\\u0000\.proto" cannot be written as a file: /) });
});

test("text that does not compile rejects with buf's message", async () => {
  const e = await Promise.resolve(bufCompiler()({ "main.proto": 'syntax = "proto3"; message {' }, "main.proto")).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(SchemaRegistryError);
  expect(e).toMatchObject({ code: "REGISTRY_COMPILE_FAILED", message: expect.stringMatching(/^buf failed: .*main\.proto/) });
});

test("PROTOKEEL_BUF naming no file is an error at construction", () => {
  vi.stubEnv("PROTOKEEL_BUF", "/nonexistent/buf");
  const e = thrown(() => bufCompiler());
  expect(e).toBeInstanceOf(SchemaRegistryError);
  expect(e).toMatchObject({ code: "REGISTRY_COMPILER_UNAVAILABLE", message: "PROTOKEEL_BUF names /nonexistent/buf, which does not exist; point it at a buf executable or unset it" });
});

test("a buf that never finishes is stopped after timeoutMs, and the next compilation runs", async () => {
  // A stand-in for a build that does not end: the registry's text comes from whoever registered it.
  const dir = mkdtempSync(join(tmpdir(), "protokeel-slow-buf-"));
  const slow = join(dir, "buf");
  writeFileSync(slow, "#!/bin/sh\nexec sleep 30\n");
  chmodSync(slow, 0o755);
  vi.stubEnv("PROTOKEEL_BUF", slow);
  await expect(bufCompiler({ timeoutMs: 300 })({ "main.proto": 'syntax = "proto3";' }, "main.proto")).rejects.toMatchObject({
    code: "REGISTRY_COMPILE_FAILED",
    message: "buf did not finish within 300 ms (timeoutMs) and was stopped; check the schema, or raise timeoutMs",
  });
  vi.unstubAllEnvs();
  const bytes = await bufCompiler({ timeoutMs: 60_000 })({ "main.proto": 'syntax = "proto3"; package a; message A {}' }, "main.proto");
  expect(fromBinary(FileDescriptorSetSchema, bytes).file.map((f) => f.name)).toEqual(["main.proto"]);
});

test.each([[0], [-1], [1.5], [Number.NaN], [2 ** 31], [1e10]])("timeoutMs %s is a RangeError", (timeoutMs) => {
  expect(() => bufCompiler({ timeoutMs })).toThrow(`bufCompiler: timeoutMs must be a positive integer of milliseconds up to 2147483647 (the longest timer delay, ~24.8 days), got ${timeoutMs}`);
});
