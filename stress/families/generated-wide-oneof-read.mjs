// The generated kind's reader on a wide oneof: N values of a message whose N-member oneof has its
// last member set, read as one batch message. A message is built once from its values by slot;
// finding its oneof's member by a scan of the members made this N x N, where the tape reader
// records the member read last.
import { L, messageIn, pk, pushVarint, setOf, T } from "../lib.mjs";

// Field numbers 19000..19999 are reserved by protobuf: skipped.
const num = (i) => (i < 19_000 ? i : i + 1000);

function schema(k) {
  const field = [];
  for (let i = 1; i <= k; i++) field.push({ name: `m${i}`, number: num(i), label: L.OPTIONAL, type: T.INT32, oneofIndex: 0 });
  return setOf([
    {
      name: "w.proto",
      messageType: [
        { name: "Wide", field, oneofDecl: [{ name: "pick" }] },
        { name: "Batch", field: [{ name: "items", number: 1, label: L.REPEATED, type: T.MESSAGE, typeName: ".s.Wide" }] },
      ],
    },
  ]);
}

export const family = {
  name: "generated: read N values of an N-member oneof",
  prepare: (n) => {
    const desc = messageIn(schema(n), "s.Batch");
    const ser = pk.ProtobufType.newGeneratedBuilder(desc).maxMessageBytes(1 << 30).build().createSerializer();
    const item = [];
    pushVarint(item, num(n) * 8);
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
