import type { EvaluationResult, Finding } from "./evaluate.js";

/**
 * Characters a report holds at most. Past V8's string limit (~2^29) the join threw RangeError: a
 * chain of 10,000 types with a rename at each level gave 800 million characters of findings (each
 * message repeats its path from the root).
 */
const MAX_REPORT_CHARS = 1 << 26;

// Appends to `lines` in a loop: spreading a list of findings into push() passes one argument per
// line, which throws RangeError past the engine's argument limit (an enum that lost 150,000 values).
function block(lines: string[], size: { chars: number }, title: string, findings: readonly Finding[], listed: number): void {
  lines.push(`${title} (${findings.length}):`);
  const shown = Math.min(findings.length, listed);
  let i = 0;
  for (; i < shown; i++) {
    const f = findings[i]!;
    const head = `  ${i + 1}. ${f.rule} at ${f.path}`;
    const body = `     ${f.message}`;
    if (size.chars + head.length + body.length > MAX_REPORT_CHARS) break;
    size.chars += head.length + body.length + 2;
    lines.push(head);
    lines.push(body);
  }
  if (i < findings.length) {
    const why = i < shown ? `the report stops at ${MAX_REPORT_CHARS} characters; ` : "";
    lines.push(`  … and ${findings.length - i} more (${why}evaluateSchemaChange lists them all)`);
  }
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
  const size = { chars: 0 };
  if (result.compatible) {
    lines.push(notes.length === 0 ? "compatible: no findings" : `compatible, with ${notes.length} ${notes.length === 1 ? "note" : "notes"}`);
  } else {
    const n = incompatibilities.length;
    lines.push(`incompatible: ${n} ${n === 1 ? "incompatibility" : "incompatibilities"}, ${notes.length} ${notes.length === 1 ? "note" : "notes"}`);
    block(lines, size, "incompatibilities", incompatibilities, listed);
  }
  if (notes.length > 0) block(lines, size, "notes", notes, listed);
  return lines.join("\n");
}
