// The evaluator on real public schemas: google/iam/v1/policy.proto as google-gax ships it,
// compiled by buf, with edits a team makes; each verdict matches what data written with the
// saved schema does when the current one reads it (checked by hand and by a differential harness
// over protokeel and @bufbuild/protobuf writers).
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { create, createFileRegistry, fromBinary, toJson, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { evaluateSchemaChange, ProtobufType, type EvaluationResult } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";

const protos = join(resolve(dirname(fileURLToPath(import.meta.url)), ".."), "node_modules/google-gax/build/protos");
const POLICY = readFileSync(join(protos, "google/iam/v1/policy.proto"), "utf8");
const EXPR = readFileSync(join(protos, "google/type/expr.proto"), "utf8");
const LOG_TYPE = "google.iam.v1.Policy.audit_configs(6).audit_log_configs(3).log_type(1)";

/** google.iam.v1.Policy with AuditLogConfig.LogType's DATA_READ = 3 line replaced by `dataRead`. */
function policy(dataRead: string): DescMessage {
  if (!POLICY.includes("    DATA_READ = 3;")) throw new Error("policy.proto changed: no DATA_READ = 3");
  const text = POLICY.replace("    DATA_READ = 3;", dataRead).replace("  enum LogType {", dataRead.includes("= 3;\n") ? "  enum LogType {\n    option allow_alias = true;" : "  enum LogType {");
  const set = compileProtoText({ "google/iam/v1/policy.proto": text, "google/type/expr.proto": EXPR });
  return createFileRegistry(fromBinary(FileDescriptorSetSchema, set)).getMessage("google.iam.v1.Policy")!;
}

function verdict(r: EvaluationResult): string[] {
  return [...r.incompatibilities.map((f) => `${f.rule} at ${f.path}`), ...r.notes.map((f) => `note ${f.rule} at ${f.path}`)];
}

// [edit, saved DATA_READ line, current DATA_READ line, binary, json, binary+json]
const ALIASES: [string, string, string, string[], string[], string[]][] = [
  ["alias added after the saved name", "    DATA_READ = 3;", "    DATA_READ = 3;\n    READS = 3;", [], [], []],
  [
    "alias declared first: JSON output is the new name",
    "    DATA_READ = 3;",
    "    READS = 3;\n    DATA_READ = 3;",
    [],
    [`note JSON_OUTPUT_NAME_CHANGED at ${LOG_TYPE}.READS(3)`],
    [`note JSON_OUTPUT_NAME_CHANGED at ${LOG_TYPE}.READS(3)`],
  ],
  ["aliases reordered: the saved schema knows both names", "    DATA_READ = 3;\n    READS = 3;", "    READS = 3;\n    DATA_READ = 3;", [], [], []],
  [
    "the first of two aliases removed",
    "    READS = 3;\n    DATA_READ = 3;\n    R2 = 3;",
    "    DATA_READ = 3;\n    R2 = 3;",
    [`note ENUM_VALUE_RENAMED at ${LOG_TYPE}.DATA_READ(3)`],
    [`JSON_ENUM_VALUE_RENAMED at ${LOG_TYPE}.DATA_READ(3)`],
    [`JSON_ENUM_VALUE_RENAMED at ${LOG_TYPE}.DATA_READ(3)`, `note ENUM_VALUE_RENAMED at ${LOG_TYPE}.DATA_READ(3)`],
  ],
];

describe("google.iam.v1.Policy: enum value aliases (allow_alias) in AuditLogConfig.LogType", () => {
  test.each(ALIASES)("%s", (_name, savedLine, currentLine, binary, json, both) => {
    const saved = policy(savedLine);
    const current = policy(currentLine);
    expect(verdict(evaluateSchemaChange(saved, current))).toEqual(binary);
    expect(verdict(evaluateSchemaChange(saved, current, { boundary: "json" }))).toEqual(json);
    expect(verdict(evaluateSchemaChange(saved, current, { boundary: "binary+json" }))).toEqual(both);
  });

  test("the note says what current output a strict consumer of the saved schema meets", () => {
    const saved = policy("    DATA_READ = 3;");
    const current = policy("    READS = 3;\n    DATA_READ = 3;");
    const [n] = evaluateSchemaChange(saved, current, { boundary: "json" }).notes;
    expect(n!.message).toBe(
      `enum value ${LOG_TYPE}.READS(3) is now written as "READS", saved "DATA_READ": the current parser still reads "DATA_READ" (an alias of the same number), but a strict consumer of the saved schema rejects "READS" (one that ignores unknown fields drops the value); declare DATA_READ first to keep the saved output, or update consumers before producers write "READS"`,
    );
    // What the note describes: the current serializer writes the new name for a saved value.
    const value = create(saved, { auditConfigs: [{ service: "s", auditLogConfigs: [{ logType: 3 }] }] });
    const json = toJson(saved, value) as { auditConfigs: { auditLogConfigs: { logType: string }[] }[] };
    expect(json.auditConfigs[0]!.auditLogConfigs[0]!.logType).toBe("DATA_READ");
    const ser = ProtobufType.of(current).createSerializer();
    const read = ser.fromJson(json as never);
    expect(ser.toJson(read)).toEqual({ auditConfigs: [{ service: "s", auditLogConfigs: [{ logType: "READS" }] }] });
  });
});

describe("google.longrunning.Operation: a json_name equal to another field's proto name", () => {
  // name gets json_name "done" and done gets json_name "finished" (buf accepts it, upb refuses
  // it). ProtoJSON reads a field under both its names, so "done" names two fields: toJson wrote
  // name as "done" and done as "finished", and fromJson read them back as done twice
  // (JSON_FIELD_SET_TWICE). Construction refuses the schema (JSON_NAME_CONFLICT).
  const OPS = readFileSync(join(protos, "google/longrunning/operations.proto"), "utf8");
  /** operations.proto with its import closure from the corpus (buf supplies google/protobuf/). */
  const files = (text: string): Record<string, string> => {
    const out: Record<string, string> = {};
    const todo: [string, string | undefined][] = [["google/longrunning/operations.proto", text]];
    while (todo.length > 0) {
      const [name, given] = todo.pop()!;
      if (out[name] !== undefined || name.startsWith("google/protobuf/")) continue;
      const t = (out[name] = given ?? readFileSync(join(protos, name), "utf8"));
      for (const m of t.matchAll(/^import\s+(?:public\s+)?"([^"]+)";/gm)) todo.push([m[1]!, undefined]);
    }
    return out;
  };
  const op = (text: string): DescMessage =>
    createFileRegistry(fromBinary(FileDescriptorSetSchema, compileProtoText(files(text)))).getMessage("google.longrunning.Operation")!;

  test("is refused as JSON_NAME_CONFLICT by construction; the evaluator reads it", () => {
    const saved = op(OPS);
    const current = op(OPS.replace("string name = 1;", 'string name = 1 [json_name = "done"];').replace("bool done = 3;", 'bool done = 3 [json_name = "finished"];'));
    const message =
      'invalid descriptor google.longrunning.Operation: the JSON name of field google.longrunning.Operation.name is done, the proto name of field google.longrunning.Operation.done; ProtoJSON reads a field under both names, so "done" would name either: give name another json_name';
    expect(() => ProtobufType.of(current)).toThrow(expect.objectContaining({ name: "InvalidDescriptorError", code: "JSON_NAME_CONFLICT", message }));
    // A construction rule (as protoc's are): the evaluator still reads such a schema (one saved
    // before the rule existed), pairing each saved property with the field it names.
    expect(evaluateSchemaChange(saved, current, { boundary: "json" }).compatible).toBe(true);
  });
});
