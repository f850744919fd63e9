// A file's package must be identifiers joined by dots, as protoc requires. @bufbuild/protobuf
// checks type, field and enum value names but not the package, so a hand-built set or a
// checksum-valid snapshot whose package held other text ("acme;\nmessage Injected {…}\n//")
// restored, and the .proto text printed from it (a registry's schema, `protokeel inspect`)
// declared a type the schema does not have.
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { InvalidDescriptorError, ProtobufType, RestoreError, readSnapshot } from "../src/index.js";
import { protoText } from "../src/descriptor/proto-text.js";
import { isPackageName } from "../src/descriptor/rules.js";
import { L, T, messageOf, scalar, setBytes, type FileInit } from "./support/descriptors.js";
import { assemble, defaultFields } from "./support/snapshot-bytes.js";

const file = (pkg: string, init: Partial<FileInit> = {}): FileInit =>
  ({ name: "a/order.proto", package: pkg, syntax: "proto3", messageType: [{ name: "Order", field: [scalar("id", 1)] }], ...init }) as FileInit;

const rootOf = (pkg: string): string => (pkg === "" ? "Order" : `${pkg}.Order`);

const BAD = ["acme;\nmessage Injected { string x = 1; }\n//", "1acme", "acme..b", "acme.", "ac-me", "acme ", "ácme", "acme.2b", "a\u0000b"];
const GOOD = ["", "a", "_a.b_1", "A.B.C", "acme.v1beta1", "x".repeat(300)];

describe("package names", () => {
  test.each(BAD)("%j is refused on every input path", (pkg) => {
    const files = [file(pkg)];
    const expected = {
      name: "InvalidDescriptorError",
      code: "PACKAGE_NAME_INVALID",
      message: `invalid descriptor ${rootOf(pkg)}: file "a/order.proto" declares package ${JSON.stringify(pkg)}, which is not identifiers joined by dots (letters, digits and _, not starting with a digit); use a package name protoc accepts`,
    };
    expect(() => ProtobufType.of(messageOf(files, rootOf(pkg)))).toThrow(expect.objectContaining(expected));
    expect(() => ProtobufType.of({ fileDescriptorSet: setBytes(files), messageName: rootOf(pkg) })).toThrow(expect.objectContaining(expected));
  });

  test.each(GOOD)("%j is accepted", (pkg) => {
    const type = ProtobufType.of(messageOf([file(pkg)], rootOf(pkg)));
    expect(type.fullName).toBe(rootOf(pkg));
  });

  test("a referenced type's file is checked too", () => {
    const files = [
      file("bad-pkg", { name: "b/item.proto", messageType: [{ name: "Item", field: [scalar("sku", 1, T.STRING)] }] } as Partial<FileInit>),
      file("acme", {
        name: "a/order.proto",
        dependency: ["b/item.proto"],
        messageType: [{ name: "Order", field: [{ name: "item", number: 1, type: T.MESSAGE, typeName: ".bad-pkg.Item", label: L.OPTIONAL }] }],
      } as Partial<FileInit>),
    ];
    expect(() => ProtobufType.of(messageOf(files, "acme.Order"))).toThrow(
      expect.objectContaining({ code: "PACKAGE_NAME_INVALID", message: expect.stringContaining('declares package "bad-pkg"') }),
    );
  });

  test("a checksum-valid snapshot whose package holds a declaration does not restore", () => {
    const pkg = BAD[0]!;
    const genuine = fromBinary(FileDescriptorSetSchema, ProtobufType.of(messageOf([file("acme")], "acme.Order")).normalizedDescriptorSet());
    for (const f of genuine.file) {
      f.package = pkg;
      f.name = f.name.replace("acme", pkg);
    }
    const snapshot = readSnapshot(assemble(defaultFields(rootOf(pkg), toBinary(FileDescriptorSetSchema, genuine))));
    let error: unknown;
    try {
      snapshot.restoreSerializer();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RestoreError);
    expect((error as RestoreError).code).toBe("PACKAGE_NAME_INVALID");
    expect((error as RestoreError).cause).toBeInstanceOf(InvalidDescriptorError);
  });

  test("proto text names a file whose name holds a line break quoted, on its comment line", () => {
    const set = fromBinary(FileDescriptorSetSchema, setBytes([file("acme", { name: "a\nmessage X {}" } as Partial<FileInit>)]));
    expect(protoText(set).split("\n").slice(0, 3)).toEqual(['// "a\\012message X {}"', 'syntax = "proto3";', "package acme;"]);
  });
});

// The check is a scan (no regular expression: see isPackageName); the grammar's expression is the oracle.
test("isPackageName accepts exactly what protoc's grammar as a regular expression matches", () => {
  const grammar = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;
  for (const pkg of [...BAD, ...GOOD.slice(1)]) expect(isPackageName(pkg)).toBe(grammar.test(pkg));
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom(..."aZ_09.-\u00e1 "), maxLength: 12 }), (pkg) => {
      expect(isPackageName(pkg)).toBe(grammar.test(pkg));
    }),
    { numRuns: 20000 },
  );
});
