// Hardening (descriptors) items 1 and 4: a snapshot of a root that reaches N top-level types,
// written, read and restored (restore took 14 s at 1e4 types).
import { pk } from "../lib.mjs";
import { manyTypes, messageOf } from "../schemas.mjs";

export const family = {
  name: "snapshot: write + read + restore, N types",
  prepare: (n) => pk.ProtobufType.of(messageOf(manyTypes(n), "s.Root")).createSerializer().snapshotConfiguration(),
  run: (snapshot) => pk.readSnapshot(pk.writeSnapshot(snapshot)).restoreSerializer(),
};
