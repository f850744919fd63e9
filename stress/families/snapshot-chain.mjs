// Hardening (descriptors) item 3: a snapshot of an N-long chain, written, read and restored.
import { pk } from "../lib.mjs";
import { chain, messageOf } from "../schemas.mjs";

export const family = {
  name: "snapshot: write + read + restore, N-long chain",
  prepare: (n) => pk.ProtobufType.of(messageOf(chain(n), "s.T0")).createSerializer().snapshotConfiguration(),
  run: (snapshot) => pk.readSnapshot(pk.writeSnapshot(snapshot)).restoreSerializer(),
};
