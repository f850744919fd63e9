import type { EvaluationResult, Finding } from "./evaluate.js";

function block(title: string, findings: readonly Finding[]): string[] {
  const lines = [`${title} (${findings.length}):`];
  findings.forEach((f, i) => {
    lines.push(`  ${i + 1}. ${f.rule} at ${f.path}`);
    lines.push(`     ${f.message}`);
  });
  return lines;
}

/**
 * A readable multi-line report of an evaluation for logs and terminals: the verdict, then each
 * incompatibility and note with its rule id, path and message. No trailing newline.
 */
export function formatFindings(result: EvaluationResult): string {
  const { incompatibilities, notes } = result;
  const lines: string[] = [];
  if (result.compatible) {
    lines.push(notes.length === 0 ? "compatible: no findings" : `compatible, with ${notes.length} ${notes.length === 1 ? "note" : "notes"}`);
  } else {
    const n = incompatibilities.length;
    lines.push(`incompatible: ${n} ${n === 1 ? "incompatibility" : "incompatibilities"}, ${notes.length} ${notes.length === 1 ? "note" : "notes"}`);
    lines.push(...block("incompatibilities", incompatibilities));
  }
  if (notes.length > 0) lines.push(...block("notes", notes));
  return lines.join("\n");
}
