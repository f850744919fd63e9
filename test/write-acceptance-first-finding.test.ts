// Write acceptance stops the evaluator at its first incompatibility (firstIncompatibility): the
// finding a refused write names must be the first of the full evaluation, in both directions of
// every evaluator fixture pair (test/fixtures/compat), and a compatible pair has none. Dropped
// reservations are the evaluator's question for a chain of checks, not a write's.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { evaluateMessages, firstIncompatibility } from "../src/compat/evaluate.js";
import { DEFAULT_SETTINGS } from "../src/settings.js";
import { messageFromDir } from "./support/buf.js";

const CASES = readdirSync(join(import.meta.dirname, "fixtures/compat")).sort();
const ROOTS: Record<string, [string, string]> = {
  "root-renamed": ["acme.Order", "acme.Purchase"],
  "root-package-changed": ["acme.Order", "acme.v2.Order"],
};

describe("firstIncompatibility is the full evaluation's first incompatibility", () => {
  test("every fixture pair is read", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(70);
  });

  test.each(CASES)("%s", (name) => {
    const [savedRoot, currentRoot] = ROOTS[name] ?? ["acme.Order", "acme.Order"];
    const saved = messageFromDir(`fixtures/compat/${name}/saved`, savedRoot);
    const current = messageFromDir(`fixtures/compat/${name}/current`, currentRoot);
    const settings = DEFAULT_SETTINGS;
    for (const [a, b] of [
      [saved, current],
      [current, saved],
    ] as const) {
      for (const jsNumbers of [true, false]) {
        // Write acceptance does not ask about dropped reservations (a write keeps unknown fields).
        const full = evaluateMessages(a, b, settings, settings, jsNumbers, false, false);
        expect(firstIncompatibility(a, b, settings, jsNumbers)).toEqual(full.incompatibilities[0]);
        const chain = evaluateMessages(a, b, settings, settings, jsNumbers).incompatibilities;
        expect(chain.filter((f) => !f.rule.endsWith("_RESERVATION_REMOVED"))).toEqual(full.incompatibilities);
      }
    }
  });
});
