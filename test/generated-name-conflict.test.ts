// protobuf-es names a message's members (fields outside oneofs, and oneofs) by local name, and
// protoc compares only fields' JSON names: a oneof `foo_bar` beside a field `fooBar` compiles, and
// both become the property `fooBar` of protobuf-es objects, which then hold one or the other. The
// generated kind refuses such a schema by name (GENERATED_NAME_CONFLICT), wherever the message is
// reached from the root; the dynamic kind, which reads by proto names, keeps every field.
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { DynamicMessage, InvalidDescriptorError, ProtobufType } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";
import { thrown } from "./support/thrown.js";

function root(proto: string) {
  const reg = createFileRegistry(fromBinary(FileDescriptorSetSchema, compileProtoText({ "c.proto": `syntax = "proto3";\npackage c;\n${proto}` })));
  return reg.getMessage("c.M")!;
}

const tail = "so its message objects cannot hold both; rename one of them in the .proto file, or read this schema with the dynamic kind (ProtobufType.of)";

// [schema, what the message names]
const CONFLICTS: [string, string, string][] = [
  ["a oneof and a field", "message M { oneof foo_bar { int32 x = 1; } int32 fooBar = 2; }", `message c.M has oneof foo_bar and field fooBar, which protobuf-es both names "fooBar", ${tail}`],
  ["a field and a oneof (declared in that order)", "message M { int32 fooBar = 2; oneof foo_bar { int32 x = 1; } }", `message c.M has field fooBar and oneof foo_bar, which protobuf-es both names "fooBar", ${tail}`],
  ["__proto__ and __proto", "message M { int32 __proto__ = 1; oneof __proto { int32 x = 2; } }", `message c.M has field __proto__ and oneof __proto, which protobuf-es both names "Proto", ${tail}`],
  ["in a message the root reaches through a list", "message M { repeated N n = 1; } message N { oneof a_b { int32 x = 1; } int32 aB = 2; }", `message c.N has oneof a_b and field aB, which protobuf-es both names "aB", ${tail}`],
  ["in a map value of a recursive type", "message M { M self = 1; map<string, N> n = 2; } message N { oneof a_b { int32 x = 1; } int32 a_b_ = 2; }", `message c.N has oneof a_b and field a_b_, which protobuf-es both names "aB", ${tail}`],
];

describe("the generated kind refuses, the dynamic kind reads", () => {
  test.each(CONFLICTS)("%s", (_name, proto, message) => {
    const M = root(proto);
    for (const build of [() => ProtobufType.ofGenerated(M), () => ProtobufType.newGeneratedBuilder(M).maxDepth(10).build()]) {
      const e = thrown(build) as InvalidDescriptorError;
      expect(e).toBeInstanceOf(InvalidDescriptorError);
      expect([e.code, e.message]).toEqual(["GENERATED_NAME_CONFLICT", `invalid descriptor c.M: ${message}`]);
    }
    const ser = ProtobufType.of(M).createSerializer();
    const v = ser.fromBinary(ser.toBinary(DynamicMessage.create(M, {})));
    expect(v.toObject()).toBeTypeOf("object");
  });

  test("the dynamic kind keeps both members of a conflicting pair", () => {
    const M = root(CONFLICTS[0]![1]);
    const ser = ProtobufType.of(M).createSerializer();
    const bytes = ser.toBinary({ x: 3, fooBar: 4 } as never);
    expect(ser.fromBinary(bytes).toObject()).toEqual({ x: 3, fooBar: 4 });
  });

  test("names that differ only where protobuf-es escapes them do not conflict", () => {
    // constructor → constructor$, to_string → toString$: distinct from any other member.
    const M = root("message M { int32 constructor = 1; int32 to_string = 2; oneof value_of { int32 x = 3; } int32 then = 4; }");
    expect(ProtobufType.ofGenerated(M).kind).toBe("generated");
  });
});
