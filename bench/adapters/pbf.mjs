// pbf: read/write functions compiled by its CLI (`pbf file.proto`), generated at run time.
import { pathToFileURL } from "node:url";
import { PbfReader, PbfWriter } from "pbf";
import { mapContent } from "../lib/content.mjs";
import { packageVersion } from "../lib/versions.mjs";

/** pbf's object form: proto field names, 64-bit integers as numbers (its only representation), a oneof by member. */
const toPbfObject = (desc, content) => mapContent(desc, content, { key: (f) => f.name, long: (v) => Number(v), oneof: "member" });

export default {
  id: "pbf",
  name: "pbf",
  async load({ generated }) {
    const fns = {};
    for (const file of generated.pbf) Object.assign(fns, await import(pathToFileURL(file).href));
    return {
      version: packageVersion("pbf"),
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
        const build = (content) => toPbfObject(fixture.desc, content);
        return {
          value: fixture.kind === "message" ? build(fixture.content) : undefined,
          values: fixture.kind === "frames" ? fixture.contents.map(build) : undefined,
          build,
          decode,
          encode,
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
          encodeFrames(values) {
            const writer = new PbfWriter();
            for (const v of values) writer.writeRawMessage(write, v);
            return writer.finish();
          },
        };
      },
    };
  },
};
