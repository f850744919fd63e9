// Hardening (descriptors) item 5: evaluateSchemaChange of two versions, an enum value with N aliases (the change is
// described at enumAliases in stress/schemas.mjs).
import { pk, warm } from "../lib.mjs";
import { messageOf, enumAliases } from "../schemas.mjs";

export const family = {
  name: "evaluator: an enum value with N aliases",
  prepare: (n) => warm([messageOf(enumAliases(n), "s.Holder"), messageOf(enumAliases(n, "current"), "s.Holder")]),
  run: ([saved, current]) => pk.evaluateSchemaChange(saved, current),
};
