// Hardening (descriptors) items 1 and 4: the type transfer form of a root that reaches N
// top-level types, written and read back (rebuild, rules, normalization, integrity check).
import { pk } from "../lib.mjs";
import { manyTypes, messageOf } from "../schemas.mjs";

export const family = {
  name: "descriptor: toBytes + fromBytes, N types",
  prepare: (n) => pk.ProtobufType.of(messageOf(manyTypes(n), "s.Root")),
  run: (type) => pk.ProtobufType.fromBytes(type.toBytes()),
};
