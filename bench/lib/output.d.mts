// Types for output.mjs (used by the TypeScript tests).
export declare function planOutputs(run: { filtered: boolean; write?: boolean; update?: boolean }): { dirs: string[]; skipped?: string };
export declare function updateRequested(flag: boolean | undefined, env?: Record<string, string | undefined>): boolean;
export declare function writeOutputs(dirs: string[], record: { date: string; [key: string]: unknown }, svg: string): string[];
