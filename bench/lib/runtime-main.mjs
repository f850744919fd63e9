// The benchmark inside one runtime (Node, Deno, Bun or a browser page), for
// `npm run bench:runtimes`: runtimes.mjs bundles this module with everything it needs (the
// descriptor set, the .proto texts, the generated code, the built protokeel) and runs the bundle.
// It builds the same seeded fixtures, checks and times the cases with the same suite as
// `npm run bench`, and hands back a JSON payload: a "BENCH {...}" line on stdout, or
// window.benchResult in a page. Progress goes to console.error.
import { buildFixtures, registryOf } from "./build-fixtures.mjs";
import { codecSummaries, fixtureSummaries, loadCodecs, planCases, runCases } from "./suite.mjs";

/** The cases the other runtimes run: decode, encode and encode from a plain object of every fixture. */
export const RUNTIME_OPERATIONS = ["decode", "encode", "encode-plain"];

/** Which runtime this is, as the table header names it. */
export function runtimeInfo() {
  const g = globalThis;
  if (g.Deno?.version) return { id: "deno", version: `Deno ${g.Deno.version.deno} (V8 ${g.Deno.version.v8})` };
  if (g.Bun?.version) return { id: "bun", version: `Bun ${g.Bun.version} (JavaScriptCore)` };
  if (g.process?.versions?.node) return { id: "node", version: `Node ${g.process.versions.node} (V8 ${g.process.versions.v8})` };
  const chrome = / (?:Headless)?Chrome\/([\d.]+)/.exec(g.navigator?.userAgent ?? "");
  return { id: "browser", version: chrome ? `Chromium ${chrome[1]} (V8)` : (g.navigator?.userAgent ?? "unknown") };
}

const fromBase64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

/**
 * @param {{ fileDescriptorSet: string, protoTexts: string[], versions: Record<string, string>, modules: object }} bundled
 *   the descriptor set as base64, and what lib/node-context.mjs gives the adapters in Node
 * @param {{ filter: string, timeMs: number, seed: number, sampleNs?: number }} options
 */
export async function runBench(bundled, options) {
  const started = Date.now();
  const log = (s) => console.error(s);
  // Bun has no --expose-gc; its own call does the same
  if (globalThis.gc === undefined && globalThis.Bun?.gc) globalThis.gc = () => globalThis.Bun.gc(true);
  const runtime = runtimeInfo();
  const payload = { runtime, gc: typeof globalThis.gc === "function" };
  try {
    const registry = registryOf(fromBase64(bundled.fileDescriptorSet));
    const fixtures = buildFixtures(registry, options.seed);
    const codecs = await loadCodecs({ ...bundled, registry }, log);
    const cases = planCases(fixtures, codecs, new RegExp(options.filter), (op) => RUNTIME_OPERATIONS.includes(op));
    log(`${runtime.version}: ${cases.length} cases, ${options.timeMs} ms each`);
    payload.results = runCases(cases, { timeMs: options.timeMs, sampleNs: options.sampleNs, log });
    payload.fixtures = fixtureSummaries(fixtures);
    payload.codecs = codecSummaries(codecs);
  } catch (e) {
    payload.error = e instanceof Error ? `${e.message}\n${e.stack}` : String(e);
  }
  payload.seconds = Math.round((Date.now() - started) / 1000);
  if (typeof globalThis.window === "object") globalThis.window.benchResult = payload;
  else console.log(`BENCH ${JSON.stringify(payload)}`);
  return payload;
}
