// Tree-shaking of the built package (README "Bundle size"): an app bundles only the modules it
// reaches. The evaluator does not reach the codec or the WebAssembly core, and a workerd bundle
// carries the core as a module file, not inline.
import { beforeAll, describe, expect, test } from "vitest";
import { measureApps, type AppSize } from "../bench/bundle-size.mjs";

let apps: Record<string, AppSize>;
beforeAll(async () => {
  apps = await measureApps();
});

const CODEC = /^dist\/(codec|wasm|message)\/|^dist\/serializer\.js$/;

describe("an app importing only evaluateSchemaChange", () => {
  test("bundles neither the codec nor the inline WebAssembly core", () => {
    const { wasm, modules } = apps.evaluator!;
    expect(wasm).toBe(false);
    expect(modules.filter((m) => CODEC.test(m))).toEqual([]);
    expect(modules).toContain("dist/compat/evaluate.js");
  });

  test("does not bundle @noble/hashes (fingerprints belong to ProtobufType and snapshots)", () => {
    expect(Object.keys(apps.evaluator!.byPackage)).not.toContain("@noble/hashes");
  });

  test("is less than half the size of an app that imports everything", () => {
    expect(apps.evaluator!.bytes).toBeLessThan(apps.everything!.bytes / 2);
  });
});

describe("a bundle with the workerd condition (what wrangler builds)", () => {
  test("keeps the workerd entry's module registration and leaves the inline core out", () => {
    const { wasm, modules } = apps["everything (workerd)"]!;
    expect(wasm).toBe(false);
    expect(modules).toContain("dist/workerd.js");
    expect(modules).not.toContain("dist/wasm/inline.js");
  });
});

test("an app importing everything carries the inline core", () => {
  expect(apps.everything!.wasm).toBe(true);
});
