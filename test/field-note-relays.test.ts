// The field notes' relays (shared/seeds/004), with their schemas (test/fixtures/relays/), run
// through protokeel: what a reader bound to another schema version keeps when it decodes and
// encodes again. serializer-relay covers the unmodified relay; this file follows the notes'
// scripts step by step and adds the re-encoding paths (a modified value, deterministic output,
// frames), where a relay stops copying its source bytes.
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType, type ProtobufSerializer } from "../src/index.js";
import { messageFromDir } from "./support/buf.js";

function serializer(version: string, deterministic = false): ProtobufSerializer {
  const desc = messageFromDir(`fixtures/relays/${version}`, "probe.Record");
  return ProtobufType.newBuilder(desc).deterministic(deterministic).build().createSerializer();
}

const Old = serializer("old");
const New = serializer("new");
const Implicit = serializer("implicit");
const DETERMINISTIC = new Map([
  [Old, serializer("old", true)],
  [Implicit, serializer("implicit", true)],
]);
const record = (s: ProtobufSerializer, init: Record<string, unknown>) => DynamicMessage.create(s.type.descriptor, init);

/** The ways a relay can write a value it decoded: ending in the bytes the next reader gets. */
const RELAYS: [string, (s: ProtobufSerializer, bytes: Uint8Array) => Uint8Array][] = [
  ["unmodified (source bytes copied)", (s, bytes) => s.toBinary(s.fromBinary(bytes))],
  ["deterministic re-encoding", (s, bytes) => {
    const d = DETERMINISTIC.get(s)!;
    return d.toBinary(d.fromBinary(bytes));
  }],
  ["modified through the builder", (s, bytes) => s.toBinary(s.fromBinary(bytes).toBuilder().set("name", "beta").build())],
  ["framed, in a batch", (s, bytes) => {
    const frames = s.decodeAll(s.encodeAll([s.fromBinary(bytes), s.fromBinary(bytes)]));
    return s.toBinary(frames[1]!.toBuilder().set("name", "beta").build());
  }],
];


describe("field notes 2028-02-26: presence across relays", () => {
  test("an old writer stays readable: the renamed field reads by number, the new field is absent", () => {
    const back = New.fromBinary(Old.toBinary(record(Old, { id: 7, name: "alpha" })));
    expect(back.get("event_id")).toBe(7);
    expect(back.get("name")).toBe("alpha");
    expect(back.has("count")).toBe(false);
    expect(back.unknownFields.size).toBe(0);
  });

  test.each(RELAYS)("an old relay keeps the unknown explicit zero: %s", (_name, relay) => {
    const written = New.toBinary(record(New, { event_id: 7, name: "alpha", count: 0 }));
    const held = Old.fromBinary(written);
    expect(held.unknownFields.get(3)).toEqual([new Uint8Array([0x18, 0x00])]);
    expect(held.get("id")).toBe(7);
    const returned = New.fromBinary(relay(Old, written));
    expect(returned.get("event_id")).toBe(7);
    expect(returned.has("count")).toBe(true);
    expect(returned.get("count")).toBe(0);
  });

  test.each(RELAYS.slice(1))("an implicit-presence relay that re-encodes loses the presence of zero: %s", (_name, relay) => {
    const written = New.toBinary(record(New, { event_id: 7, name: "alpha", count: 0 }));
    const held = Implicit.fromBinary(written);
    expect(held.get("count")).toBe(0);
    expect(held.has("count")).toBe(false);
    expect(held.unknownFields.size).toBe(0);
    const lost = New.fromBinary(relay(Implicit, written));
    expect(lost.has("count")).toBe(false);
    expect(lost.get("count")).toBeUndefined();
    expect(lost.get("event_id")).toBe(7);
  });

  test("…while its unmodified relay copies the source bytes and so still forwards the zero", () => {
    const written = New.toBinary(record(New, { event_id: 7, name: "alpha", count: 0 }));
    const [, copy] = RELAYS[0]!;
    expect(Buffer.from(copy(Implicit, written)).equals(Buffer.from(written))).toBe(true);
    expect(New.fromBinary(copy(Implicit, written)).has("count")).toBe(true);
  });

  test("a non-zero value survives both relays: the difference is presence only", () => {
    const written = New.toBinary(record(New, { event_id: 7, name: "alpha", count: 5 }));
    for (const [, relay] of RELAYS) {
      for (const s of [Old, Implicit]) {
        const back = New.fromBinary(relay(s, written));
        expect([back.has("count"), back.get("count")]).toEqual([true, 5]);
      }
    }
  });

  test("fields in another legal order decode to the same value", () => {
    const old = Old.toBinary(record(Old, { id: 7, name: "alpha" }));
    const reordered = new Uint8Array([0x18, 0x00, ...old]);
    const expected = record(New, { event_id: 7, name: "alpha", count: 0 });
    expect(New.fromBinary(reordered).equals(expected)).toBe(true);
    expect(Buffer.from(reordered).equals(Buffer.from(New.toBinary(expected)))).toBe(false);
  });
});

