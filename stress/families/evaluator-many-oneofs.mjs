// Hardening (descriptors) item 5: evaluateSchemaChange of two versions, N/2 two-member oneofs, all renamed (the change is
// described at manyOneofs in stress/schemas.mjs).
import { pk, warm } from "../lib.mjs";
import { messageOf, manyOneofs } from "../schemas.mjs";

export const family = {
  name: "evaluator: N/2 two-member oneofs, all renamed",
  prepare: (n) => warm([messageOf(manyOneofs(n), "s.Many"), messageOf(manyOneofs(n, "current"), "s.Many")]),
  run: ([saved, current]) => pk.evaluateSchemaChange(saved, current),
};
