// pbf: read/write functions compiled by its CLI (`pbf file.proto`), generated at run time. Its
// values are plain objects, so encode and encode from a plain object both call its writer on one.
import { PbfReader, PbfWriter } from "pbf";
import { mapContent } from "../lib/content.mjs";
import { encodeInputs } from "./inputs.mjs";

/** pbf's object form: proto field names, 64-bit integers as numbers (its only representation), a oneof by member. */
const toPbfObject = (desc, content) => mapContent(desc, content, { key: (f) => f.name, long: (v) => Number(v), oneof: "member" });

export default {
  id: "pbf",
  name: "pbf",
  async load({ modules, versions }) {
    const fns = modules.pbf;
    return {
      version: versions.pbf,
      notes: ["64-bit integers as number (exact only below 2^53)", "unknown fields skipped"],
      prepare(fixture) {
        const name = fixture.typeName.split(".").pop();
        const read = fns[`read${name}`];
        const write = fns[`write${name}`];
        const decode = (bytes) => read(new PbfReader(bytes));
        const encode = (value) => {
          const writer = new PbfWriter();
          write(value, writer);
          return writer.finish();
        };
        const encodeFrames = (values) => {
          const writer = new PbfWriter();
          for (const v of values) writer.writeRawMessage(write, v);
          return writer.finish();
        };
        const toObject = (content) => toPbfObject(fixture.desc, content);
        return {
          ...encodeInputs(fixture, toObject, toObject),
          decode,
          encode,
          encodePlain: encode,
          relay: (bytes) => encode(decode(bytes)),
          decodeFrames(buf) {
            const reader = new PbfReader(buf);
            const out = [];
            while (reader.pos < reader.length) {
              const end = reader.readVarint() + reader.pos;
              out.push(read(reader, end));
            }
            return out;
          },
          encodeFrames,
          encodePlainFrames: encodeFrames,
        };
      },
    };
  },
};
