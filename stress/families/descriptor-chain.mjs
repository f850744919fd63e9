// Hardening (descriptors) item 3: the chain T0 → T1 → … → T<N-1> of top-level types: no pass
// may recurse along the chain (stack) or rescan it per link (time).
import { pk } from "../lib.mjs";
import { chain, messageOf } from "../schemas.mjs";

export const family = {
  name: "descriptor: ProtobufType.of, N-long chain",
  prepare: (n) => messageOf(chain(n), "s.T0"),
  run: (desc) => pk.ProtobufType.of(desc),
};
