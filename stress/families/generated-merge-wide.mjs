// The generated kind's reader, N occurrences of one singular message field of an N-field type,
// occurrence i setting field i (protobuf merges them). A later occurrence is read into the
// earlier one's object: rebuilding the merged message per occurrence made this N x N.
import { L, messageIn, pk, pushVarint, setOf, T, wideNumber } from "../lib.mjs";

function schema(k) {
  const field = [];
  for (let i = 1; i <= k; i++) field.push({ name: `f${i}`, number: wideNumber(i), label: L.OPTIONAL, type: T.INT32 });
  return setOf([
    {
      name: "w.proto",
      messageType: [
        { name: "Wide", field },
        { name: "Outer", field: [{ name: "inner", number: 1, label: L.OPTIONAL, type: T.MESSAGE, typeName: ".s.Wide" }] },
      ],
    },
  ]);
}

export const family = {
  name: "generated: merge N occurrences of an N-field message",
  prepare: (n) => {
    const desc = messageIn(schema(n), "s.Outer");
    const ser = pk.ProtobufType.newGeneratedBuilder(desc).maxMessageBytes(1 << 30).build().createSerializer();
    const bytes = [];
    for (let i = 1; i <= n; i++) {
      const inner = [];
      pushVarint(inner, wideNumber(i) * 8);
      inner.push(1);
      bytes.push(0x0a, inner.length, ...inner);
    }
    const input = Uint8Array.from(bytes);
    ser.fromBinary(input); // plans built untimed: the sweep measures reading
    return { ser, input };
  },
  run: ({ ser, input }) => {
    ser.fromBinary(input);
  },
};
