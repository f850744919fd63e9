// Hardening (descriptors) item 1: the protobufjs lowering, normalization and the fingerprint of a
// root that reaches N top-level types (a binary tree of references: half of them are ready at once
// when files are ordered).
import protobuf from "protobufjs";
import { pk } from "../lib.mjs";
import { treeJson } from "../schemas.mjs";

export const family = {
  name: "descriptor: protobufjs lowering + fingerprint, N types",
  prepare: (n) => protobuf.Root.fromJSON(treeJson(n)).lookupType("s.T0"),
  run: (type) => pk.ProtobufType.of(type).fingerprint(),
};
