// Hardening (descriptors) item 5: evaluateSchemaChange of two versions, N sparse field numbers (the change is
// described at sparseFields in stress/schemas.mjs).
import { pk, warm } from "../lib.mjs";
import { messageOf, sparseFields } from "../schemas.mjs";

export const family = {
  name: "evaluator: N sparse field numbers",
  prepare: (n) => warm([messageOf(sparseFields(n), "s.Sparse"), messageOf(sparseFields(n, "current"), "s.Sparse")]),
  run: ([saved, current]) => pk.evaluateSchemaChange(saved, current),
};
