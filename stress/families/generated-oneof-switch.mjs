// The generated kind's reader, one value whose K-member oneof is set K times, to each member in
// turn (legal: the last member read wins). Dropping the member read before must not visit the
// others: clearing every sibling per member read made this K x K.
import { L, messageIn, pk, pushVarint, setOf, T } from "../lib.mjs";

// Field numbers 19000..19999 are reserved by protobuf: skipped.
const num = (i) => (i < 19_000 ? i : i + 1000);

function schema(k) {
  const field = [];
  for (let i = 1; i <= k; i++) field.push({ name: `m${i}`, number: num(i), label: L.OPTIONAL, type: T.INT32, oneofIndex: 0 });
  return setOf([{ name: "w.proto", messageType: [{ name: "Wide", field, oneofDecl: [{ name: "pick" }] }] }]);
}

export const family = {
  name: "generated: one value setting each of K oneof members in turn",
  prepare: (k) => {
    const desc = messageIn(schema(k), "s.Wide");
    const ser = pk.ProtobufType.newGeneratedBuilder(desc).maxMessageBytes(1 << 30).build().createSerializer();
    const bytes = [];
    for (let i = 1; i <= k; i++) {
      pushVarint(bytes, num(i) * 8);
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
