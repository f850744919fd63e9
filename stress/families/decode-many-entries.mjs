// Decode of N map entries (1-byte entries: the worst tape per input byte), N repeated messages
// and N unknown fields, then a relay through a serializer of another descriptor instance.
import { pk, repeatBytes, typeOf } from "../lib.mjs";

const text = `syntax = "proto3"; message Leaf { int32 x = 1; } message Holder { map<int32, int32> m = 1; repeated Leaf leaves = 2; }`;
const type = typeOf(text, "Holder", { maxMessageBytes: 1 << 30 });
const other = typeOf(text, "Holder", { maxMessageBytes: 1 << 30 });
const ser = type.createSerializer();
const otherSer = other.createSerializer();
// m { } (an empty entry), leaves { }, unknown 9: 1
const unit = Uint8Array.of(0x0a, 0x00, 0x12, 0x00, 0x48, 0x01);

export const family = {
  name: "decode: N map entries, messages and unknown fields",
  sizes: [1e3, 1e4, 1e5, 1e6],
  prepare: (n) => repeatBytes(unit, n),
  run: (bytes) => {
    const v = ser.fromBinary(bytes);
    v.get("leaves");
    otherSer.toBinary(v);
  },
};
