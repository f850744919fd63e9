// Relays from the field notes (seeds/004): what decode → encode keeps when the relaying reader
// has another schema than the writer.
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { messageFromDir } from "./support/buf.js";

const typeOf = (dir: string) => ProtobufType.of(messageFromDir(`fixtures/relay/${dir}`, "relay.Record"));
const newer = typeOf("new").createSerializer();
const older = typeOf("old").createSerializer();
const implicit = typeOf("implicit").createSerializer();
const unsigned = typeOf("unsigned").createSerializer();

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}

describe("relays", () => {
  const written = newer.toBinary(DynamicMessage.create(newer.type.descriptor, { id: "r1", count: 0, note: "retain me" }));

  test("a reader bound to an older schema keeps a newer field and an explicit zero", () => {
    const relayed = older.fromBinary(written);
    expect(relayed.unknownFields.get(2)).toEqual([new Uint8Array([0x10, 0x00])]);
    const bytes = older.toBinary(relayed);
    expect(hex(bytes)).toBe(hex(written));
    const back = newer.fromBinary(bytes);
    expect(back.has("count")).toBe(true);
    expect(back.get("count")).toBe(0);
    expect(back.get("note")).toBe("retain me");
  });

  test("the older reader's deterministic re-encoding keeps them too (unknown fields last)", () => {
    const det = ProtobufType.newBuilder(messageFromDir("fixtures/relay/old", "relay.Record")).deterministic(true).build().createSerializer();
    const back = newer.fromBinary(det.toBinary(det.fromBinary(written)));
    expect(back.has("count")).toBe(true);
    expect(back.get("note")).toBe("retain me");
  });

  test("a reader that knows the field with implicit presence loses the presence of zero", () => {
    const relayed = implicit.fromBinary(written);
    expect(relayed.has("count")).toBe(false);
    expect(relayed.get("count")).toBe(0);
    // Re-encoded from values (deterministic mode never copies the source bytes).
    const det = ProtobufType.newBuilder(implicit.type.descriptor).deterministic(true).build().createSerializer();
    const back = newer.fromBinary(det.toBinary(relayed));
    expect(back.has("count")).toBe(false);
    expect(back.get("count")).toBeUndefined();
    expect(back.get("note")).toBe("retain me");
    // So does a value rebuilt from the relayed one.
    const rebuilt = relayed.toBuilder().set("note", "changed").build();
    expect(newer.fromBinary(implicit.toBinary(rebuilt)).has("count")).toBe(false);
  });

  test("the unchanged relay (source bytes copied) forwards the explicit zero even through an implicit reader", () => {
    const back = newer.fromBinary(implicit.toBinary(implicit.fromBinary(written)));
    expect(back.has("count")).toBe(true);
  });

  test("a uint32 reading of a negative int32 is a different number, not an error", () => {
    const minusOne = newer.toBinary(DynamicMessage.create(newer.type.descriptor, { count: -1 }));
    expect(unsigned.fromBinary(minusOne).get("count")).toBe(4294967295);
  });

  test("a relay of a value decoded by another serializer instance re-checks nothing it does not need", () => {
    const twin = typeOf("new").createSerializer();
    const value = newer.fromBinary(written);
    expect(hex(twin.toBinary(value))).toBe(hex(written));
    expect(twin.evaluationCount).toBe(1);
  });
});
