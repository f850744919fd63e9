// A chain of 100,000 top-level types T0 → … → T99999 (hardening, descriptors items 3 and 5), in a
// file of its own: building its two registries takes most of the time. Construction at this size
// (normalization, rebuild) is run by the growth sweep stress/families/descriptor-chain.mjs.
import { expect, test } from "vitest";
import { evaluateSchemaChange } from "../../src/index.js";
import { chain, messageOf } from "../../stress/schemas.mjs";

test("a chain of 100,000 top-level types evaluates without recursion (payload rules of both closures included)", () => {
  const n = 100_000;
  const saved = messageOf(chain(n), "s.T0");
  const result = evaluateSchemaChange(saved, messageOf(chain(n, { variant: "current" }), "s.T0"));
  const path = `s.T0${".next(2)".repeat(n - 1)}.v(1)`;
  expect(result.compatible).toBe(false);
  expect(result.incompatibilities.map((f) => [f.rule, f.path])).toEqual([["FIELD_TYPE_CHANGED", path]]);
  expect(result.notes).toEqual([]);
});
