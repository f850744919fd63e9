// The write-acceptance matrix of docs/design.md §8.1 through the public serializer and the real
// evaluator: which descriptors a serializer writes, what it rejects, and its pair cache.
import type { DescMessage } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, FrameWriter, ProtobufType, type ProtobufSerializer } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";

function schema(dir: string) {
  const reg = registryFromDir(`fixtures/write-acceptance/${dir}`);
  return { Order: reg.getMessage("shop.Order")!, Item: reg.getMessage("shop.Item")! };
}

const current = schema("current");

function serializer(): ProtobufSerializer {
  return ProtobufType.of(current.Order).createSerializer();
}

function fails(ser: ProtobufSerializer, value: DynamicMessage): CodecError {
  const out = new FrameWriter();
  try {
    ser.serialize(value, out);
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    expect(out.length).toBe(0);
    return e as CodecError;
  }
  throw new Error("expected a CodecError");
}

function order(d: { Order: DescMessage; Item: DescMessage }, item: DynamicMessage | object = { sku: "a" }) {
  return DynamicMessage.create(d.Order, { id: 5n, item, items: [{ sku: "b" }] });
}

describe("accepted", () => {
  test.each([
    ["the serializer's own descriptor", () => current, 0],
    ["an equal-content distinct instance", () => schema("current"), 1],
    ["an earlier schema the evaluator accepts", () => schema("saved-earlier"), 1],
  ])("%s", (_name, make, evaluations) => {
    const ser = serializer();
    const value = order(make());
    const back = ser.decode(ser.encode(value));
    expect(back.descriptor).toBe(ser.type.descriptor);
    expect(back.get("id")).toBe(5n);
    expect((back.get("item") as DynamicMessage).get("sku")).toBe("a");
    expect(ser.evaluationCount).toBe(evaluations);
  });

  test("a nested value built from the containing value's field type needs no evaluation of its own", () => {
    const other = schema("current");
    const ser = serializer();
    const item = DynamicMessage.create(other.Order.fields.find((f) => f.name === "item")!.message!, { sku: "x" });
    ser.encode(order(other, item));
    expect(ser.evaluationCount).toBe(1);
  });

  test("a nested value from yet another instance is evaluated against its paired declaration", () => {
    const ser = serializer();
    ser.encode(order(current, DynamicMessage.create(schema("current").Item, { sku: "x" })));
    expect(ser.evaluationCount).toBe(1);
    ser.encode(order(current, DynamicMessage.create(schema("current").Item, { sku: "y" })));
    expect(ser.evaluationCount).toBe(2);
  });
});

describe("rejected", () => {
  test("an incompatible root descriptor names the evaluator's first incompatibility", () => {
    const e = fails(serializer(), order(schema("saved-incompatible")));
    expect(e.code).toBe("INCOMPATIBLE_VALUE_DESCRIPTOR");
    expect(e.path).toBe("shop.Order");
    expect(e.message).toMatch(/^cannot write shop\.Order: value at shop\.Order was built with a schema of shop\.Order that this serializer's shop\.Order cannot write its content with \(FIELD_TYPE_CHANGED at shop\.Order\.item\(2\)\.qty\(2\); in the evaluator's words, with the value's schema as the saved one: .*\); build the value from the serializer's descriptor, or from a schema version the serializer's schema can read$/);
  });

  test("an incompatible nested descriptor is rejected at its path", () => {
    const bad = schema("saved-incompatible");
    const e = fails(serializer(), order(current, DynamicMessage.create(bad.Item, { sku: "x", qty: "1" })));
    expect(e.code).toBe("INCOMPATIBLE_VALUE_DESCRIPTOR");
    expect(e.path).toBe("shop.Order.item(2)");
    expect(e.message).toContain("(FIELD_TYPE_CHANGED at shop.Item.qty(2); in the evaluator");
  });

  test("a value whose schema reaches a proto2 type through a field the serializer reserves", () => {
    const legacy = schema("saved-proto2");
    const value = DynamicMessage.create(legacy.Order, { id: 1n, legacy: { code: "x" } });
    const e = fails(serializer(), value);
    expect(e.code).toBe("INVALID_VALUE_DESCRIPTOR");
    expect(e.path).toBe("shop.Order");
    expect(e.message).toMatch(/^cannot write shop\.Order: value at shop\.Order has descriptor shop\.Order that breaks a payload rule: invalid descriptor shop\.Order: .*shop\.Legacy.*proto2/);
  });

  test("an unknown field that collides with a field only the serializer's schema declares", () => {
    const earlier = schema("saved-earlier");
    const item = DynamicMessage.newBuilder(earlier.Item)
      .set("sku", "a")
      .setUnknownFields(new Map([[2, [new Uint8Array([0x10, 0x07])]]]))
      .build();
    // The earlier schema's own serializer writes it: field 2 is unknown there too.
    expect(ProtobufType.of(earlier.Order).createSerializer().encode(order(earlier, item)).length).toBeGreaterThan(0);
    const e = fails(serializer(), order(earlier, item));
    expect(e.code).toBe("UNKNOWN_FIELD_COLLISION");
    expect(e.path).toBe("shop.Order.item(2)");
    expect(e.message).toBe(
      "cannot write shop.Order: unknown field 2 at shop.Order.item(2) collides with field shop.Item.qty(2) of the paired declaration; remove the unknown field before writing",
    );
  });

  test.each([null, undefined, "x", new Map([["id", 1]]), [1]])("%o is neither a DynamicMessage nor a plain init object", (v) => {
    const e = fails(serializer(), v as never);
    expect(e.code).toBe("NOT_A_DYNAMIC_MESSAGE");
  });
});

describe("the accepted-pair cache", () => {
  test("keeps 16 pairs, evicts the least recently used, and duplicates start empty", () => {
    const ser = serializer();
    const instances = Array.from({ length: 17 }, () => schema("current").Order);
    for (const d of instances.slice(0, 16)) ser.encode(DynamicMessage.create(d, {}));
    expect(ser.evaluationCount).toBe(16);
    for (const d of instances.slice(0, 16)) ser.encode(DynamicMessage.create(d, {}));
    expect(ser.evaluationCount).toBe(16);
    ser.encode(DynamicMessage.create(instances[16]!, {}));
    expect(ser.evaluationCount).toBe(17);
    ser.encode(DynamicMessage.create(instances[0]!, {}));
    expect(ser.evaluationCount).toBe(18);
    const dup = ser.duplicate();
    dup.encode(DynamicMessage.create(instances[16]!, {}));
    expect(dup.evaluationCount).toBe(1);
  });
});
