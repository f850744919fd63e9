// The generated kind's reader, one value whose K-member oneof is set K times, to each member in
// turn (legal: the last member read wins). Dropping the member read before must not visit the
// others: clearing every sibling per member read made this K x K.
import { messageIn, pk, pushVarint, wideNumber, wideOneofSet } from "../lib.mjs";

export const family = {
  name: "generated: one value setting each of K oneof members in turn",
  prepare: (k) => {
    const desc = messageIn(wideOneofSet(k), "s.Wide");
    const ser = pk.ProtobufType.newGeneratedBuilder(desc).maxMessageBytes(1 << 30).build().createSerializer();
    const bytes = [];
    for (let i = 1; i <= k; i++) {
      pushVarint(bytes, wideNumber(i) * 8);
      bytes.push(1);
    }
    const input = Uint8Array.from(bytes);
    ser.fromBinary(input); // plans built untimed: the sweep measures reading
    return { ser, input };
  },
  run: ({ ser, input }) => {
    ser.fromBinary(input);
  },
};
