// A FileDescriptorSet that declares a name twice, or holds two different files of one name, is
// refused as protoc refuses it ("already defined"): @bufbuild/protobuf's createFileRegistry let the
// later declaration replace the earlier silently, so the root, a field's type or a schema
// registry's message index bound whichever came last. A file repeated unchanged (sets joined by
// concatenation repeat their shared imports) is read once.
import { create, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";
import { compileProtoDir } from "./support/buf.js";

type Init = Parameters<typeof create<typeof FileDescriptorProtoSchema>>[1];
const file = (init: Init): FileDescriptorProto => create(FileDescriptorProtoSchema, { syntax: "proto3", package: "p", ...init });
const setOf = (...files: FileDescriptorProto[]) => toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: files }));
const field = (name: string, number: number, type: number, typeName?: string) => ({ name, number, label: 1, type, typeName, jsonName: name });
const INT = { name: "M", field: [field("a", 1, 5)] };
const STR = { name: "M", field: [field("b", 1, 9)] };
const HOLDER = { name: "H", field: [field("m", 1, 11, ".p.M")] };

const refused = (what: string) => `invalid descriptor p.H: the file descriptor set ${what}`;
const TWICE = refused("declares p.M more than once; protobuf names are unique, pass the set that protoc or buf wrote");

describe("refused", () => {
  test.each<[string, Uint8Array, string]>([
    ["one file declaring M twice", setOf(file({ name: "x.proto", messageType: [HOLDER, INT, STR] })), TWICE],
    ["two files each declaring M", setOf(file({ name: "x.proto", messageType: [INT] }), file({ name: "y.proto", messageType: [HOLDER, STR] })), TWICE],
    ["a message and an enum named M", setOf(file({ name: "x.proto", messageType: [HOLDER, INT], enumType: [{ name: "M", value: [{ name: "Z", number: 0 }] }] })), TWICE],
    ["a service named like a message", setOf(file({ name: "x.proto", messageType: [HOLDER, INT], service: [{ name: "M" }] })), TWICE],
    [
      "a nested name declared twice",
      setOf(file({ name: "x.proto", messageType: [{ name: "H", field: [field("m", 1, 11, ".p.H.M")], nestedType: [INT, STR] }] })),
      refused("declares p.H.M more than once; protobuf names are unique, pass the set that protoc or buf wrote"),
    ],
    [
      "two different files of one name (joined sets of two versions)",
      setOf(file({ name: "x.proto", messageType: [HOLDER, INT] }), file({ name: "x.proto", messageType: [HOLDER, STR] })),
      refused("holds two different files named x.proto (joined sets of two versions of a schema?); pass the set of one build (protoc --descriptor_set_out, buf build)"),
    ],
  ])("%s: DESCRIPTOR_SET_INVALID", (_name, set, message) => {
    expect(() => ProtobufType.of({ fileDescriptorSet: set, messageName: "p.H" })).toThrow(expect.objectContaining({ name: "InvalidDescriptorError", code: "DESCRIPTOR_SET_INVALID", message }));
  });
});

describe("accepted", () => {
  test("a set joined with itself (each file twice, unchanged) binds the type the set alone binds", () => {
    const set = compileProtoDir("fixtures/all-types");
    const joined = new Uint8Array([...set, ...set]); // concatenated sets are one set with every file twice
    const alone = ProtobufType.of({ fileDescriptorSet: set, messageName: "alltypes.AllTypes" });
    const twice = ProtobufType.of({ fileDescriptorSet: joined, messageName: "alltypes.AllTypes" });
    expect(twice.fingerprint).toBe(alone.fingerprint);
  });

  test("the same short name in two packages, or nested in two messages, is two names", () => {
    const set = setOf(
      file({ name: "y.proto", package: "q", messageType: [STR] }),
      file({ name: "x.proto", dependency: ["y.proto"], messageType: [{ name: "H", field: [field("a", 1, 11, ".p.H.M"), field("b", 2, 11, ".q.M"), field("c", 3, 11, ".p.G.M")], nestedType: [INT] }, { name: "G", nestedType: [STR] }] }),
    );
    expect(ProtobufType.of({ fileDescriptorSet: set, messageName: "p.H" }).descriptor.fields.map((f) => f.message?.typeName)).toEqual(["p.H.M", "q.M", "p.G.M"]);
  });
});
