// Hardening item 7: a message of N fields with sparse numbers up to 536,870,911: the first decode
// (fresh descriptors each run) and a decode of every field once.
import { L, messageIn, pk, pushVarint, setOf, T } from "../lib.mjs";

const MAX = 536_870_911;

function numbers(n) {
  const step = Math.floor((MAX - 20_000) / n);
  return Array.from({ length: n }, (_, i) => 20_000 + i * step);
}

export const family = {
  name: "decode: first decode, N sparse field numbers",
  prepare: (n) => {
    const nums = numbers(n);
    const field = nums.map((number, i) => ({ name: `f${i}`, number, label: L.OPTIONAL, type: T.INT32 }));
    const bytes = [];
    for (const num of nums) {
      pushVarint(bytes, num * 8);
      bytes.push(1);
    }
    return { set: setOf([{ name: "p.proto", messageType: [{ name: "Sparse", field }] }]), bytes: Uint8Array.from(bytes) };
  },
  run: ({ set, bytes }) => {
    const ser = pk.ProtobufType.newBuilder(messageIn(set, "s.Sparse")).maxMessageBytes(1 << 30).build().createSerializer();
    ser.fromBinary(bytes);
  },
};
