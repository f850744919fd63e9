// Hardening (descriptors) item 2: one message of N fields whose numbers spread up to
// 536,870,911: rules, field sorting and reserved-range handling must not scan all fields per field.
import { pk } from "../lib.mjs";
import { messageOf, sparseFields } from "../schemas.mjs";

export const family = {
  name: "descriptor: ProtobufType.of, N sparse field numbers",
  prepare: (n) => messageOf(sparseFields(n), "s.Sparse"),
  run: (desc) => pk.ProtobufType.of(desc),
};
