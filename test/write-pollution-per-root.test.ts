// The writers test Object.prototype for enumerable properties once per root value (at the
// first init object of a dynamic write, at the start of a generated one), not per message: a
// per-message test was 5-8% of span encode. What matters is that the test is made again for every
// root, never carried over from an earlier write. Writers are pooled for the whole module, so this
// file is its own: its first test starts from writers that have not seen a polluted prototype.
import { create } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { pollute, polluting } from "./support/pollute.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";

const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const gen = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();

polluting();

describe("pollution is tested again for every root value", () => {
  const init = { f_int32: 1, children: [{ f_int32: 2 }] };
  const clean = () => ser.encode(DynamicMessage.create(All, init));
  const cleanGen = () => gen.encode(create(AllTypesSchema, { fInt32: 1, fMessage: { value: 3 } }));

  test("a serializer that wrote before the prototype was polluted skips inherited keys after", () => {
    const before = ser.toBinary(init as never);
    const genMsg = create(AllTypesSchema, { fInt32: 1 });
    const genBefore = gen.toBinary(genMsg);
    pollute("f_string", "INJECTED");
    pollute("fMessage", { $typeName: "alltypes.Leaf", value: 9 });
    expect(ser.toBinary(init as never)).toEqual(before);
    expect(gen.toBinary(genMsg)).toEqual(genBefore);
  });

  test("pollution a getter adds while one value is written is seen by the next value of the batch", () => {
    const expected = clean();
    const first = Object.defineProperty({ children: [] as unknown[] }, "f_int32", {
      enumerable: true,
      get: () => {
        pollute("f_string", "INJECTED");
        return 1;
      },
    });
    const frames = ser.encodeAll([first, init] as never);
    expect(frames.subarray(frames.length - expected.length)).toEqual(expected);
  });

  test("the same for the generated kind", () => {
    const expected = cleanGen();
    const first = create(AllTypesSchema, { fInt32: 1 });
    Object.defineProperty(first, "fInt32", {
      enumerable: true,
      get: () => {
        pollute("fString", "INJECTED");
        pollute("fBytes", new Uint8Array([1]));
        return 1;
      },
    });
    const second = create(AllTypesSchema, { fInt32: 1, fMessage: { value: 3 } });
    delete (second as Record<string, unknown>).fString;
    delete (second as Record<string, unknown>).fBytes;
    const frames = gen.encodeAll([first, second]);
    expect(frames.subarray(frames.length - expected.length)).toEqual(expected);
  });
});
