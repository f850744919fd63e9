// protobufjs static code: `pbjs -t static-module -w es6` output, generated at run time.
import { pathToFileURL } from "node:url";
import { packageVersion } from "../lib/versions.mjs";
import { keepUnknownFields, protobufjsFrames, toProtobufjsObject } from "./protobufjs-reflect.mjs";

export default {
  id: "pbjs-static",
  name: "protobufjs (static)",
  async load({ generated }) {
    keepUnknownFields();
    const mod = await import(pathToFileURL(generated.pbjsStatic).href);
    return {
      version: packageVersion("protobufjs") + " / pbjs " + packageVersion("protobufjs-cli"),
      notes: ["Reader.discardUnknown = false (keeps unknown fields)", "64-bit integers as Long"],
      prepare(fixture) {
        const T = fixture.typeName.split(".").reduce((ns, part) => ns[part], mod);
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
