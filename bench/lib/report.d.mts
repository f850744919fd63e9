// Types for report.mjs (used by the TypeScript tests).
export declare const BASELINE: string;
export interface Row {
  fixture: string;
  operation: string;
  codec: string;
  bytes: number;
  check: { ok: true; note?: string } | { ok: false; reason: string };
  opsPerSec?: number;
  mbPerSec?: number;
  ratio?: number;
  rank?: number;
}
export declare function rankRows<T extends Row>(rows: T[]): T[];
export declare function ratioText(v: number): string;
export declare const OPERATION_LABELS: Record<string, string>;
export declare function operationLabel(op: string): string;
export declare function formatTable(record: unknown): string;
export declare function formatHeader(record: unknown): string;
export declare function renderSvg(record: unknown): string;
export declare function formatMatrix(record: unknown): string;
export declare function formatTargets(record: unknown): string;
export declare function evaluateTargets(record: { results: Row[] }): Array<{ fixture: string; operation: string; ratio?: number; mbPerSec?: number; value?: number; holds: boolean | null; note?: string }>;
export declare function formatRuntimeSummary(records: Array<{ runtime?: { name: string }; results: Row[] }>): string;
