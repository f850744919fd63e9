// Hardening item 4: repeated occurrences of one singular sub-message field merge (protobuf's
// rule); merging must stay linear in the input, also with maps and unknown fields inside.
import { pk, repeatBytes, typeOf } from "../lib.mjs";

const type = typeOf(
  `syntax = "proto3";
   message Inner { repeated int32 xs = 1; map<string, int32> m = 2; }
   message Outer { Inner inner = 1; }`,
  "Outer",
  { maxMessageBytes: 1 << 30 },
);
const ser = type.createSerializer();
// inner { xs: 1 } ; inner { m { "a": 1 } } ; inner { unknown 9: 1 }
const unit = Uint8Array.of(0x0a, 0x02, 0x08, 0x01, 0x0a, 0x07, 0x12, 0x05, 0x0a, 0x01, 0x61, 0x10, 0x01, 0x0a, 0x02, 0x48, 0x01);

export const family = {
  name: "decode: merge of repeated sub-message occurrences",
  prepare: (n) => repeatBytes(unit, Math.ceil(n / 3)),
  run: (bytes) => {
    const v = ser.fromBinary(bytes);
    v.get("inner");
  },
};
