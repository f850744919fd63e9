// protobufjs static code: `pbjs -t static-module -w es6` output, generated at run time.
import { keepUnknownFields, PROTOBUFJS_NOTES, protobufjsOperations } from "./protobufjs-reflect.mjs";

export default {
  id: "pbjs-static",
  name: "protobufjs (static)",
  async load({ modules, versions }) {
    keepUnknownFields();
    const mod = modules.pbjsStatic;
    return {
      version: versions.protobufjs + " / pbjs " + versions["protobufjs-cli"],
      notes: PROTOBUFJS_NOTES,
      prepare: (fixture) => protobufjsOperations(fixture.typeName.split(".").reduce((ns, part) => ns[part], mod), fixture),
    };
  },
};
