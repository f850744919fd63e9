// Hardening (descriptors) item 5: evaluateSchemaChange of two versions, N-member oneofs (the change is
// described at wideOneof in stress/schemas.mjs).
import { pk, warm } from "../lib.mjs";
import { messageOf, wideOneof } from "../schemas.mjs";

export const family = {
  name: "evaluator: N-member oneofs",
  prepare: (n) => warm([messageOf(wideOneof(n), "s.Wide"), messageOf(wideOneof(n, "current"), "s.Wide")]),
  run: ([saved, current]) => pk.evaluateSchemaChange(saved, current),
};
