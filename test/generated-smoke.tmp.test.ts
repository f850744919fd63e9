import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { test, expect } from "vitest";
import { ProtobufType } from "../src/index.js";
import { OrderSchema, OrderLiteSchema } from "./fixtures/generated-es/gen/es_fixtures_pb.js";
import { AllTypesSchema, Color } from "./fixtures/generated-es/gen/all_types_pb.js";

test("smoke", () => {
  const t = ProtobufType.ofGenerated(OrderSchema);
  const ser = t.createSerializer();
  const v = create(OrderSchema, { id: 5n, items: [{ sku: "a", qty: 2 }], bySku: { x: { sku: "x", qty: 1 } }, payment: { case: "voucher", value: { sku: "v" } }, note: "hi" });
  const bytes = ser.toBinary(v);
  expect(bytes).toEqual(toBinary(OrderSchema, v));
  const back = ser.fromBinary(bytes);
  expect(back).toEqual(fromBinary(OrderSchema, bytes));
  const lite = ProtobufType.ofGenerated(OrderLiteSchema).createSerializer();
  const l = lite.fromBinary(bytes);
  expect(l).toEqual(fromBinary(OrderLiteSchema, bytes));
  expect(lite.toBinary(l)).toEqual(bytes);
  const a = create(AllTypesSchema, { fInt64: -3n, fEnum: Color.RED, wktInt32: 5, wktStruct: { a: 1, b: [true, "x"] }, mBool: { true: "t" }, mInt64: { "-5": "m" }, choice: { case: "cInt64", value: 9n }, jsStringInt64: "123", rInt32: [1,2,3], mvMessage: { k: { name: "n" } } });
  const ab = toBinary(AllTypesSchema, a);
  const as = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();
  expect(as.toBinary(a)).toEqual(ab);
  expect(as.fromBinary(ab)).toEqual(fromBinary(AllTypesSchema, ab));
  expect(as.decodeAll(as.encodeAll([a, a]))).toEqual([fromBinary(AllTypesSchema, ab), fromBinary(AllTypesSchema, ab)]);
});
