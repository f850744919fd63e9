// Hardening item 5: a oneof with K members built a read plan of K×(K−1) indexes (each member
// listed the others to clear): K = 10,000 cost ~30 s and ~1 GB on first decode. Setting a member
// now clears the one member set before, whatever K is.
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../../src/index.js";
import { acme, messageOf, T } from "../support/descriptors.js";
import { ld, repeat, tag, varint } from "./support.js";

const K = 10_000;

function wide() {
  const fields = [];
  for (let i = 1; i <= K; i++) {
    // Every 1000th member is a message (the type itself), the rest int32.
    const isMessage = i % 1000 === 0;
    fields.push({ name: `m${i}`, number: i, label: 1, type: isMessage ? T.MESSAGE : T.INT32, typeName: isMessage ? ".acme.Wide" : undefined, oneofIndex: 0 });
  }
  fields.push({ name: "plain", number: K + 1, label: 1, type: T.INT32 });
  return messageOf([acme({ messageType: [{ name: "Wide", field: fields, oneofDecl: [{ name: "pick" }] }] })], "acme.Wide");
}

const Wide = wide();
const ser = ProtobufType.newBuilder(Wide).maxMessageBytes(1 << 30).build().createSerializer();
const set = (n: number, v: number): number[] => [...tag(n, 0), ...varint(v)];

describe("a oneof with 10,000 members", () => {
  test("the last member set wins; earlier members read as absent", () => {
    const bytes: number[] = [];
    for (let i = 1; i <= K; i++) if (i % 1000 !== 0) bytes.push(...set(i, i));
    const v = ser.fromBinary(Uint8Array.from(bytes));
    expect(v.whichOneof("pick")).toBe(`m${K - 1}`);
    expect(v.get(`m${K - 1}`)).toBe(K - 1);
    expect(v.has("m1")).toBe(false);
    expect(ser.fromBinary(ser.toBinary(v)).equals(v)).toBe(true);
  });

  test("100,000 alternations between two members, and a message member merged between", () => {
    const v = ser.fromBinary(repeat([...set(1, 1), ...set(9999, 2)], 50_000));
    expect(v.whichOneof("pick")).toBe("m9999");
    const nested = ld(1000, set(K + 1, 5));
    const w = ser.fromBinary(Uint8Array.from([...nested, ...set(7, 7), ...nested, ...nested]));
    expect(w.whichOneof("pick")).toBe("m1000");
    // The int32 member came between: the message member starts over, then merges once.
    expect((w.get("m1000") as DynamicMessage).get("plain")).toBe(5);
    expect(w.has("m7")).toBe(false);
  });

  test("nested wide oneofs in a list keep their own cases", () => {
    const el = (n: number) => ld(1000, set(n, n));
    const v = ser.fromBinary(Uint8Array.from([...el(3), ...el(4)]));
    const inner = v.get("m1000") as DynamicMessage;
    // Two occurrences of m1000 merge: m3 then m4 in the same inner value.
    expect(inner.whichOneof("pick")).toBe("m4");
    expect(inner.has("m3")).toBe(false);
  });

  test("create and the builder keep at most one member", () => {
    expect(() => DynamicMessage.create(Wide, { m1: 1, m2: 2 })).toThrow(/oneof acme\.Wide\.pick has two members set/);
    const b = DynamicMessage.newBuilder(Wide);
    for (let i = 1; i < 2000; i++) if (i % 1000 !== 0) b.set(`m${i}`, i);
    const v = b.build();
    expect(v.whichOneof("pick")).toBe("m1999");
  });
});

describe("the generated kind: the same wide oneof, as protobuf-es reads and writes it", () => {
  const gen = ProtobufType.newGeneratedBuilder(Wide).maxMessageBytes(1 << 30).build().createSerializer();
  const nested = ld(1000, set(K + 1, 5));
  const el = (n: number) => ld(1000, set(n, n));
  const every: number[] = [];
  for (let i = 1; i <= K; i++) if (i % 1000 !== 0) every.push(...set(i, i));

  test.each([
    ["every int32 member once", Uint8Array.from(every)],
    ["100,000 alternations between two members", repeat([...set(1, 1), ...set(9999, 2)], 50_000)],
    ["a message member, another member, the message member twice", Uint8Array.from([...nested, ...set(7, 7), ...nested, ...nested])],
    ["nested wide oneofs merged", Uint8Array.from([...el(3), ...el(4)])],
  ])("%s", (_name, bytes) => {
    const v = gen.fromBinary(bytes);
    expect(v).toEqual(fromBinary(Wide, bytes));
    expect(Buffer.compare(gen.toBinary(v), toBinary(Wide, v))).toBe(0);
    expect(gen.decode(gen.encode(v))).toEqual(v);
  });

  test("the member that wins is the dynamic kind's", () => {
    const pick = (bytes: number[]) => (gen.fromBinary(Uint8Array.from(bytes)) as unknown as { pick: { case: string; value: unknown } }).pick;
    expect(pick(every)).toEqual({ case: `m${K - 1}`, value: K - 1 });
    expect(pick([...nested, ...set(7, 7), ...nested, ...nested])).toEqual({ case: "m1000", value: expect.objectContaining({ plain: 5 }) });
    expect(pick([...el(3), ...el(4)])).toEqual({ case: "m1000", value: expect.objectContaining({ pick: { case: "m4", value: 4 } }) });
  });
  // "create and the builder keep at most one member" is DynamicMessage's API: a protobuf-es oneof
  // is one { case, value } property and cannot hold two members.
});
