// The generated kind's writer on a wide type: N protobuf-es values of a message whose N-member
// oneof has its last member set, written as one batch message. The writer visits only the
// fields a value sets: a loop over every field of the type per value made this N x N (10,000
// values of a 10,000-member oneof: 7.6 s; now ~20 ms).
import { create } from "@bufbuild/protobuf";
import { messageIn, pk, wideOneofSet } from "../lib.mjs";

export const family = {
  name: "generated: write N values of an N-member oneof",
  // From 1e4: at 1e3 the write takes under 1.5 ms of CPU, where one collection or compilation
  // moved the first step between x5 and x30; the quadratic writer this guards showed x100+.
  sizes: [1e4, 1e5],
  prepare: (n) => {
    const desc = messageIn(wideOneofSet(n), "s.Batch");
    const ser = pk.ProtobufType.newGeneratedBuilder(desc).maxMessageBytes(1 << 30).build().createSerializer();
    const value = create(desc, { items: Array.from({ length: n }, () => ({ pick: { case: `m${n}`, value: 1 } })) });
    return { ser, value };
  },
  run: ({ ser, value }) => {
    ser.toBinary(value);
  },
};
