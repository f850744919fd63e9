// protobufjs reflection: a Root parsed from the .proto text at run time; Type.encode/decode are
// generated on first use (protobufjs compiles them with new Function). The ratio baseline.
import { readFileSync } from "node:fs";
import protobuf from "protobufjs";
import { mapContent } from "../lib/content.mjs";
import { packageVersion } from "../lib/versions.mjs";

/** protobufjs's init form: camelCase keys (keepCase false), 64-bit as decimal strings (read by Long), a oneof by member. */
export const toProtobufjsObject = (desc, content) => mapContent(desc, content, { key: (f) => f.localName, long: (v) => v.toString(), oneof: "member" });

/** protobufjs 8 keeps unknown fields only when the reader is told to; a relay must not drop them. */
export function keepUnknownFields() {
  protobuf.Reader.discardUnknown = false;
}

/** Frame functions over a protobufjs-style class or Type (encodeDelimited/decodeDelimited). */
export function protobufjsFrames(T) {
  return {
    decodeFrames(buf) {
      const reader = protobuf.Reader.create(buf);
      const out = [];
      while (reader.pos < reader.len) out.push(T.decodeDelimited(reader));
      return out;
    },
    encodeFrames(values) {
      const writer = protobuf.Writer.create();
      for (const v of values) T.encodeDelimited(v, writer);
      return writer.finish();
    },
  };
}

export default {
  id: "pbjs-reflect",
  name: "protobufjs (reflection)",
  async load({ protoFiles }) {
    keepUnknownFields();
    const root = new protobuf.Root();
    for (const file of protoFiles) protobuf.parse(readFileSync(file, "utf8"), root, { keepCase: false });
    root.resolveAll();
    return {
      version: packageVersion("protobufjs"),
      notes: ["Reader.discardUnknown = false (keeps unknown fields)", "64-bit integers as Long"],
      prepare(fixture) {
        const T = root.lookupType(fixture.typeName);
        const build = (content) => T.fromObject(toProtobufjsObject(fixture.desc, content));
        return {
          value: fixture.kind === "message" ? build(fixture.content) : undefined,
          values: fixture.kind === "frames" ? fixture.contents.map(build) : undefined,
          build,
          decode: (bytes) => T.decode(bytes),
          encode: (value) => T.encode(value).finish(),
          relay: (bytes) => T.encode(T.decode(bytes)).finish(),
          ...protobufjsFrames(T),
        };
      },
    };
  },
};
