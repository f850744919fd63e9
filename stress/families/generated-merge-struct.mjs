// The generated kind's reader, N occurrences of a message field whose google.protobuf.Struct field
// each add one key (protobuf merges them). protobuf-es holds a Struct as a JsonObject; turning it
// back into a message and again into a JsonObject per occurrence made this N x N (16,000
// occurrences, 200 KB: 120 s, as protobuf-es' own fromBinary still takes). A Struct stays a
// message until the whole value is read; a singular field and a oneof member both.
import { create, createFileRegistry } from "@bufbuild/protobuf";
import { file_google_protobuf_struct, FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { L, pk, pushVarint, T } from "../lib.mjs";

const file = create(FileDescriptorProtoSchema, {
  name: "a.proto",
  package: "s",
  syntax: "proto3",
  dependency: ["google/protobuf/struct.proto"],
  messageType: [
    {
      name: "A",
      field: [
        { name: "s", number: 1, label: L.OPTIONAL, type: T.MESSAGE, typeName: ".google.protobuf.Struct" },
        { name: "os", number: 2, label: L.OPTIONAL, type: T.MESSAGE, typeName: ".google.protobuf.Struct", oneofIndex: 0 },
      ],
      oneofDecl: [{ name: "pick" }],
    },
    { name: "Outer", field: [{ name: "a", number: 1, label: L.OPTIONAL, type: T.MESSAGE, typeName: ".s.A" }] },
  ],
});
const desc = createFileRegistry(file, (n) => (n === "google/protobuf/struct.proto" ? file_google_protobuf_struct : undefined)).getMessage("s.Outer");
const ser = pk.ProtobufType.newGeneratedBuilder(desc).maxMessageBytes(1 << 30).build().createSerializer();

/** a { s { fields { key: "k<i>", value { null_value: NULL_VALUE } } } os { the same } } */
function occurrence(out, i) {
  const key = [...new TextEncoder().encode(`k${i}`)];
  const entry = [0x0a, key.length, ...key, 0x12, 2, 0x08, 0];
  const struct = [0x0a, entry.length, ...entry];
  const a = [0x0a, struct.length, ...struct, 0x12, struct.length, ...struct];
  out.push(0x0a);
  pushVarint(out, a.length);
  out.push(...a);
}

export const family = {
  name: "generated: merge N occurrences into a Struct",
  prepare: (n) => {
    const bytes = [];
    for (let i = 0; i < n; i++) occurrence(bytes, i);
    return Uint8Array.from(bytes);
  },
  run: (input) => {
    ser.fromBinary(input);
  },
};
