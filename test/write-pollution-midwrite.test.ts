// Object.prototype polluted by code a write runs (a getter of an init object), after the write
// read its first init object. The writers test for an enumerable inherited property once per root
// (a test per object cost the small fixture's encode from plain), so init objects read after the
// pollution had the inherited property written as a field, which DynamicMessage.create (and the
// same write of a clean process) skips. A write that sees the prototype change under it now
// writes what create builds.
import { expect, test } from "vitest";
import { DynamicMessage, FrameWriter, ProtobufType } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";
import { pollute, polluting } from "./support/pollute.js";

polluting();

const type = ProtobufType.of({
  fileDescriptorSet: compileProtoText({ "p.proto": 'syntax = "proto3"; package p; message Item { string sku = 1; int32 qty = 2; } message Order { repeated Item items = 1; Item first = 2; }' }),
  messageName: "p.Order",
});
const ser = type.createSerializer();

/** What the getter pollutes `qty` with: a valid int32, or (a case of its own below) a value create would refuse. */
let pollutant: unknown = 77;

/** An order whose first item's getter pollutes Object.prototype with `qty` (once). */
function order(): Record<string, unknown> {
  return {
    items: [
      {
        get sku() {
          if (!Object.hasOwn(Object.prototype, "qty")) pollute("qty", pollutant);
          return "a";
        },
      },
      { sku: "b" },
    ],
    first: { sku: "c" },
  };
}

/** What create builds of an order, written: the bytes every write must give. */
function expected(): Uint8Array {
  const built = DynamicMessage.create(type.descriptor, order());
  delete (Object.prototype as Record<string, unknown>).qty;
  return ser.toBinary(built);
}

test.each([
  ["toBinary", () => ser.toBinary(order())],
  ["encode (its body)", () => ser.encode(order()).subarray(1)],
  ["encodeAll (its body)", () => ser.encodeAll([order()]).subarray(1)],
  // A batch that starts with a DynamicMessage goes to the dynamic writer at once.
  ["encodeAll after a DynamicMessage (its body)", () => ser.encodeAll([DynamicMessage.create(type.descriptor, {}), order()]).subarray(2)],
  ["serialize into a FrameWriter (its body)", () => {
    const fw = new FrameWriter();
    ser.serialize(order(), fw);
    return fw.toUint8Array().subarray(1);
  }],
])("%s writes no inherited property taken in mid-write", (_name, write) => {
  const want = expected();
  expect(ser.fromBinary(want).toObject()).toMatchObject({ items: [{ sku: "a", qty: 0 }, { sku: "b", qty: 0 }], first: { sku: "c", qty: 0 } });
  expect(write()).toEqual(want);
});

// A polluted value create would refuse, read from the objects after the getter: the write failed
// on it (TypeError "expects an integer"), where create, skipping inherited keys, builds the order.
test.each<[string, unknown]>([
  ["a string", "seventy-seven"],
  ["a fraction", 7.5],
])("a polluted value that is %s does not fail the write", (_name, value) => {
  pollutant = value;
  try {
    const want = expected();
    expect(ser.toBinary(order())).toEqual(want);
    delete (Object.prototype as Record<string, unknown>).qty;
    expect(ser.encodeAll([order()]).subarray(1)).toEqual(want);
    delete (Object.prototype as Record<string, unknown>).qty;
    // the dynamic writer's turn: a batch that starts with a DynamicMessage
    expect(ser.encodeAll([DynamicMessage.create(type.descriptor, {}), order()]).subarray(2)).toEqual(want);
  } finally {
    pollutant = 77;
  }
});
