// The .proto text `protokeel inspect` prints names a field's type without its leading dot
// (`acme.Item`) for reading. protoc and buf resolve such a name by its first part from the
// innermost scope out and commit to the first message, enum or package they find there: in
// `package a.b;` a message Msg that nests a message `a` read `a.b.Other` as `a.b.Msg.a.b.Other`,
// so the printed schema did not compile (or, where that name exists, named another type). A name
// that a scope would capture keeps its dot; compiling the printed text gives the same schema.
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";
import { protoText } from "../src/descriptor/proto-text.js";
import { compileProtoText } from "./support/buf.js";

/** The printed schema of `root` in `files`, split back into its files. */
function printed(files: Record<string, string>, root: string): { text: string; files: Record<string, string>; type: ProtobufType } {
  const type = ProtobufType.of({ fileDescriptorSet: compileProtoText(files), messageName: root });
  const text = protoText(fromBinary(FileDescriptorSetSchema, type.normalizedDescriptorSet()));
  const out: Record<string, string> = {};
  for (const part of text.split(/^\/\/ /m).filter((p) => p !== "")) {
    const nl = part.indexOf("\n");
    out[part.slice(0, nl)] = part.slice(nl + 1);
  }
  return { text, files: out, type };
}

test.each<[string, Record<string, string>, string, string[]]>([
  [
    "a nested message named like the package's first part",
    { "x.proto": 'syntax = "proto3"; package a.b; message Other { int32 x = 1; } message Msg { message a { int32 y = 1; } Other o = 1; a n = 2; map<string, Other> m = 3; }' },
    "a.b.Msg",
    [".a.b.Other o = 1;", ".a.b.Msg.a n = 2;", "map<string, .a.b.Other> m = 3;"],
  ],
  [
    "a nested enum named like the package's first part",
    { "x.proto": 'syntax = "proto3"; package p.q; message Other { int32 x = 1; } message Msg { enum p { P_ZERO = 0; } Other o = 1; p e = 2; }' },
    "p.q.Msg",
    [".p.q.Other o = 1;", ".p.q.Msg.p e = 2;"],
  ],
  [
    "a package inside the scope's package with the first part's name",
    {
      "inner.proto": 'syntax = "proto3"; package x.y.x; message Z { int32 z = 1; }',
      "outer.proto": 'syntax = "proto3"; package x.y; import "inner.proto"; message Other { int32 o = 1; } message Msg { Other o = 1; x.Z z = 2; }',
    },
    "x.y.Msg",
    [".x.y.Other o = 1;", "x.y.x.Z z = 2;"],
  ],
  [
    "no package: a nested message of the same name as a top-level one",
    { "x.proto": 'syntax = "proto3"; message Foo { int32 f = 1; } message Bar { message Foo { string g = 1; } .Foo top = 1; Foo inner = 2; }' },
    "Bar",
    [".Foo top = 1;", "Bar.Foo inner = 2;"],
  ],
  [
    "a message named like the package (the name's first part finds the message)",
    { "x.proto": 'syntax = "proto3"; package g; message g { int32 x = 1; } message R { g f = 1; }' },
    "g.R",
    [".g.g f = 1;"],
  ],
  [
    "a type whose name starts with a word a statement starts with",
    {
      "x.proto":
        'syntax = "proto3"; message option { int32 o = 1; } message optional { int32 o = 1; } message map { int32 o = 1; } message R { .option a = 1; .optional b = 2; .map c = 3; repeated .option d = 4; oneof k { .option e = 5; } }',
    },
    "R",
    [".option a = 1;", ".optional b = 2;", ".map c = 3;", "repeated .option d = 4;", ".option e = 5;"],
  ],
  [
    "types named like scalars, and a package whose first part is one",
    {
      "s.proto": 'syntax = "proto3"; package string.q; message M { int32 m = 1; }',
      "x.proto":
        'syntax = "proto3"; package z; import "s.proto"; message int32 { string s = 1; } enum bytes { B0 = 0; } message R { .z.int32 a = 1; .z.bytes b = 2; .string.q.M c = 3; map<string, .string.q.M> d = 4; int32 e = 5; }',
    },
    "z.R",
    ["z.int32 a = 1;", "z.bytes b = 2;", ".string.q.M c = 3;", "map<string, .string.q.M> d = 4;", "int32 e = 5;"],
  ],
  [
    "a type named like a scalar, with no package",
    { "x.proto": 'syntax = "proto3"; message int32 { string s = 1; } message R { .int32 f = 1; repeated .int32 g = 2; }' },
    "R",
    [".int32 f = 1;", "repeated .int32 g = 2;"],
  ],
  [
    "names no scope captures stay without a dot",
    { "x.proto": 'syntax = "proto3"; package acme; message Item { int32 q = 1; } message Order { repeated Item items = 1; map<string, Item> byId = 2; message Note { Item item = 1; } Note note = 3; }' },
    "acme.Order",
    ["repeated acme.Item items = 1;", "map<string, acme.Item> byId = 2;", "acme.Item item = 1;", "acme.Order.Note note = 3;"],
  ],
  [
    "a field named like the package's first part does not capture (fields are not scopes)",
    { "x.proto": 'syntax = "proto3"; package a.b; message Other { int32 x = 1; } message Msg { int32 a = 1; Other o = 2; }' },
    "a.b.Msg",
    ["int32 a = 1;", "a.b.Other o = 2;"],
  ],
])("%s: the printed text compiles back to the same schema", (_name, files, root, lines) => {
  const { text, files: back, type } = printed(files, root);
  for (const line of lines) expect(text).toContain(line);
  const again = ProtobufType.of({ fileDescriptorSet: compileProtoText(back), messageName: root });
  expect(again.fingerprint()).toBe(type.fingerprint());
});
