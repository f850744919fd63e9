// protokeel, from the built package (dist/, handed in by the caller). Until dist/ has everything
// the adapter calls it reports why and the harness runs the others.
import { mapContent } from "../lib/content.mjs";
import { encodeInputs } from "./inputs.mjs";

/** Why dist/ cannot be benchmarked yet, or null when it has everything the adapter calls. */
export function missingApi(mod) {
  if (typeof mod.ProtobufType?.of !== "function") return "dist/ does not export ProtobufType";
  if (typeof mod.ProtobufType.prototype?.createSerializer !== "function") return "ProtobufType has no createSerializer()";
  if (typeof mod.DynamicMessage?.create !== "function") return "dist/ does not export DynamicMessage";
  return null;
}

/** protokeel's init form is the neutral content itself (proto names, bigint, a oneof member by name): a copy, so the fixture stays untouched. */
const toInit = (desc, content) => mapContent(desc, content, { key: (f) => f.name, long: (v) => v, oneof: "member" });

export default {
  id: "protokeel",
  name: "protokeel",
  /** @param {{ modules: { protokeel?: any }, protokeelMissing?: string, versions: Record<string, string> }} ctx */
  async load({ modules, protokeelMissing, versions }) {
    const mod = modules.protokeel;
    if (mod === undefined) return { skip: protokeelMissing ?? "not built yet: dist/index.js is missing (run npm run build)" };
    const missing = missingApi(mod);
    if (missing !== null) return { skip: `not built yet: ${missing}` };
    const { ProtobufType, DynamicMessage } = mod;
    return {
      version: versions.protokeel,
      notes: [
        "default settings (UTF-8 validated, limits, unknown fields kept)",
        "64-bit integers as bigint",
        "bare messages of 4 KiB or more are validated in full by fromBinary and read into values on first access, and decoded eagerly once nearly every value a serializer decodes is read (the decode case reads a field of each); relay writes the validated bytes without reading them",
        "encode from a plain object: the serializer writes the init object DynamicMessage.create takes, without building a value",
      ],
      prepare(fixture) {
        const type = ProtobufType.of(fixture.desc);
        const ser = type.createSerializer();
        // Encode inputs are built, never decoded: a decoded value keeps its bytes, and encoding it
        // would measure the relay copy instead of the writer.
        const plainOf = (content) => toInit(type.descriptor, content);
        // Any field access materializes a lazily decoded value (and its whole tree), so touching
        // one field makes decode pay for building every value, like the other codecs.
        const firstField = type.descriptor.fields[0].name;
        return {
          ...encodeInputs(fixture, (content) => DynamicMessage.create(type.descriptor, plainOf(content)), plainOf),
          decode: (bytes) => {
            const value = ser.fromBinary(bytes);
            value.has(firstField);
            return value;
          },
          encode: (value) => ser.toBinary(value),
          encodePlain: (init) => ser.toBinary(init),
          relay: (bytes) => ser.toBinary(ser.fromBinary(bytes)),
          validate: typeof ser.validate === "function" ? (bytes) => ser.validate(bytes) : undefined,
          decodeFrames: (buf) => ser.decodeAll(buf),
          encodeFrames: (values) => ser.encodeAll(values),
          encodePlainFrames: (inits) => ser.encodeAll(inits),
        };
      },
    };
  },
};
