// protokeel, loaded from the built package (dist/). Until the serializer exists this adapter
// reports "not built yet" and the harness runs the others; it picks protokeel up once dist/
// exports ProtobufType with createSerializer and DynamicMessage.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { DIST_ENTRY, ROOT_DIR } from "../lib/paths.mjs";

/** Why dist/ cannot be benchmarked yet, or null when it has everything the adapter calls. */
export function missingApi(mod) {
  if (typeof mod.ProtobufType?.of !== "function") return "dist/ does not export ProtobufType";
  if (typeof mod.ProtobufType.prototype?.createSerializer !== "function") return "ProtobufType has no createSerializer()";
  if (typeof mod.DynamicMessage?.create !== "function") return "dist/ does not export DynamicMessage";
  return null;
}

export default {
  id: "protokeel",
  name: "protokeel",
  async load() {
    if (!existsSync(DIST_ENTRY)) return { skip: "not built yet: dist/index.js is missing (run npm run build)" };
    const mod = await import(pathToFileURL(DIST_ENTRY).href);
    const missing = missingApi(mod);
    if (missing !== null) return { skip: `not built yet: ${missing}` };
    const { ProtobufType, DynamicMessage } = mod;
    const version = JSON.parse(readFileSync(join(ROOT_DIR, "package.json"), "utf8")).version;
    let commit = "";
    try {
      commit = " " + execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT_DIR, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    } catch {
      // not a git checkout: the version alone
    }
    return {
      version: `${version}${commit}`,
      notes: [
        "default settings (UTF-8 validated, limits, unknown fields kept)",
        "64-bit integers as bigint",
        "bare messages of 1 KiB or more are validated in full by fromBinary and read into values on first access: the decode case reads a field, so it pays for both; relay writes the validated bytes without reading them",
      ],
      prepare(fixture) {
        const type = ProtobufType.of(fixture.desc);
        const ser = type.createSerializer();
        // Encode inputs are built, never decoded: a decoded value keeps its bytes, and encoding it
        // would measure the relay copy instead of the writer.
        const build = (content) => DynamicMessage.create(type.descriptor, content);
        // Any field access materializes a lazily decoded value (and its whole tree), so touching
        // one field makes decode pay for building every value, like the other codecs.
        const firstField = type.descriptor.fields[0].name;
        return {
          value: fixture.kind === "message" ? build(fixture.content) : undefined,
          values: fixture.kind === "frames" ? fixture.contents.map(build) : undefined,
          build,
          decode: (bytes) => {
            const value = ser.fromBinary(bytes);
            value.has(firstField);
            return value;
          },
          encode: (value) => ser.toBinary(value),
          relay: (bytes) => ser.toBinary(ser.fromBinary(bytes)),
          validate: typeof ser.validate === "function" ? (bytes) => ser.validate(bytes) : undefined,
          decodeFrames: (buf) => ser.decodeAll(buf),
          encodeFrames: (values) => ser.encodeAll(values),
        };
      },
    };
  },
};
