import { createFileRegistry, fromBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { expect, test } from "vitest";
import { evaluateSchemaChange } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";

// A chain of distinct message types thousands deep: the walk keeps its own stack, so it must
// neither overflow the call stack nor lose the order of findings.
const DEPTH = 3000;

function chain(leafType: string): DescMessage {
  const lines = ['syntax = "proto3";', "", "package deep;", ""];
  for (let i = 0; i < DEPTH; i++) lines.push(`message M${i} { M${i + 1} next = 1; }`);
  lines.push(`message M${DEPTH} { ${leafType} v = 1; }`);
  const set = fromBinary(FileDescriptorSetSchema, compileProtoText({ "deep.proto": lines.join("\n") }));
  return createFileRegistry(set).getMessage("deep.M0")!;
}

test(`a change ${DEPTH} types deep is found at its full path`, () => {
  const saved = chain("int32");
  const result = evaluateSchemaChange(saved, chain("uint32"));
  expect(result.incompatibilities.map((f) => [f.rule, f.path])).toEqual([
    ["FIELD_TYPE_CHANGED", `deep.M0${".next(1)".repeat(DEPTH)}.v(1)`],
  ]);
  expect(evaluateSchemaChange(saved, chain("int64"))).toEqual({ compatible: true, incompatibilities: [], notes: [] });
});
