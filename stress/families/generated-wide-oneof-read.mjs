// The generated kind's reader on a wide oneof: N values of a message whose N-member oneof has its
// last member set, read as one batch message. A message is built once from its values by slot;
// finding its oneof's member by a scan of the members made this N x N, where the tape reader
// records the member read last.
import { messageIn, pk, pushVarint, wideNumber, wideOneofSet } from "../lib.mjs";

export const family = {
  name: "generated: read N values of an N-member oneof",
  prepare: (n) => {
    const desc = messageIn(wideOneofSet(n), "s.Batch");
    const ser = pk.ProtobufType.newGeneratedBuilder(desc).maxMessageBytes(1 << 30).build().createSerializer();
    const item = [];
    pushVarint(item, wideNumber(n) * 8);
    item.push(1);
    const bytes = [];
    for (let i = 0; i < n; i++) bytes.push(0x0a, item.length, ...item);
    const input = Uint8Array.from(bytes);
    ser.fromBinary(input); // plans built untimed: the sweep measures reading
    return { ser, input };
  },
  run: ({ ser, input }) => {
    ser.fromBinary(input);
  },
};
