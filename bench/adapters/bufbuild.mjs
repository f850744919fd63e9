// @bufbuild/protobuf v2 from a registry, without code generation: the DescMessage comes from the
// buf-compiled FileDescriptorSet, and create/fromBinary/toBinary work from it directly. From a
// plain object it does what its users do: toBinary(Schema, create(Schema, init)).
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryReader, BinaryWriter } from "@bufbuild/protobuf/wire";
import { toEsInit } from "../lib/build-fixtures.mjs";
import { encodeInputs } from "./inputs.mjs";

export default {
  id: "bufbuild",
  name: "@bufbuild/protobuf",
  async load({ versions }) {
    return {
      version: versions["@bufbuild/protobuf"],
      notes: ["registry (createFileRegistry), no codegen", "64-bit integers as bigint"],
      prepare(fixture) {
        const desc = fixture.desc;
        const toInit = (content) => toEsInit(desc, content);
        const encodePlain = (init) => toBinary(desc, create(desc, init));
        const writeFrames = (items, write) => {
          const writer = new BinaryWriter();
          for (const v of items) writer.bytes(write(v));
          return writer.finish();
        };
        return {
          ...encodeInputs(fixture, (content) => create(desc, toInit(content)), toInit),
          decode: (bytes) => fromBinary(desc, bytes),
          encode: (value) => toBinary(desc, value),
          encodePlain,
          relay: (bytes) => toBinary(desc, fromBinary(desc, bytes)),
          decodeFrames(buf) {
            const reader = new BinaryReader(buf);
            const out = [];
            while (reader.pos < reader.len) out.push(fromBinary(desc, reader.bytes()));
            return out;
          },
          encodeFrames: (values) => writeFrames(values, (v) => toBinary(desc, v)),
          encodePlainFrames: (inits) => writeFrames(inits, encodePlain),
        };
      },
    };
  },
};
