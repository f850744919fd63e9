// The `protokeel` command line, run as a process from the built package (dist/cli/main.js, the
// package.json "bin"): exit codes, stdout and stderr of check, inspect, decode and encode.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType, writeSnapshot } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";
import { createServer, type Server } from "node:net";
import { create, toJson } from "@bufbuild/protobuf";
import { OrderSchema as EsOrderSchema } from "./fixtures/generated-es/gen/es_fixtures_pb.js";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(repo, "dist", "cli", "main.js");

const V1 = `syntax = "proto3";
package acme;
message Item { string sku = 1; int32 qty = 2; }
message Order { int64 id = 1; string note = 2; repeated Item items = 3; }
`;
const V2_BINARY = V1.replace("int32 qty = 2;", "uint32 qty = 2;");
const V2_RENAMED = V1.replace("string note = 2;", "string remark = 2;");

let dir: string;

function run(args: string[], input?: string | Uint8Array): { code: number | null; stdout: string; stderr: string; bytes: Buffer } {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, input, maxBuffer: 1 << 30 });
  return { code: r.status, stdout: r.stdout.toString("utf8"), stderr: r.stderr.toString("utf8"), bytes: r.stdout };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "protokeel-cli-"));
  for (const [name, text] of [["v1", V1], ["v2-binary", V2_BINARY], ["v2-renamed", V2_RENAMED]] as const) {
    writeFileSync(join(dir, `${name}.binpb`), compileProtoText({ "acme/order.proto": text }));
    mkdirSync(join(dir, name, "acme"), { recursive: true });
    writeFileSync(join(dir, name, "acme", "order.proto"), text);
  }
  const type = ProtobufType.newBuilder({ fileDescriptorSet: readFileSync(join(dir, "v1.binpb")), messageName: "acme.Order" }).maxDepth(64).build();
  writeFileSync(join(dir, "v1.snapshot"), writeSnapshot(type.createSerializer().snapshotConfiguration()));
  writeFileSync(join(dir, "v1.type"), type.toBytes());
  const ser = type.createSerializer();
  const orders = [
    DynamicMessage.create(type.descriptor, { id: 1n, items: [{ sku: "a", qty: 2 }] }),
    DynamicMessage.create(type.descriptor, { id: 2n, note: "gift" }),
  ];
  writeFileSync(join(dir, "orders.bin"), ser.encodeAll(orders));
  writeFileSync(join(dir, "order.bin"), ser.toBinary(orders[1]!));
  writeFileSync(join(dir, "garbage.bin"), Uint8Array.of(1, 2, 3, 4, 5));
});

