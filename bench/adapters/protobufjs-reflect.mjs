// protobufjs reflection: a Root parsed from the .proto text at run time; Type.encode/decode are
// generated on first use (protobufjs compiles them with new Function). The ratio baseline.
import protobuf from "protobufjs";
import { mapContent } from "../lib/content.mjs";
import { encodeInputs } from "./inputs.mjs";

/** protobufjs's init form: camelCase keys (keepCase false), 64-bit as decimal strings (read by Long), a oneof by member. */
export const toProtobufjsObject = (desc, content) => mapContent(desc, content, { key: (f) => f.localName, long: (v) => v.toString(), oneof: "member" });

/** protobufjs 8 keeps unknown fields only when the reader is told to; a relay must not drop them. */
export function keepUnknownFields() {
  protobuf.Reader.discardUnknown = false;
}

/**
 * The operations over a protobufjs Type or static class. Built values come from `fromObject`; the
 * plain object form is what `toObject` returns with its default options (camelCase keys, 64-bit
 * integers as Long, bytes as Uint8Array, enums as numbers: what a protobufjs user holds), and
 * encode from a plain object is `T.encode(plain).finish()` on it, with no `fromObject`.
 */
export function protobufjsOperations(T, fixture) {
  const writeFrames = (items) => {
    const writer = protobuf.Writer.create();
    for (const v of items) T.encodeDelimited(v, writer);
    return writer.finish();
  };
  const build = (content) => T.fromObject(toProtobufjsObject(fixture.desc, content));
  const encode = (value) => T.encode(value).finish();
  return {
    ...encodeInputs(fixture, build, (content) => T.toObject(build(content))),
    decode: (bytes) => T.decode(bytes),
    encode,
    encodePlain: encode,
    relay: (bytes) => T.encode(T.decode(bytes)).finish(),
    decodeFrames(buf) {
      const reader = protobuf.Reader.create(buf);
      const out = [];
      while (reader.pos < reader.len) out.push(T.decodeDelimited(reader));
      return out;
    },
    encodeFrames: writeFrames,
    encodePlainFrames: writeFrames,
  };
}

export const PROTOBUFJS_NOTES = ["Reader.discardUnknown = false (keeps unknown fields)", "64-bit integers as Long"];

export default {
  id: "pbjs-reflect",
  name: "protobufjs (reflection)",
  async load({ protoTexts, versions }) {
    keepUnknownFields();
    const root = new protobuf.Root();
    for (const text of protoTexts) protobuf.parse(text, root, { keepCase: false });
    root.resolveAll();
    return {
      version: versions.protobufjs,
      notes: PROTOBUFJS_NOTES,
      prepare: (fixture) => protobufjsOperations(root.lookupType(fixture.typeName), fixture),
    };
  },
};
