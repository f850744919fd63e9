// Hardening (descriptors) item 1: a root that reaches N top-level types. File grouping once
// re-sorted its ready list at every step (14 s at 1e4 top-level types, 57 s at 2e4).
import { pk } from "../lib.mjs";
import { manyTypes, messageOf } from "../schemas.mjs";

export const family = {
  name: "descriptor: ProtobufType.of, N top-level types",
  prepare: (n) => messageOf(manyTypes(n), "s.Root"),
  run: (desc) => pk.ProtobufType.of(desc),
};
