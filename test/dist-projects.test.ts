// The dist projects of vitest.config.ts run tests against the built package: there, the public
// entry that tests import as src/index.js must be dist/index.js (dist-esm) or dist/index.cjs
// (dist-cjs); in the other projects it must be the sources.
import { createRequire } from "node:module";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";

const dist = join(import.meta.dirname, "..", "dist");

test("tests import the entry their project names", async () => {
  const which = process.env.PROTOKEEL_DIST;
  if (which === "esm") expect(ProtobufType).toBe((await import(join(dist, "index.js"))).ProtobufType);
  else if (which === "cjs") expect(ProtobufType).toBe(createRequire(import.meta.url)(join(dist, "index.cjs")).ProtobufType);
  else expect(import.meta.resolve("../src/index.js")).toMatch(/\/src\/index\.(js|ts)$/);
});