describe("check", () => {
  test("a compatible change: exit 0", () => {
    const r = run(["check", "v1.binpb", "v1.binpb", "--message", "acme.Order"]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, "acme.Order: v1.binpb (descriptor set) → v1.binpb (descriptor set), binary boundary\ncompatible: no findings\n", ""]);
  });

  test("an incompatible change: exit 1, the report on stdout", () => {
    const r = run(["check", "v1.binpb", "v2-binary.binpb", "--message", "acme.Order"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      [
        "acme.Order: v1.binpb (descriptor set) → v2-binary.binpb (descriptor set), binary boundary",
        "incompatible: 1 incompatibility, 0 notes",
        "incompatibilities (1):",
        "  1. FIELD_TYPE_CHANGED at acme.Order.items(3).qty(2)",
        "     field acme.Order.items(3).qty(2) changed type from int32 to uint32: both use the varint wire type, so saved values parse, but the sign changes meaning (a negative value reads as a large unsigned number); keep int32 or add a new field with a new number instead (and reserve this one)",
        "",
      ].join("\n"),
    );
  });

  test.each([
    ["binary", 0, "compatible, with 1 note"],
    ["json", 1, "incompatible: 1 incompatibility, 0 notes"],
    ["both", 1, "incompatible: 1 incompatibility, 1 note"],
  ])("a rename at the %s boundary: exit %i", (boundary, code, verdict) => {
    const r = run(["check", "v1.binpb", "v2-renamed.binpb", "--message", "acme.Order", "--boundary", boundary]);
    expect(r.code).toBe(code);
    expect(r.stdout.split("\n")[1]).toBe(verdict);
  });

  test("--format json", () => {
    const r = run(["check", "v1.binpb", "v2-renamed.binpb", "--message", "acme.Order", "--boundary", "json", "--format", "json"]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ saved: "v1.binpb", current: "v2-renamed.binpb", message: "acme.Order", boundary: "json", compatible: false, notes: [] });
    expect(report.incompatibilities.map((f: { rule: string; path: string }) => `${f.rule} ${f.path}`)).toEqual(["JSON_FIELD_NAME_CHANGED acme.Order.remark(2)"]);
  });

  test(".proto directories and files, compiled with buf", () => {
    const r = run(["check", "v1", "v2-binary/acme/order.proto", "--message", "acme.Order"]);
    expect(r.code).toBe(1);
    expect(r.stdout.split("\n")[0]).toBe("acme.Order: v1 (.proto files) → v2-binary/acme/order.proto (.proto files), binary boundary");
  });

  // A buf.yaml in or above the directories (a buf v2 workspace at the project root, what `buf
  // config init` writes; a v1 module's own) does not change what the import root is: buf with no
  // config refused a directory inside the enclosing v2 module.
  test.each([
    ["a v2 workspace at the project root", "buf.yaml", "version: v2\n"],
    ["a v2 workspace that lists the directory as a module", "buf.yaml", "version: v2\nmodules:\n  - path: v1\n"],
    ["a v1 module of its own that excludes the files", "v1/buf.yaml", "version: v1\nbuild:\n  excludes: [acme]\n"],
  ])(".proto source inside %s", (_name, file, text) => {
    const project = mkdtempSync(join(tmpdir(), "protokeel-cli-ws-"));
    try {
      cpSync(join(dir, "v1"), join(project, "v1"), { recursive: true });
      cpSync(join(dir, "v2-binary"), join(project, "v2-binary"), { recursive: true });
      writeFileSync(join(project, file), text);
      for (const args of [
        ["check", "v1", "v2-binary", "--message", "acme.Order"],
        ["check", "v1/acme/order.proto", "v2-binary/acme/order.proto", "--message", "acme.Order"],
      ]) {
        const r = spawnSync(process.execPath, [bin, ...args], { cwd: project });
        // What the same check prints with no buf.yaml about.
        expect([r.status, r.stderr.toString(), r.stdout.toString()]).toEqual([1, "", run(args).stdout]);
      }
      const decoded = spawnSync(process.execPath, [bin, "decode", "--schema", "v1", "--message", "acme.Order", join(dir, "order.bin")], { cwd: project });
      expect([decoded.status, decoded.stderr.toString()]).toEqual([0, ""]);
      expect(JSON.parse(decoded.stdout.toString())).toEqual({ id: "2", note: "gift" });
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  // Two checkouts, each with its .proto files under its own import root (`import "acme/item.proto"`
  // resolves from proto/): --proto-path once was one root for both sides, so one side was always
  // outside it.
  test("--proto-path twice: the saved side's import root, then the current side's", () => {
    const project = mkdtempSync(join(tmpdir(), "protokeel-cli-roots-"));
    try {
      const item = `syntax = "proto3";\npackage acme;\nmessage Item { string sku = 1; int32 qty = 2; }\n`;
      const order = `syntax = "proto3";\npackage acme;\nimport "acme/item.proto";\nmessage Order { int64 id = 1; string note = 2; repeated Item items = 3; }\n`;
      for (const [side, itemText] of [["old", item], ["new", item.replace("int32 qty", "uint32 qty")]] as const) {
        mkdirSync(join(project, side, "proto", "acme"), { recursive: true });
        writeFileSync(join(project, side, "proto", "acme", "item.proto"), itemText);
        writeFileSync(join(project, side, "proto", "acme", "order.proto"), order);
      }
      const cli = (...args: string[]) => {
        const r = spawnSync(process.execPath, [bin, "check", "old/proto/acme/order.proto", "new/proto/acme/order.proto", "--message", "acme.Order", ...args], { cwd: project });
        return { code: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
      };
      const two = cli("--proto-path", "old/proto", "--proto-path", "new/proto");
      // The findings of the same check of descriptor sets (v1 → v2-binary changes qty alike).
      const sets = run(["check", "v1.binpb", "v2-binary.binpb", "--message", "acme.Order"]);
      expect([two.code, two.stderr, two.stdout.split("\n").slice(1)]).toEqual([1, "", sets.stdout.split("\n").slice(1)]);
      const one = cli("--proto-path", "old/proto");
      expect([one.code, one.stdout]).toEqual([2, ""]);
      expect(one.stderr).toBe(
        `protokeel: new/proto/acme/order.proto is not inside the import root ${join(realpathSync(project), "old", "proto")} (--proto-path); when the saved and the current side have import roots of their own, give --proto-path twice: the saved side's root, then the current side's\n`,
      );
      // A .proto file that is a symlink to a file elsewhere, with no --proto-path: its directory is the root.
      mkdirSync(join(project, "links"));
      symlinkSync(join(project, "old", "proto", "acme", "item.proto"), join(project, "links", "item.proto"));
      const linked = spawnSync(process.execPath, [bin, "check", "links/item.proto", "links/item.proto", "--message", "acme.Item"], { cwd: project });
      expect([linked.status, linked.stderr.toString()]).toEqual([0, ""]);
      // One root serves both sides: a saved side that is a descriptor set ignores it.
      writeFileSync(join(project, "old.binpb"), readFileSync(join(dir, "v1.binpb")));
      const mixed = spawnSync(process.execPath, [bin, "check", "old.binpb", "new/proto/acme/order.proto", "--message", "acme.Order", "--proto-path", "new/proto"], { cwd: project });
      expect([mixed.status, mixed.stderr.toString()]).toEqual([1, ""]);
      const three = cli("--proto-path", "old/proto", "--proto-path", "new/proto", "--proto-path", "old/proto");
      expect([three.code, three.stderr]).toEqual([2, "protokeel: protokeel check takes --proto-path once (one import root for both sides) or twice (the saved side's, then the current side's), got it 3 times\n"]);
      // Directories below their roots are what is built (a directory with a root above it built
      // the whole root: two sides under one root compared that root with itself, exit 0).
      const dirs = (...args: string[]) => {
        const r = spawnSync(process.execPath, [bin, "check", "old/proto/acme", "new/proto/acme", "--message", "acme.Order", ...args], { cwd: project });
        return { code: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
      };
      expect(dirs("--proto-path", "old/proto", "--proto-path", "new/proto").stdout.split("\n").slice(1)).toEqual(sets.stdout.split("\n").slice(1));
      const oneForDirs = dirs("--proto-path", "old/proto");
      expect([oneForDirs.code, oneForDirs.stderr.startsWith(`protokeel: new/proto/acme is not inside the import root ${join(realpathSync(project), "old", "proto")} (--proto-path); when`)]).toEqual([2, true]);
      // A file of the root outside the directory is not built (it does not compile).
      writeFileSync(join(project, "old", "proto", "broken.proto"), "this is not protobuf");
      expect(dirs("--proto-path", "old/proto", "--proto-path", "new/proto").code).toBe(1);
      // A directory named "..x" is inside its root, and a root given through a symlink holds what its target holds.
      mkdirSync(join(project, "new", "..x"));
      writeFileSync(join(project, "new", "..x", "solo.proto"), `syntax = "proto3";\npackage acme;\nmessage Order { int64 id = 1; }\n`);
      symlinkSync(join(project, "new", "proto"), join(project, "link"));
      for (const args of [
        ["new/..x/solo.proto", "new/..x/solo.proto", "--proto-path", "new"],
        ["old/proto/acme/order.proto", "new/proto/acme/order.proto", "--proto-path", "old/proto", "--proto-path", "link"],
      ]) {
        const r = spawnSync(process.execPath, [bin, "check", ...args, "--message", "acme.Order"], { cwd: project });
        expect([r.status, r.stderr.toString()]).toEqual([args[0] === args[1] ? 0 : 1, ""]);
      }
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  test("a snapshot carries its root and settings", () => {
    const r = run(["check", "v1.snapshot", "v1.binpb", "--message", "acme.Order"]);
    expect([r.code, r.stdout.split("\n")[1]]).toEqual([0, "compatible: no findings"]);
    const lowered = run(["check", "v1.binpb", "v1.snapshot"]);
    expect(lowered.code).toBe(2);
    expect(lowered.stderr).toBe("protokeel: v1.binpb is a descriptor set: name the root message with --message (its messages: acme.Item, acme.Order)\n");
  });

  test.each<[string, string[], string]>([
    ["no arguments", ["check", "v1.binpb"], "protokeel: protokeel check takes 2 file arguments, got 1; see protokeel --help\n"],
    ["a missing file", ["check", "nope.binpb", "v1.binpb", "--message", "acme.Order"], "protokeel: nope.binpb does not exist\n"],
    ["an unknown message", ["check", "v1.binpb", "v1.binpb", "--message", "acme.Nope"], "protokeel: v1.binpb does not declare message acme.Nope; pass the full name with its package, e.g. --message acme.Order\n"],
    ["a bad boundary", ["check", "v1.binpb", "v1.binpb", "--message", "acme.Order", "--boundary", "xml"], "protokeel: --boundary must be binary, json or both, got xml\n"],
    // Node's parseArgs words were passed on ("Unknown option '--nope'. To specify a positional …").
    ["an unknown option", ["check", "v1.binpb", "v1.binpb", "--nope"], "protokeel: protokeel check has no option --nope; see protokeel check --help\n"],
    ["a value for a flag", ["decode", "--framed=yes", "--schema", "v1.binpb"], "protokeel: option --framed of protokeel decode takes no value; see protokeel decode --help\n"],
    ["a missing value", ["decode", "--schema"], "protokeel: option --schema of protokeel decode needs a value; see protokeel decode --help\n"],
    // Node names it "'-h, --help'": "-h," was taken for the option's name.
    ["a value for --help", ["check", "--help=1"], "protokeel: option --help of protokeel check takes no value; see protokeel check --help\n"],
    ["an option where a value belongs", ["inspect", "--format", "--help"], "protokeel: option --format of protokeel inspect needs a value, and the next argument is an option; give one that starts with a dash as --format=<value>; see protokeel inspect --help\n"],
    [
      "a file that is no schema",
      ["check", "garbage.bin", "v1.binpb", "--message", "acme.Order"],
      "protokeel: garbage.bin is not a FileDescriptorSet, a snapshot or a type file (illegal tag: field no 0 wire type 1); pass the output of buf build -o, writeSnapshot or type.toBytes(), or .proto files\n",
    ],
    ["an unknown command", ["verify"], 'protokeel: unknown command "verify"; commands: check, inspect, decode, encode (see protokeel --help)\n'],
    ["an empty --proto-path", ["check", "v1", "v2-binary", "--message", "acme.Order", "--proto-path="], "protokeel: --proto-path needs a directory (the import root of .proto input), got an empty value\n"],
    [
      "a --proto-path for a descriptor set",
      ["decode", "--schema", "v1.binpb", "--message", "acme.Order", "--proto-path", "v1", "order.bin"],
      "protokeel: --proto-path v1 was given for v1.binpb, which is not .proto source (a descriptor set, a snapshot or a type file has no imports to resolve); leave it out\n",
    ],
    [
      "--proto-path with two descriptor sets",
      ["check", "v1.binpb", "v2-binary.binpb", "--message", "acme.Order", "--proto-path", "v1"],
      "protokeel: --proto-path applies to .proto input, and neither side is .proto source (descriptor sets, snapshots and type files have no imports to resolve); leave it out\n",
    ],
    ["a --proto-path that does not exist", ["check", "v1", "v2-binary", "--message", "acme.Order", "--proto-path", "nope"], "protokeel: the import root nope (--proto-path) does not exist\n"],
    [
      "a --proto-path that is a file",
      ["check", "v1/acme/order.proto", "v2-binary/acme/order.proto", "--message", "acme.Order", "--proto-path", "v1/acme/order.proto"],
      "protokeel: the import root v1/acme/order.proto (--proto-path) is not a directory; pass the directory that imports are resolved from\n",
    ],
    [
      "a side's own --proto-path for a snapshot",
      ["check", "v1.snapshot", "v2-binary", "--message", "acme.Order", "--proto-path", "v1", "--proto-path", "v2-binary"],
      "protokeel: --proto-path v1 was given for v1.snapshot, which is not .proto source (a descriptor set, a snapshot or a type file has no imports to resolve); give --proto-path once, for the side that is .proto source\n",
    ],
  ])("usage and input errors exit 2: %s", (_name, args, stderr) => {
    const r = run(args);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, "", stderr]);
  });

  test("no command prints the usage and exits 2; --help exits 0", () => {
    const none = run([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toMatch(/^usage: protokeel <command> \[options\]\n/);
    expect(run(["--help"]).code).toBe(0);
    expect(run(["check", "--help"]).code).toBe(0);
  });

  test("without buf installed, .proto input says what to install", () => {
    // A copy of the package whose only dependencies are its runtime ones, and no buf on PATH.
    const scratch = mkdtempSync(join(tmpdir(), "protokeel-nobuf-"));
    const pkg = join(scratch, "node_modules", "protokeel");
    mkdirSync(pkg, { recursive: true });
    cpSync(join(repo, "dist"), join(pkg, "dist"), { recursive: true });
    cpSync(join(repo, "package.json"), join(pkg, "package.json"));
    mkdirSync(join(scratch, "node_modules", "@bufbuild"));
    symlinkSync(join(repo, "node_modules", "@bufbuild", "protobuf"), join(scratch, "node_modules", "@bufbuild", "protobuf"));
    symlinkSync(join(repo, "node_modules", "@noble"), join(scratch, "node_modules", "@noble"));
    const r = spawnSync(process.execPath, [join(pkg, "dist", "cli", "main.js"), "check", join(dir, "v1"), join(dir, "v1"), "--message", "acme.Order"], {
      cwd: scratch,
      env: { PATH: dirname(process.execPath) },
      encoding: "utf8",
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `protokeel: ${join(dir, "v1")} is .proto source, which protokeel compiles with buf, and buf is not installed: run npm install --save-dev @bufbuild/buf (or put buf on PATH, or set PROTOKEEL_BUF), or pass a FileDescriptorSet (buf build -o schema.binpb)\n`,
    );
  });
});

describe("inspect", () => {
  test("a snapshot: kind, root, settings, fingerprint, the schema as .proto text", () => {
    const r = run(["inspect", "v1.snapshot"]);
    expect(r.code).toBe(0);
    const fingerprint = ProtobufType.of({ fileDescriptorSet: readFileSync(join(dir, "v1.binpb")), messageName: "acme.Order" }).fingerprint();
    expect(r.stdout).toBe(
      [
        "kind:         dynamic serializer snapshot (protokeel.ProtobufDynamicSerializerSnapshot, version 1)",
        "root:         acme.Order",
        "settings:     maxMessageBytes 67108864, maxDepth 64, deterministic false, aliasThreshold 0",
        `fingerprint:  ${fingerprint}`,
        "versions:     framing 1, normalization 1",
        `schema:       ${r.stdout.match(/schema: +(\d+) bytes/)![1]} bytes (normalized descriptor set)`,
        "",
        "// acme.Item.proto",
        'syntax = "proto3";',
        "package acme;",
        "",
        "message Item {",
        "  string sku = 1;",
        "  int32 qty = 2;",
        "}",
        "",
        "// acme.Order.proto",
        'syntax = "proto3";',
        "package acme;",
        'import "acme.Item.proto";',
        "",
        "message Order {",
        "  int64 id = 1;",
        "  string note = 2;",
        "  repeated acme.Item items = 3;",
        "}",
        "",
      ].join("\n"),
    );
  });

  test("a type file, as JSON", () => {
    const r = run(["inspect", "v1.type", "--format", "json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: "dynamic type (transfer form)", root: "acme.Order", settings: { maxDepth: 64 } });
  });

  test("a descriptor set is not inspected, and inspect does not send you to --message (it takes none)", () => {
    const r = run(["inspect", "v1.binpb"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("protokeel: v1.binpb is a descriptor set; inspect reads snapshots (writeSnapshot) and type files (type.toBytes())\n");
  });
});

describe("decode and encode", () => {
  const LINES = '{"id":"1","items":[{"sku":"a","qty":2}]}\n{"id":"2","note":"gift"}\n';

  test("decode --framed: one ProtoJSON line per frame", () => {
    const r = run(["decode", "--schema", "v1.binpb", "--message", "acme.Order", "--framed", "orders.bin"]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, LINES, ""]);
  });

  test("decode from stdin, with a snapshot as the schema and JSON options", () => {
    const r = run(["decode", "--schema", "v1.snapshot", "--framed", "--emit-defaults", "--proto-names", "-"], readFileSync(join(dir, "orders.bin")));
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[1]).toBe('{"id":"2","note":"gift","items":[]}');
  });

  test("decode of one bare message", () => {
    const r = run(["decode", "--schema", "v1.type", "order.bin"]);
    expect([r.code, r.stdout]).toEqual([0, '{"id":"2","note":"gift"}\n']);
  });

  test("encode --framed: the frames decode wrote it from", () => {
    const r = run(["encode", "--schema", "v1.binpb", "--message", "acme.Order", "--framed"], `${LINES}\n`);
    expect(r.code).toBe(0);
    expect(new Uint8Array(r.bytes)).toEqual(new Uint8Array(readFileSync(join(dir, "orders.bin"))));
  });

  test("encode of one document spanning lines", () => {
    const r = run(["encode", "--schema", "v1.binpb", "--message", "acme.Order"], '{\n  "id": "2",\n  "note": "gift"\n}\n');
    expect(new Uint8Array(r.bytes)).toEqual(new Uint8Array(readFileSync(join(dir, "order.bin"))));
  });

  test("bad data exits 1 with the frame's offset or the line's number", () => {
    const truncated = run(["decode", "--schema", "v1.binpb", "--message", "acme.Order", "--framed"], readFileSync(join(dir, "orders.bin")).subarray(0, 15));
    expect(truncated.code).toBe(1);
    expect(truncated.stdout).toBe('{"id":"1","items":[{"sku":"a","qty":2}]}\n');
    expect(truncated.stderr).toBe("protokeel: cannot decode acme.Order: the stream ends inside the frame at byte 10 (5 of 9 bytes); the data is truncated, pass complete frames\n");
    const badLine = run(["encode", "--schema", "v1.binpb", "--message", "acme.Order", "--framed"], '{"id":"1"}\n{"id":"x"}\n');
    expect(badLine.code).toBe(1);
    expect(badLine.stderr).toBe(
      'protokeel: line 2: cannot read acme.Order from JSON: acme.Order.id(1) expects int64 (a decimal string or an integer number), got string "x"; fix the value or read with the schema that wrote it\n',
    );
  });

  test("unknown fields: decode refuses to drop them unless --discard-unknown, encode unless --ignore-unknown", () => {
    writeFileSync(join(dir, "bare.binpb"), compileProtoText({ "acme/order.proto": 'syntax = "proto3";\npackage acme;\nmessage Order { int64 id = 1; }\n' }));
    const refused = run(["decode", "--schema", "bare.binpb", "--message", "acme.Order", "--framed", "orders.bin"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      "protokeel: frame 1: cannot write acme.Order to JSON: acme.Order (acme.Order) holds unknown field 3, which ProtoJSON cannot represent (it names fields, and these have no name in this schema); write binary to keep them, read with the schema that declares them, or pass --discard-unknown to drop them (data loss)\n",
    );
    const dropped = run(["decode", "--schema", "bare.binpb", "--message", "acme.Order", "--framed", "--discard-unknown", "orders.bin"]);
    expect([dropped.code, dropped.stdout]).toEqual([0, '{"id":"1"}\n{"id":"2"}\n']);
    expect(run(["encode", "--schema", "bare.binpb", "--message", "acme.Order", "--framed"], LINES).code).toBe(1);
    expect(run(["encode", "--schema", "bare.binpb", "--message", "acme.Order", "--framed", "--ignore-unknown"], LINES).code).toBe(0);
  });

  test("options of the other direction are usage errors", () => {
    const r = run(["encode", "--schema", "v1.binpb", "--message", "acme.Order", "--emit-defaults"], "{}");
    expect([r.code, r.stderr]).toEqual([2, "protokeel: --discard-unknown, --emit-defaults, --enum-as-integer and --proto-names are decode options (writing JSON)\n"]);
  });

  test("a large file streams through decode and encode", () => {
    const type = ProtobufType.of({ fileDescriptorSet: readFileSync(join(dir, "v1.binpb")), messageName: "acme.Order" });
    const ser = type.createSerializer();
    const many = Array.from({ length: 20_000 }, (_, i) => ({ id: BigInt(i), note: "n".repeat(i % 50), items: [{ sku: `s${i}`, qty: i }] }));
    const bytes = ser.encodeAll(many);
    writeFileSync(join(dir, "many.bin"), bytes);
    const decoded = run(["decode", "--schema", "v1.binpb", "--message", "acme.Order", "--framed", "many.bin"]);
    expect(decoded.code).toBe(0);
    expect(decoded.stdout.split("\n").length).toBe(20_001);
    const encoded = run(["encode", "--schema", "v1.binpb", "--message", "acme.Order", "--framed"], decoded.stdout);
    expect(encoded.code).toBe(0);
    expect(Buffer.compare(encoded.bytes, Buffer.from(bytes))).toBe(0);
  });
});

describe("files that cannot be read", () => {
  // Before: a missing data file printed its message and then Node's "Unhandled 'error' event"
  // trace and exited 1; a file that exists but cannot be opened (a socket here: ENXIO even as
  // root; EACCES for another user) was "internal error … this is a protokeel bug".
  let sock: string;
  let server: Server;
  beforeAll(async () => {
    sock = join(dir, "schema.sock");
    server = createServer().listen(sock);
    await new Promise((r) => server.once("listening", r));
    mkdirSync(join(dir, "a-dir"), { recursive: true });
  });
  afterAll(() => server.close());

  test.each<[string, () => string[], () => string]>([
    ["decode: a missing data file", () => ["decode", "--schema", "v1.snapshot", "missing.pb"], () => "protokeel: missing.pb does not exist\n"],
    ["encode: a missing data file", () => ["encode", "--schema", "v1.snapshot", "--framed", "missing.jsonl"], () => "protokeel: missing.jsonl does not exist\n"],
    ["decode: a directory as data", () => ["decode", "--schema", "v1.snapshot", "a-dir"], () => "protokeel: a-dir is a directory; pass a file\n"],
    ["decode: a socket as data", () => ["decode", "--schema", "v1.snapshot", sock], () => `protokeel: ${sock} cannot be read (ENXIO); check the path and its permissions\n`],
    ["encode: a socket as data", () => ["encode", "--schema", "v1.snapshot", sock], () => `protokeel: ${sock} cannot be read (ENXIO); check the path and its permissions\n`],
    ["inspect: a socket", () => ["inspect", sock], () => `protokeel: ${sock} cannot be read (ENXIO); check the path and its permissions\n`],
    ["check: a socket", () => ["check", sock, "v1.snapshot"], () => `protokeel: ${sock} cannot be read (ENXIO); check the path and its permissions\n`],
    // An endless file was read until the heap ran out (minutes, then an abort).
    ["inspect: an endless file", () => ["inspect", "/dev/zero"], () => "protokeel: /dev/zero holds more than 268435456 bytes (256 MiB), more than any descriptor set, snapshot or type file; pass the schema file\n"],
    ["decode: an endless schema", () => ["decode", "--schema", "/dev/zero", "missing.pb"], () => "protokeel: /dev/zero holds more than 268435456 bytes (256 MiB), more than any descriptor set, snapshot or type file; pass the schema file\n"],
  ])("%s: exit 2, one line", (_name, args, stderr) => {
    const r = run(args());
    expect([r.code, r.stdout, r.stderr]).toEqual([2, "", stderr()]);
  });
});

describe("generated snapshots", () => {
  // Before: every command ran restoreType() on any snapshot, which the generated kind does not
  // have: "internal error: TypeError: snapshot.restoreType is not a function".
  const type = ProtobufType.newGeneratedBuilder(EsOrderSchema).maxDepth(40).build();
  const ser = type.createSerializer();
  const order = create(EsOrderSchema, { id: 9n, note: "n" });
  beforeAll(() => {
    writeFileSync(join(dir, "gen.snapshot"), writeSnapshot(ser.snapshotConfiguration()));
    writeFileSync(join(dir, "gen-order.bin"), ser.toBinary(order));
  });

  test("inspect names the kind and the generated type", () => {
    const r = run(["inspect", "gen.snapshot"]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").slice(0, 4)).toEqual([
      "kind:         generated serializer snapshot (protokeel.ProtobufGeneratedSerializerSnapshot, version 1)",
      `root:         ${type.fullName}`,
      `generated:    ${type.generatedTypeName} (protobuf-es; decode and check read its saved schema)`,
      "settings:     maxMessageBytes 67108864, maxDepth 40, deterministic false, aliasThreshold 0",
    ]);
    expect(JSON.parse(run(["inspect", "gen.snapshot", "--format", "json"]).stdout)).toMatchObject({ kind: "generated serializer snapshot", generatedTypeName: type.generatedTypeName, fingerprint: type.fingerprint() });
  });

  test("decode and check read with its saved schema and settings", () => {
    const decoded = run(["decode", "--schema", "gen.snapshot", "gen-order.bin"]);
    expect([decoded.code, decoded.stderr]).toEqual([0, ""]);
    expect(JSON.parse(decoded.stdout)).toEqual(toJson(EsOrderSchema, order));
    const checked = run(["check", "gen.snapshot", "gen.snapshot"]);
    expect([checked.code, checked.stdout.split("\n")[1]]).toEqual([0, "compatible: no findings"]);
  });
});
