// Types for protokeel.mjs (used by the TypeScript tests).
export declare function missingApi(mod: Record<string, unknown>): string | null;
declare const adapter: { id: string; name: string; load(ctx?: unknown): Promise<{ skip: string } | { version: string; notes: string[]; prepare(fixture: unknown): unknown }> };
export default adapter;
