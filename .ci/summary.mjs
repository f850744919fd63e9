// CI's closing line. Vitest's own summary ("Tests  N passed (N)") is not a line the CI reader
// knows, and the runtime and stress stages print after it, so .ci/run ends with the plain
// "N passed, N failed" line, counted from vitest's JSON report of the npm test stage, in its bare
// form (no word before it). Runs that ended with "tests: N passed, ..." after the stress stage's
// "N families in T s" were judged as having run no test: see stress/run.mjs.
import { readFileSync } from "node:fs";

const file = process.argv[2];
let report;
try {
  report = JSON.parse(readFileSync(file, "utf8"));
} catch (e) {
  console.error(`ci: cannot read the vitest report ${file}: ${e.message}`);
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
const failed = (report.numFailedTests ?? 0) + (report.numFailedTestSuites ?? 0);
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
if (passed === 0) {
  console.error("ci: the npm test stage executed no test");
  process.exit(1);
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 && report.success !== false ? 0 : 1);
