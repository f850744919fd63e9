// Write acceptance of a value whose schema the serializer's cannot write: a value of an N-long
// chain whose every type changed `int32 v` to uint32 (N incompatibilities, the i-th on an i-long
// path), written with the current schema's serializer three times. A refused pair is evaluated
// again at every write (docs/design.md §8.1: only accepted pairs are cached), and the evaluator
// built every finding to report the first: N path strings of up to N segments each, O(N^2) per
// refused write (8,000 types: ~500 M characters). The write now stops at the first one.
import { pk } from "../lib.mjs";
import { chain, messageOf } from "../schemas.mjs";

export const family = {
  name: "write refused: a value of an N-long chain whose every type changed",
  prepare: (n) => {
    const saved = messageOf(chain(n), "s.T0");
    const current = pk.ProtobufType.of(messageOf(chain(n, { variant: "every" }), "s.T0")).createSerializer();
    return { value: pk.DynamicMessage.create(saved, { v: 1 }), current };
  },
  run: ({ value, current }) => {
    for (let i = 0; i < 3; i++) {
      try {
        current.toBinary(value);
      } catch (e) {
        if (e.code === "INCOMPATIBLE_VALUE_DESCRIPTOR") continue;
        throw e;
      }
      throw new Error("the write was not refused");
    }
  },
};
