// Types of binaries.mjs, for TypeScript tests that run a runtime (test/registry-deno.test.ts).
export function binaryPath(runtime: "deno" | "bun" | "workerd"): string;
export function packageVersion(name: string): string;
