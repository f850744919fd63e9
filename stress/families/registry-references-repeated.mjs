// Registry attack (resolve.ts): every file's answer lists all f files again as references, so a
// read sees N = f * f reference mentions. Each import path must be queued once and the queue
// walked by index: queued whole and taken with shift(), 1,000 such files (N = 1e6) took 67-88 s.
// N is the input's size (the mentions), so a linear walk grows x10 per step.
import { create, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { RegistryDeserializer, writeRegistryHeader } from "../../dist/registry/index.js";
import { typeOf } from "../lib.mjs";

const reader = typeOf('syntax = "proto3"; package p; message Main { int32 v = 1; }', "p.Main");

function b64(name, message) {
  const file = create(FileDescriptorProtoSchema, {
    name,
    package: "p",
    syntax: "proto3",
    messageType: [{ name: message, field: [{ name: "v", number: 1, type: 5, label: 1, jsonName: "v" }] }],
  });
  return Buffer.from(toBinary(FileDescriptorProtoSchema, file)).toString("base64");
}

export const family = {
  name: "registry: N reference mentions (every file names all sqrt(N) files)",
  sizes: [1e4, 1e5, 1e6],
  prepare: (n) => {
    const f = Math.round(Math.sqrt(n));
    const refs = Array.from({ length: f }, (_, i) => ({ name: `f${i}.proto`, subject: `f${i}`, version: 1 }));
    const answers = new Map(refs.map((r) => [r.subject, b64(r.name, r.subject.toUpperCase())]));
    const main = b64("main.proto", "Main");
    return { refs, answers, main, record: new Uint8Array([...writeRegistryHeader(1, [0]), 0x08, 0x05]) };
  },
  // A fresh client and deserializer per run: a cache of either would make every run after the
  // first a lookup.
  run: async ({ refs, answers, main, record }) => {
    const client = {
      register: async () => 1,
      lookup: async () => {
        throw new Error("unused");
      },
      getById: async (id) => ({ id, schema: main, schemaType: "PROTOBUF", references: refs }),
      getBySubjectVersion: async (subject, version) => ({ id: 2, subject, version, schema: answers.get(subject), schemaType: "PROTOBUF", references: refs }),
      testCompatibility: async () => ({ isCompatible: true, messages: [] }),
    };
    const v = await new RegistryDeserializer(reader, { client }).deserialize(undefined, record);
    if (v.get("v") !== 5) throw new Error("wrong value");
  },
};
