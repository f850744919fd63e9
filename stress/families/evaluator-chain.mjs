// Hardening (descriptors) item 5: evaluateSchemaChange of two versions of an N-long chain whose
// last type changed (one finding at the end of an N-long path): an explicit work stack, no
// recursion along the chain.
import { pk, warm } from "../lib.mjs";
import { chain, messageOf } from "../schemas.mjs";

export const family = {
  name: "evaluator: N-long chain",
  prepare: (n) => warm([messageOf(chain(n), "s.T0"), messageOf(chain(n, { variant: "current" }), "s.T0")]),
  run: ([saved, current]) => pk.evaluateSchemaChange(saved, current),
};
