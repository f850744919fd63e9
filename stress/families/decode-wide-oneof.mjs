// Hardening item 5: the first decode with a K-member oneof (type, layout and read plan built
// fresh each run) and an input that sets every member once, then alternates two members.
import { messageIn, pk, pushVarint, wideNumber, wideOneofSet } from "../lib.mjs";

export const family = {
  name: "decode: first decode with a K-member oneof",
  prepare: (k) => {
    const bytes = [];
    for (let i = 1; i <= k; i++) {
      pushVarint(bytes, wideNumber(i) * 8);
      bytes.push(1);
    }
    return { set: wideOneofSet(k), bytes: Uint8Array.from(bytes) };
  },
  run: ({ set, bytes }) => {
    const ser = pk.ProtobufType.newBuilder(messageIn(set, "s.Wide")).maxMessageBytes(1 << 30).build().createSerializer();
    ser.fromBinary(bytes);
  },
};
