import type { EvaluationResult, Finding } from "./evaluate.js";

// Appends to `lines` in a loop: spreading a list of findings into push() passes one argument per
// line, which throws RangeError past the engine's argument limit (an enum that lost 150,000 values).
function block(lines: string[], title: string, findings: readonly Finding[], listed: number): void {
  lines.push(`${title} (${findings.length}):`);
  const shown = Math.min(findings.length, listed);
  for (let i = 0; i < shown; i++) {
    const f = findings[i]!;
    lines.push(`  ${i + 1}. ${f.rule} at ${f.path}`);
    lines.push(`     ${f.message}`);
  }
  if (shown < findings.length) lines.push(`  … and ${findings.length - shown} more (evaluateSchemaChange lists them all)`);
}

/**
 * A readable multi-line report of an evaluation for logs and terminals: the verdict, then each
 * incompatibility and note with its rule id, path and message. No trailing newline.
 */
export function formatFindings(result: EvaluationResult): string {
  return formatFindingsListing(result, Infinity);
}

/** Findings a reason or an error message lists of each kind (the full list is the result's). */
export const LISTED_FINDINGS = 20;

/**
 * formatFindings listing at most `listed` findings of each kind (the counts stay whole): for an
 * error message repeated per record, where an enum that lost 150,000 values gave megabytes.
 */
export function formatFindingsListing(result: EvaluationResult, listed: number): string {
  const { incompatibilities, notes } = result;
  const lines: string[] = [];
  if (result.compatible) {
    lines.push(notes.length === 0 ? "compatible: no findings" : `compatible, with ${notes.length} ${notes.length === 1 ? "note" : "notes"}`);
  } else {
    const n = incompatibilities.length;
    lines.push(`incompatible: ${n} ${n === 1 ? "incompatibility" : "incompatibilities"}, ${notes.length} ${notes.length === 1 ? "note" : "notes"}`);
    block(lines, "incompatibilities", incompatibilities, listed);
  }
  if (notes.length > 0) block(lines, "notes", notes, listed);
  return lines.join("\n");
}
