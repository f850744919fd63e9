// Real public schemas: the googleapis protos that google-gax and @google-cloud/kms ship (pinned
// by package-lock through @confluentinc/schemaregistry), 123 files and ~730 messages that
// protokeel's own fixtures never shaped: Struct/Any/Timestamp fields, custom options from proto2
// files (google/api/annotations.proto, field_behavior.proto), deep nesting, big oneofs, maps of
// messages. Every message of a proto3 file is accepted and agrees with @bufbuild/protobuf on
// random values, both ways, plain and deterministic, in ProtoJSON, and through snapshots, the
// transfer form and the evaluator; every message of a proto2 file is refused by name. The same
// files loaded by protobufjs give, through its lowering, the types buf's descriptors give.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { create, createFileRegistry, fromBinary, toBinary, toJson, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import protobuf from "protobufjs";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, evaluateSchemaChange, InvalidDescriptorError, ProtobufType, readSnapshot, writeSnapshot } from "../src/index.js";
import { messageArb } from "./support/arbitrary-message.js";
import { compileProtoText } from "./support/buf.js";
import { esContent } from "./support/differential.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CORPORA = ["node_modules/google-gax/build/protos", "node_modules/@google-cloud/kms/build/protos"];

/** Where each corpus file was read from (the protobufjs Root below loads the same files). */
const corpusPaths: Record<string, string> = {};

/** The corpus as file name → text, without google/protobuf/ (buf supplies the well-known types). */
function corpus(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const rel of CORPORA) {
    const dir = join(root, rel);
    if (!existsSync(dir)) throw new Error(`${rel} is missing: run npm ci (it comes with the dev dependency @confluentinc/schemaregistry)`);
    const walk = (d: string) => {
      for (const name of readdirSync(d).sort()) {
        const p = join(d, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (name.endsWith(".proto")) {
          const file = relative(dir, p);
          if (!file.startsWith("google/protobuf/")) {
            files[file] = readFileSync(p, "utf8");
            corpusPaths[file] = p;
          }
        }
      }
    };
    walk(dir);
  }
  return files;
}

const files = corpus();
const setBytes = compileProtoText(files);
const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, setBytes));
const messages: DescMessage[] = [];
for (const file of registry.files) {
  const walk = (ms: readonly DescMessage[]) => {
    for (const m of ms) {
      messages.push(m);
      walk(m.nestedMessages);
    }
  };
  walk(file.messages);
}
const proto3 = messages.filter((m) => m.file.edition !== 998); // EDITION_PROTO2
const proto2 = messages.filter((m) => m.file.edition === 998);

// @bufbuild/protobuf holds Struct, Value and ListValue fields as JSON values; the sample
// generator gives message shapes for both sides, so those fields stay unset here (their
// differential tests are in json-values.test.ts and decode-differential.test.ts).
const SKIP = ["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"];
const SAMPLES = 4;

