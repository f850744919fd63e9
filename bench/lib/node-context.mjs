// What the adapters load from, built in Node: the compiled fixtures, the .proto texts, the
// generated code of the code-generating competitors (imported), the built protokeel (dist/) and
// the package versions. runtimes.mjs turns the same things into a bundle for the other runtimes.
import { existsSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { generateCode } from "./codegen.mjs";
import { compileFixtures, protoFiles } from "./fixtures.mjs";
import { DIST_ENTRY } from "./paths.mjs";
import { benchVersions } from "./versions.mjs";

const importFile = (file) => import(pathToFileURL(file).href);

export async function loadNodeContext() {
  const { registry, fileDescriptorSet } = compileFixtures();
  const files = protoFiles();
  const generated = generateCode(files);
  const pbf = {};
  for (const file of generated.pbf) Object.assign(pbf, await importFile(file));
  const modules = { pbjsStatic: await importFile(generated.pbjsStatic), pbf, protobufTs: await importFile(generated.protobufTs) };
  const built = existsSync(DIST_ENTRY);
  if (built) modules.protokeel = await importFile(DIST_ENTRY);
  return {
    registry,
    fileDescriptorSet,
    protoFiles: files,
    protoTexts: files.map((f) => readFileSync(f, "utf8")),
    generated,
    modules,
    protokeelMissing: built ? undefined : "not built yet: dist/index.js is missing (run npm run build)",
    versions: benchVersions(),
  };
}
