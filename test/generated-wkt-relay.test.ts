// What a protobuf-es object cannot hold (README "Generated messages"): a wrapper field holds the
// bare scalar, a Struct field a JsonObject (a Value its JSON value, a ListValue an array), so what
// the wire carries beyond that is gone once the generated kind reads it: unknown fields inside
// them, a Value with no kind (read as null), a null_value other than 0. A relay of the generated
// kind writes what protobuf-es' own fromBinary + toBinary write; the dynamic kind relays every
// byte. (Found by a random-schema attack: the README's "a relay loses nothing" did not say so.)
import { create, createFileRegistry, fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, file_google_protobuf_struct, file_google_protobuf_wrappers } from "@bufbuild/protobuf/wkt";
import { expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";

const T = { MESSAGE: 11 };
const msg = (name: string, number: number, typeName: string, extra: object = {}) => ({ name, number, label: 1, type: T.MESSAGE, typeName, jsonName: name, ...extra });
const set = create(FileDescriptorSetSchema, {
  file: [
    file_google_protobuf_wrappers.proto,
    file_google_protobuf_struct.proto,
    {
      name: "w.proto",
      package: "w",
      syntax: "proto3",
      dependency: ["google/protobuf/wrappers.proto", "google/protobuf/struct.proto"],
      messageType: [
        {
          name: "M",
          field: [
            msg("n", 1, ".google.protobuf.UInt64Value"),
            msg("s", 2, ".google.protobuf.Struct"),
            msg("v", 3, ".google.protobuf.Value"),
            msg("o", 5, ".google.protobuf.Struct", { oneofIndex: 0 }),
          ],
          oneofDecl: [{ name: "k" }],
        },
      ],
    },
  ],
});
const desc = createFileRegistry(set).getMessage("w.M")!;
const generated = ProtobufType.ofGenerated(desc).createSerializer();
const dynamic = ProtobufType.of(desc).createSerializer();

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

// [what, input, the generated kind's relay (protobuf-es' own)]
const LOST: [string, string, string][] = [
  ["an unknown field inside a wrapper", "0a0408054801", "0a020805"],
  ["an unknown field inside a Struct", "12024801", "1200"],
  ["an unknown field inside a Struct oneof member", "2a024801", "2a00"],
  ["an unknown field inside a ListValue inside a Struct", "120b0a090a0161120432024801", "12090a070a016112023200"],
  ["a Value with no kind inside a Struct", "12070a050a01611200", "12090a070a016112020800"],
  ["a null_value of 2 inside a Struct", "12090a070a016112020802", "12090a070a016112020800"],
];

test.each(LOST)("%s: the dynamic kind relays every byte, the generated kind what protobuf-es writes", (_what, input, lossy) => {
  const bytes = Buffer.from(input, "hex");
  expect(hex(dynamic.toBinary(dynamic.fromBinary(bytes)))).toBe(input);
  const relayed = generated.toBinary(generated.fromBinary(bytes));
  expect(hex(relayed)).toBe(hex(toBinary(desc, fromBinary(desc, bytes))));
  expect(hex(relayed)).toBe(lossy);
});

// A google.protobuf.Value field (not inside a Struct) is a Value message in protobuf-es: kept.
const KEPT: [string, string][] = [
  ["a Value with no kind", "1a00"],
  ["a null_value of 2", "1a020802"],
  ["an unknown field inside a Value", "1a0408014801"],
];

test.each(KEPT)("%s in a Value field: both kinds relay every byte", (_what, input) => {
  const bytes = Buffer.from(input, "hex");
  expect(hex(dynamic.toBinary(dynamic.fromBinary(bytes)))).toBe(input);
  expect(hex(generated.toBinary(generated.fromBinary(bytes)))).toBe(input);
});
