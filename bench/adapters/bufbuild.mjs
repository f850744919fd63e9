// @bufbuild/protobuf v2 from a registry, without code generation: the DescMessage comes from the
// buf-compiled FileDescriptorSet, and create/fromBinary/toBinary work from it directly.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryReader, BinaryWriter } from "@bufbuild/protobuf/wire";
import { toEsInit } from "../lib/fixtures.mjs";
import { packageVersion } from "../lib/versions.mjs";

export default {
  id: "bufbuild",
  name: "@bufbuild/protobuf",
  async load() {
    return {
      version: packageVersion("@bufbuild/protobuf"),
      notes: ["registry (createFileRegistry), no codegen", "64-bit integers as bigint"],
      prepare(fixture) {
        const desc = fixture.desc;
        const build = (content) => create(desc, toEsInit(desc, content));
        return {
          value: fixture.kind === "message" ? build(fixture.content) : undefined,
          values: fixture.kind === "frames" ? fixture.contents.map(build) : undefined,
          build,
          decode: (bytes) => fromBinary(desc, bytes),
          encode: (value) => toBinary(desc, value),
          relay: (bytes) => toBinary(desc, fromBinary(desc, bytes)),
          decodeFrames(buf) {
            const reader = new BinaryReader(buf);
            const out = [];
            while (reader.pos < reader.len) out.push(fromBinary(desc, reader.bytes()));
            return out;
          },
          encodeFrames(values) {
            const writer = new BinaryWriter();
            for (const v of values) writer.bytes(toBinary(desc, v));
            return writer.finish();
          },
        };
      },
    };
  },
};
