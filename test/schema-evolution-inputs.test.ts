import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import { describe, expect, test } from "vitest";
import { evaluateSchemaChange, InvalidDescriptorError } from "../src/index.js";
import { compileProtoDir, messageFromDir } from "./support/buf.js";

const dir = (name: string, side: string): string => `fixtures/compat/${name}/${side}`;

function protobufjsType(name: string, side: string): protobuf.Type {
  const file = fileURLToPath(new URL(`./${dir(name, side)}/order.proto`, import.meta.url));
  return protobuf.parse(readFileSync(file, "utf8"), { keepCase: true }).root.lookupType("acme.Order");
}

describe("evaluateSchemaChange: inputs", () => {
  const name = "several-incompatibilities";
  const expected = evaluateSchemaChange(messageFromDir(dir(name, "saved"), "acme.Order"), messageFromDir(dir(name, "current"), "acme.Order"));

  test("the fixture has findings to compare", () => {
    expect(expected.incompatibilities.length).toBe(8);
  });

  test.each([
    ["FileDescriptorSet on both sides", () => ({ fileDescriptorSet: compileProtoDir(dir(name, "saved")), messageName: "acme.Order" }), () => ({ fileDescriptorSet: compileProtoDir(dir(name, "current")), messageName: "acme.Order" })],
    ["protobufjs Type on both sides", () => protobufjsType(name, "saved"), () => protobufjsType(name, "current")],
    ["protobufjs Type saved, DescMessage current", () => protobufjsType(name, "saved"), () => messageFromDir(dir(name, "current"), "acme.Order")],
  ])("%s gives the same findings as DescMessages", (_label, saved, current) => {
    expect(evaluateSchemaChange(saved() as never, current() as never)).toEqual(expected);
  });

  test("unsupported input throws InvalidDescriptorError", () => {
    const current = messageFromDir(dir(name, "current"), "acme.Order");
    expect(() => evaluateSchemaChange({} as never, current)).toThrow(InvalidDescriptorError);
  });
});

describe("evaluateSchemaChange: invalid closures", () => {
  const valid = messageFromDir(dir("invalid-proto2-in-current", "saved"), "acme.Order");
  const invalid = messageFromDir(dir("invalid-proto2-in-current", "current"), "acme.Order");

  test.each([
    ["a proto2 type reached from the current schema", valid, invalid],
    ["a proto2 type reached from the saved schema", invalid, valid],
  ])("%s throws InvalidDescriptorError", (_label, saved, current) => {
    let error: unknown;
    try {
      evaluateSchemaChange(saved, current);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidDescriptorError);
    expect((error as InvalidDescriptorError).code).toBe("SYNTAX_NOT_PROTO3");
    expect((error as InvalidDescriptorError).message).toBe(
      'invalid descriptor acme.Order: message acme.LegacyNote is declared in proto2 file legacy.proto, reached as acme.Order → acme.LegacyNote; payload types must be declared in a proto3 file (syntax = "proto3")',
    );
  });
});
