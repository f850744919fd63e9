// Hardening item 5: the first decode with a K-member oneof (type, layout and read plan built
// fresh each run) and an input that sets every member once, then alternates two members.
import { L, messageIn, pk, pushVarint, setOf, T } from "../lib.mjs";

// Field numbers 19000..19999 are reserved by protobuf: skipped.
const num = (i) => (i < 19_000 ? i : i + 1000);

function schema(k) {
  const field = [];
  for (let i = 1; i <= k; i++) field.push({ name: `m${i}`, number: num(i), label: L.OPTIONAL, type: T.INT32, oneofIndex: 0 });
  return setOf([{ name: "w.proto", messageType: [{ name: "Wide", field, oneofDecl: [{ name: "pick" }] }] }]);
}

export const family = {
  name: "decode: first decode with a K-member oneof",
  prepare: (k) => {
    const bytes = [];
    for (let i = 1; i <= k; i++) {
      pushVarint(bytes, num(i) * 8);
      bytes.push(1);
    }
    return { set: schema(k), bytes: Uint8Array.from(bytes) };
  },
  run: ({ set, bytes }) => {
    const ser = pk.ProtobufType.newBuilder(messageIn(set, "s.Wide")).maxMessageBytes(1 << 30).build().createSerializer();
    ser.fromBinary(bytes);
  },
};
