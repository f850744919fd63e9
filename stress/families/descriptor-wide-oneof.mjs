// Hardening (descriptors) item 1: a oneof of N members must not cost N x N anywhere
// (oneof ordering, synthetic oneof names, the rebuild).
import { pk } from "../lib.mjs";
import { messageOf, wideOneof } from "../schemas.mjs";

export const family = {
  name: "descriptor: ProtobufType.of, N-member oneofs",
  prepare: (n) => messageOf(wideOneof(n), "s.Wide"),
  run: (desc) => pk.ProtobufType.of(desc),
};