describe("googleapis: every message", () => {
  test("the corpus is the one this test was written for (a changed lock file shows here first)", () => {
    expect(messages.length).toBeGreaterThan(700);
    expect(proto2.length).toBeGreaterThan(20);
  });

  test("of a proto2 file is refused with SYNTAX_NOT_PROTO3, naming the type and the file", () => {
    for (const m of proto2) {
      let err: unknown;
      try {
        ProtobufType.of(m);
      } catch (e) {
        err = e;
      }
      expect(err, m.typeName).toBeInstanceOf(InvalidDescriptorError);
      expect((err as InvalidDescriptorError).code).toBe("SYNTAX_NOT_PROTO3");
      expect((err as Error).message).toContain(m.file.proto.name);
    }
  });

  test("of a proto3 file round-trips with @bufbuild/protobuf: bytes both ways, deterministic, equals", () => {
    for (const m of proto3) {
      const type = ProtobufType.of(m);
      const ser = type.createSerializer();
      const det = ProtobufType.newBuilder(m).deterministic(true).build().createSerializer();
      const samples = fc.sample(messageArb(m, 2, { maxItems: 2, maxMapEntries: 1, skipTypes: SKIP }), { numRuns: SAMPLES, seed: 7 });
      for (const s of samples) {
        const value = DynamicMessage.create(m, s.ours);
        const esBytes = toBinary(m, create(m, s.es as never));
        const expected = esContent(m, esBytes);
        expect(esContent(m, ser.toBinary(value)), m.typeName).toBe(expected);
        expect(esContent(m, det.toBinary(value)), m.typeName).toBe(expected);
        const back = ser.fromBinary(esBytes);
        expect(back.equals(value), m.typeName).toBe(true);
        expect(esContent(m, ser.toBinary(back)), m.typeName).toBe(expected);
      }
    }
  });

  test("of a proto3 file writes the ProtoJSON @bufbuild/protobuf writes, and reads it back to the same JSON", () => {
    let compared = 0;
    for (const m of proto3) {
      const ser = ProtobufType.of(m).createSerializer();
      for (const s of fc.sample(messageArb(m, 2, { maxItems: 2, maxMapEntries: 1, skipTypes: SKIP }), { numRuns: SAMPLES, seed: 11 })) {
        const esBytes = toBinary(m, create(m, s.es as never));
        let esJson: unknown;
        try {
          esJson = toJson(m, fromBinary(m, esBytes));
        } catch {
          continue; // out-of-range Timestamp/Duration, Any without a type: no ProtoJSON form
        }
        let ours: unknown;
        try {
          ours = ser.toJson(ser.fromBinary(esBytes));
        } catch (e) {
          // Deliberate differences, both JSON_NOT_REPRESENTABLE: an Any with value bytes and no
          // type_url (@bufbuild/protobuf writes {} and drops the bytes; protokeel refuses, as
          // protobuf-java's JsonFormat does), and a FieldMask path that is empty or holds a comma
          // (@bufbuild/protobuf writes text that reads back as other paths).
          expect((e as CodecError).code, m.typeName).toBe("JSON_NOT_REPRESENTABLE");
          expect((e as Error).message).toMatch(/is a google\.protobuf\.Any with \d+ value bytes? and no type_url|is a google\.protobuf\.FieldMask with path "(|[^"]*,[^"]*)", which the comma-separated form cannot hold/);
          continue;
        }
        expect(ours, m.typeName).toEqual(esJson);
        expect(ser.toJson(ser.fromJson(esJson as never)), m.typeName).toEqual(esJson);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(proto3.length);
  });

  test("of a proto3 file restores from its snapshot and transfer form, and is compatible with itself", () => {
    for (const m of proto3) {
      const type = ProtobufType.of(m);
      const restored = readSnapshot(writeSnapshot(type.createSerializer().snapshotConfiguration())).restoreSerializer();
      expect(restored.type.equals(type), m.typeName).toBe(true);
      expect(ProtobufType.fromBytes(type.toBytes()).equals(type), m.typeName).toBe(true);
      const report = evaluateSchemaChange(m, m);
      expect(report.compatible, m.typeName).toBe(true);
      expect(report.incompatibilities).toEqual([]);
    }
  });

  test("built from the set bytes, a type equals the one built from the registry's descriptor", () => {
    for (const m of proto3.filter((_, i) => i % 50 === 0)) {
      expect(ProtobufType.of({ fileDescriptorSet: setBytes, messageName: m.typeName }).equals(ProtobufType.of(m)), m.typeName).toBe(true);
    }
  });
});

describe("googleapis: every message loaded by protobufjs", () => {
  // The same files parsed by protobufjs (keepCase: true). Well-known types come from protobufjs's
  // bundled copies (any, struct, timestamp, ...) or, for the others (descriptor, type, api), from
  // the google-gax corpus: the lowering (src/descriptor/protobufjs.ts) must give the type buf gives.
  const pbRoot = new protobuf.Root();
  pbRoot.resolvePath = (origin, target) =>
    corpusPaths[target] ?? (target.startsWith("google/protobuf/") ? join(root, CORPORA[0]!, target) : protobuf.util.path.resolve(origin, target));
  pbRoot.loadSync(Object.keys(files).sort(), { keepCase: true });

  test("of a proto3 file equals the type built from buf's descriptor, and reads the bytes it writes", () => {
    for (const [i, m] of proto3.entries()) {
      const fromPbjs = ProtobufType.of(pbRoot.lookupType(m.typeName));
      const fromBuf = ProtobufType.of(m);
      expect(fromPbjs.equals(fromBuf), m.typeName).toBe(true);
      expect(fromPbjs.fingerprint(), m.typeName).toBe(fromBuf.fingerprint());
      if (i % 10 !== 0) continue;
      const ser = fromPbjs.createSerializer();
      for (const s of fc.sample(messageArb(m, 2, { maxItems: 2, maxMapEntries: 1, skipTypes: SKIP }), { numRuns: 2, seed: 13 })) {
        const esBytes = toBinary(m, create(m, s.es as never));
        expect(esContent(m, ser.toBinary(DynamicMessage.create(fromPbjs.descriptor, s.ours))), m.typeName).toBe(esContent(m, esBytes));
      }
    }
  });

  test("of a proto2 file is refused with SYNTAX_NOT_PROTO3, as from buf's descriptor", () => {
    for (const m of proto2) {
      expect(() => ProtobufType.of(pbRoot.lookupType(m.typeName)), m.typeName).toThrow(expect.objectContaining({ code: "SYNTAX_NOT_PROTO3" }));
    }
  });
});
