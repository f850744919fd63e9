// Hardening item 3: an unknown field inside a message type that declares no fields (an empty
// response type that a later schema version extends) threw `TypeError: Cannot read properties of
// undefined (reading 'store')`, at decode for small inputs and at first access for lazy ones.
// Such fields are unknown fields, kept and relayed like any other.
import { fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../../src/index.js";
import { ld, pbjsType, repeat, tag, utf8 } from "./support.js";

const OLD = `message Empty {} message Holder { Empty e = 1; repeated Empty es = 2; map<string, Empty> m = 3; }`;
const NEW = `message Empty { string added = 1; int64 more = 7; } message Holder { Empty e = 1; repeated Empty es = 2; map<string, Empty> m = 3; }`;
const oldType = ProtobufType.of(pbjsType(OLD, "Holder"));
const oldEmpty = ProtobufType.of(pbjsType(OLD, "Empty"));
const newType = ProtobufType.of(pbjsType(NEW, "Holder"));
const oldSer = oldType.createSerializer();
const newSer = newType.createSerializer();

const added = [...ld(1, utf8("hello")), ...tag(7, 0), 0x2a];

describe("unknown fields in a message type without fields", () => {
  test.each([
    ["bare root", () => oldEmpty.createSerializer().fromBinary(Uint8Array.from(added))],
    ["nested, eager", () => oldSer.fromBinary(Uint8Array.from(ld(1, added)))],
    ["nested, lazy (over 4 KiB)", () => oldSer.fromBinary(repeat(ld(2, added), 600))],
    ["map value", () => oldSer.fromBinary(Uint8Array.from(ld(3, [...ld(1, utf8("k")), ...ld(2, added)])))],
    ["frames", () => oldSer.decodeAll(Uint8Array.from([added.length + 2, ...ld(1, added)]))[0]!],
  ])("%s: kept as unknown fields, relayed unchanged, read by the newer schema", (_name, read) => {
    const v = read();
    // First access materializes a lazy value: no TypeError either way.
    expect(v.toObject()).toBeDefined();
    const ser = v.descriptor === oldEmpty.descriptor ? oldEmpty.createSerializer() : oldSer;
    const again = ser.toBinary(v);
    expect(ser.fromBinary(again).equals(v)).toBe(true);
    if (v.descriptor === oldType.descriptor) {
      const inNew = newSer.fromBinary(again);
      const e = (inNew.get("e") ?? (inNew.get("es") as DynamicMessage[])[0] ?? (inNew.get("m") as Map<string, DynamicMessage>).get("k")) as DynamicMessage;
      expect(e.get("added")).toBe("hello");
      expect(e.get("more")).toBe(42n);
    }
  });

  test("validate accepts the same bytes, and the unknown field is where decode put it", () => {
    oldSer.validate(Uint8Array.from(ld(1, added)));
    const v = oldSer.fromBinary(Uint8Array.from(ld(1, added)));
    const e = v.get("e") as DynamicMessage;
    expect([...e.unknownFields.keys()]).toEqual([1, 7]);
    expect(DynamicMessage.create(oldEmpty.descriptor, {}).equals(e)).toBe(false);
  });
});

describe("the generated kind: the same unknown fields, as protobuf-es reads and writes them", () => {
  const Holder = oldType.descriptor;
  const Empty = oldEmpty.descriptor;
  const NewHolder = newType.descriptor;
  // The same inputs as above; the generated kind has no lazy form, the 4 KiB one reads eagerly.
  test.each([
    ["bare root", Empty, Uint8Array.from(added)],
    ["nested", Holder, Uint8Array.from(ld(1, added))],
    ["nested, over 4 KiB", Holder, repeat(ld(2, added), 600)],
    ["map value", Holder, Uint8Array.from(ld(3, [...ld(1, utf8("k")), ...ld(2, added)]))],
  ] as [string, DescMessage, Uint8Array][])("%s: kept in $unknown, relayed unchanged, read by the newer schema", (_name, desc, bytes) => {
    const gen = ProtobufType.ofGenerated(desc).createSerializer();
    gen.validate(bytes);
    const v = gen.fromBinary(bytes);
    expect(v).toEqual(fromBinary(desc, bytes));
    const again = gen.toBinary(v);
    expect(Buffer.compare(again, toBinary(desc, v))).toBe(0);
    expect(Buffer.compare(again, bytes)).toBe(0);
    expect(gen.decodeAll(gen.encodeAll([v, v]))).toEqual([v, v]);
    if (desc === Holder) {
      const inNew = fromBinary(NewHolder, again) as unknown as { e?: { added: string; more: bigint }; es: { added: string; more: bigint }[]; m: Record<string, { added: string; more: bigint }> };
      const e = inNew.e ?? inNew.es[0] ?? inNew.m.k!;
      expect([e.added, e.more]).toEqual(["hello", 42n]);
    }
  });

  test("frames: the frame's message keeps its unknown fields", () => {
    const gen = ProtobufType.ofGenerated(Holder).createSerializer();
    const frames = Uint8Array.from([added.length + 2, ...ld(1, added)]);
    expect(gen.decodeAll(frames)).toEqual([fromBinary(Holder, frames.subarray(1))]);
    expect(gen.decode(frames)).toEqual(fromBinary(Holder, frames.subarray(1)));
    expect(Buffer.compare(gen.encode(gen.decode(frames)), frames)).toBe(0);
  });
});