describe("field notes 2028-02-26: a reused integer number changes meaning, not validity", () => {
  const Signed = serializer("signed");
  const Unsigned = serializer("unsigned");

  // A signed int32 is written as a 10-byte sign-extended varint; an unsigned reading keeps its
  // low 32 bits (protobuf's int32/uint32 compatibility rule), so the number changes silently.
  test.each([
    [-1, 4294967295],
    [-2147483648, 2147483648],
    [-7, 4294967289],
    [2147483647, 2147483647],
  ])("int32 %i reads as uint32 %i (documented, not an error)", (signed, unsigned) => {
    const bytes = Signed.toBinary(record(Signed, { value: signed }));
    expect(Unsigned.fromBinary(bytes).get("value")).toBe(unsigned);
    // Written back by the unsigned reader as a 5-byte varint, it reads as the signed number again.
    const rewritten = Unsigned.toBinary(Unsigned.fromBinary(bytes).toBuilder().build());
    const changed = Unsigned.toBinary(record(Unsigned, { value: unsigned }));
    expect(Signed.fromBinary(changed).get("value")).toBe(signed);
    expect(Signed.fromBinary(rewritten).get("value")).toBe(signed);
    if (signed < 0) expect(rewritten.length).toBeLessThan(bytes.length); // re-encoded, not copied
  });
});

describe("field notes 2027-11-19: binary relays and renames", () => {
  const Bare = serializer("bare");
  const Noted = serializer("noted");
  const Renamed = serializer("renamed");
  const producer = record(Noted, { id: 7, note: "retain me" });

  test("the old binary relay keeps `note`, also when it changes a known field", () => {
    const held = Bare.fromBinary(Noted.toBinary(producer));
    expect(Noted.fromBinary(Bare.toBinary(held)).get("note")).toBe("retain me");
    const changed = Bare.toBinary(held.toBuilder().set("id", 8).build());
    expect(Noted.fromBinary(changed).toObject()).toEqual({ id: 8, note: "retain me" });
  });

  test("copying only the known fields into a new value drops `note`", () => {
    const held = Bare.fromBinary(Noted.toBinary(producer));
    const copied = record(Bare, held.toObject());
    expect(copied.unknownFields.size).toBe(0);
    expect(Noted.fromBinary(Bare.toBinary(copied)).get("note")).toBe("");
  });

  test("a same-number rename reads binary data by number, in both directions", () => {
    const renamed = Renamed.fromBinary(Bare.toBinary(record(Bare, { id: 7 })));
    expect(renamed.get("event_id")).toBe(7);
    expect(Bare.fromBinary(Renamed.toBinary(renamed.toBuilder().set("event_id", 9).build())).get("id")).toBe(9);
    // The newer field rides along unknown through the renamed reader too.
    const viaRenamed = Renamed.toBinary(Renamed.fromBinary(Noted.toBinary(producer)).toBuilder().set("event_id", 8).build());
    expect(Noted.fromBinary(viaRenamed).toObject()).toEqual({ id: 8, note: "retain me" });
  });
});
