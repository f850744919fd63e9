// Hardening (descriptors) item 5: evaluateSchemaChange of two versions, N top-level types (the change is
// described at manyTypes in stress/schemas.mjs).
import { pk, warm } from "../lib.mjs";
import { messageOf, manyTypes } from "../schemas.mjs";

export const family = {
  name: "evaluator: N top-level types",
  prepare: (n) => warm([messageOf(manyTypes(n), "s.Root"), messageOf(manyTypes(n, "current"), "s.Root")]),
  run: ([saved, current]) => pk.evaluateSchemaChange(saved, current),
};
