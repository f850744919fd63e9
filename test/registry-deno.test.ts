// protokeel/registry off Node: the built package (dist/, `npm run build` first) in Deno (the
// dev dependency's binary), which has fetch and no buf. It writes through HttpRegistryClient to
// the in-process registry and reads back with format=serialized (no compiler); from the in-memory
// registry (.proto text), a newer reader reads with the older type listed in knownTypes, and
// refuses without it (the edge paths).
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { expect, test } from "vitest";
import { binaryPath } from "../runtimes/lib/binaries.mjs";
import { compileProtoText } from "./support/buf.js";
import { startFakeRegistry } from "./support/fake-registry.js";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const PROGRAM = `
import { ProtobufType } from "protokeel";
import { HttpRegistryClient, MemoryRegistryClient, RegistryDeserializer, RegistrySerializer } from "protokeel/registry";
const set = await Deno.readFile("set.binpb");
const type = ProtobufType.of({ fileDescriptorSet: set, messageName: "shop.Order" });
const newer = ProtobufType.of({ fileDescriptorSet: await Deno.readFile("set2.binpb"), messageName: "shop.Order" });
const value = { id: 7n, lines: [{ sku: "a" }], labels: { k: "v" } };

const http = new HttpRegistryClient({ url: Deno.env.get("REGISTRY_URL") });
const bytes = await new RegistrySerializer(type, { client: http }).serialize("shop", value);
const viaHttp = await new RegistryDeserializer(type, { client: http }).deserialize("shop", bytes);

const memory = new MemoryRegistryClient();
const bytes2 = await new RegistrySerializer(type, { client: memory }).serialize("shop", value);
let refused;
try { await new RegistryDeserializer(newer, { client: memory }).deserialize("shop", bytes2); } catch (e) { refused = e.code; }
const viaKnown = await new RegistryDeserializer(newer, { client: memory, knownTypes: [type] }).deserialize("shop", bytes2);
const viaSet = await new RegistryDeserializer(type, { client: memory }).deserialize("shop", bytes2);

console.log(JSON.stringify({ http: viaHttp.equals(viaSet), id: String(viaHttp.get("id")), lines: viaSet.get("lines").length, refused, known: viaKnown.has("note"), header: Array.from(bytes.subarray(0, 6)) }));
`;

test("Deno: HTTP registry without a compiler, and .proto text of known types", async () => {
  const text = `syntax = "proto3"; package shop; message Line { string sku = 1; } message Order { int64 id = 1; repeated Line lines = 2; map<string, string> labels = 3; }`;
  const set = compileProtoText({ "shop.proto": text });
  const registry = await startFakeRegistry({
    serialize: async (schema, refs) => {
      const files: Record<string, string> = { "__main__.proto": schema, ...Object.fromEntries(refs) };
      const main = fromBinary(FileDescriptorSetSchema, compileProtoText(files)).file.find((f) => f.name === "__main__.proto")!;
      return Buffer.from(toBinary(FileDescriptorProtoSchema, main)).toString("base64");
    },
  });
  try {
    const dir = mkdtempSync(join(tmpdir(), "protokeel-registry-deno-"));
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(repo, join(dir, "node_modules", "protokeel"), "dir");
    for (const dep of ["@bufbuild", "@noble"]) symlinkSync(join(repo, "node_modules", dep), join(dir, "node_modules", dep), "dir");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(join(dir, "main.mjs"), PROGRAM);
    writeFileSync(join(dir, "set.binpb"), set);
    writeFileSync(join(dir, "set2.binpb"), compileProtoText({ "shop.proto": text.replace("map<string, string> labels = 3;", "map<string, string> labels = 3; optional string note = 4;") }));
    const out = await new Promise<string>((done, fail) => {
      // Asynchronous: the registry answers from this process's event loop.
      execFile(
        binaryPath("deno"),
        ["run", "--allow-read", "--allow-env", "--allow-net", "main.mjs"],
        { cwd: dir, env: { ...process.env, REGISTRY_URL: registry.url, DENO_DIR: join(dir, "deno-cache"), DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" } },
        (error, stdout, stderr) => (error === null ? done(stdout) : fail(new Error(`${error.message}\n${stderr}`))),
      );
    });
    expect(JSON.parse(out)).toEqual({ http: true, id: "7", lines: 1, refused: "REGISTRY_SCHEMA_UNUSABLE", known: false, header: [0, 0, 0, 0, 2, 0] });
    expect(registry.requests).toContain("GET /schemas/ids/2?format=serialized");
  } finally {
    await registry.close();
  }
});
