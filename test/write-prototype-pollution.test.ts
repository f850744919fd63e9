// An enumerable property on Object.prototype (a polluted prototype) is not a field of any init
// object. The writer of plain init objects walked keys with for…in, which lists inherited keys:
// with Object.prototype.f_string set, toBinary({ f_int32: 1 }) wrote the inherited string (and
// toJson showed it) while create did not; with Object.prototype.extra set, every encode from a
// plain object threw "has no field extra". The generated kind's writer walked its objects alike.
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { pollute, polluting } from "./support/pollute.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";

const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const gen = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();

polluting();

describe("inherited enumerable properties are not fields", () => {
  test.each<[string, string, unknown]>([
    ["a field's proto name", "f_string", "INJECTED"],
    ["a field's JSON name", "fString", "INJECTED"],
    ["a name that is no field", "extra", 1],
    ["a message field", "f_message", { value: 9 }],
  ])("Object.prototype gains %s", (_name, key, value) => {
    const init = { f_int32: 1, children: [{ f_int32: 2 }], mv_message: { k: { value: 3 } } };
    const clean = ser.toBinary(DynamicMessage.create(All, init));
    pollute(key, value);
    expect(ser.toBinary(init as never)).toEqual(clean);
    expect(ser.encodeAll([init, init] as never)).toEqual(ser.encodeAll([DynamicMessage.create(All, init), DynamicMessage.create(All, init)]));
    expect(ser.toBinary(DynamicMessage.create(All, init))).toEqual(clean);
    expect(ser.toJson(init as never)).toEqual(ser.toJson(DynamicMessage.create(All, init)));
    // The same for the generated kind's values.
    const msg = create(AllTypesSchema, { fInt32: 1 });
    expect(gen.toBinary(msg)).toEqual(toBinary(AllTypesSchema, msg));
  });
});
