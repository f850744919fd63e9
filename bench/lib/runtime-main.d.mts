// Types for runtime-main.mjs (used by the TypeScript tests).
export declare const RUNTIME_OPERATIONS: string[];
export declare function runtimeInfo(): { id: string; version: string };
export declare function runBench(bundled: unknown, options: { filter: string; timeMs: number; seed: number; sampleNs?: number }): Promise<Record<string, unknown>>;
