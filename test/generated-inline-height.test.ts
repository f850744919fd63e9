// The generated writer writes types that nest at most 8 levels by JS recursion ("inline"), others
// on its frame stack. Their heights are kept for the process; a search that stopped at its budget
// was kept as exact, so a type that reaches google.protobuf.Struct (or itself) through a field
// after the one that stopped it became inline for every type built later: a valid value's write
// was refused as an internal error (found on google.cloud.dialogflow.v2.GeneratorSuggestion after
// a serializer of UpdateGeneratorRequest was built), and a 9,000-deep chain overflowed the stack.
// The order of builds matters, and module state is per test file: each case builds Root first.
import { create, createFileRegistry, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, file_google_protobuf_struct } from "@bufbuild/protobuf/wkt";
import { expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";

const msg = (name: string, fields: [string, number, string][]) => ({
  name,
  field: fields.map(([n, num, type]) => ({ name: n, number: num, label: 1, type: 11, typeName: type, jsonName: n })),
});
const file = create(FileDescriptorProtoSchema, {
  name: "x.proto",
  package: "x",
  syntax: "proto3",
  dependency: ["google/protobuf/struct.proto"],
  messageType: [
    msg("D3", []),
    msg("D2", [["d", 1, ".x.D3"]]),
    msg("Deep", [["d", 1, ".x.D2"]]),
    // A field of height 3 first, then one that nests without bound.
    msg("Tool", [["deep", 1, ".x.Deep"], ["params", 2, ".google.protobuf.Struct"]]),
    msg("Node", [["deep", 1, ".x.Deep"], ["next", 2, ".x.Node"]]),
    msg("C6", [["t", 1, ".x.Tool"], ["n", 2, ".x.Node"]]),
    msg("C5", [["c", 1, ".x.C6"]]),
    msg("C4", [["c", 1, ".x.C5"]]),
    msg("C3", [["c", 1, ".x.C4"]]),
    msg("C2", [["c", 1, ".x.C3"]]),
    msg("C1", [["c", 1, ".x.C2"]]),
    msg("Root", [["deep", 1, ".x.Deep"], ["c", 2, ".x.C1"]]),
  ],
});
const reg = createFileRegistry(file, (n) => (n === "google/protobuf/struct.proto" ? file_google_protobuf_struct : undefined));
const get = (name: string): DescMessage => reg.getMessage(name)!;

test("types built after another whose height search stopped early are written as protobuf-es writes them", () => {
  // Builds Root's plans: the searches below it stop at their budget inside C1..C6.
  ProtobufType.ofGenerated(get("x.Root")).createSerializer();

  const Tool = get("x.Tool");
  const tool = ProtobufType.ofGenerated(Tool).createSerializer();
  const v = create(Tool, { deep: { d: { d: {} } }, params: { a: 1, b: [true, null, "s"] } });
  expect(tool.toBinary(v)).toEqual(toBinary(Tool, v));
  expect(fromBinary(Tool, tool.toBinary(v))).toEqual(v);

  const Node = get("x.Node");
  const node = ProtobufType.newGeneratedBuilder(Node).maxDepth(10_000).build().createSerializer();
  let chain = create(Node, {});
  for (let i = 0; i < 9_000; i++) chain = create(Node, { next: chain });
  // (protobuf-es' own toBinary overflows the stack at this depth.) Each level is a tag, a length
  // and the level below.
  const bytes = node.toBinary(chain);
  let size = 0;
  for (let i = 0; i < 9_000; i++) size += 1 + (size < 128 ? 1 : size < 16_384 ? 2 : 3);
  expect(bytes.length).toBe(size);
  expect(node.toBinary(node.fromBinary(bytes))).toEqual(bytes);

  // The root itself, with both below it.
  const Root = get("x.Root");
  const root = ProtobufType.ofGenerated(Root).createSerializer();
  let init: Record<string, unknown> = { t: { params: { k: "v" } }, n: { next: {} } };
  for (let i = 0; i < 6; i++) init = { c: init };
  const r = create(Root, init as never);
  expect(root.toBinary(r)).toEqual(toBinary(Root, r));
});
