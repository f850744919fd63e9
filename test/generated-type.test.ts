// ProtobufType.ofGenerated / newGeneratedBuilder (docs/design.md §11, §6.2): the generated kind, its
// identity (the dynamic identity plus kind and generated type name), and that ProtobufType.of of
// the same schema stays a dynamic type.
import { describe, expect, test } from "vitest";
import { InvalidDescriptorError, ProtobufType } from "../src/index.js";
import { InvoiceSchema, OrderSchema } from "./fixtures/generated-es/gen/es_fixtures_pb.js";

describe("construction", () => {
  test("ofGenerated makes the generated kind; of() of the same schema stays dynamic", () => {
    const gen = ProtobufType.ofGenerated(OrderSchema);
    const dyn = ProtobufType.of(OrderSchema);
    expect(gen.kind).toBe("generated");
    expect(dyn.kind).toBe("dynamic");
    expect(gen.generatedTypeName).toBe("esfix.Order");
    expect(gen.fullName).toBe("esfix.Order");
    expect(gen.descriptor).toBe(OrderSchema);
    expect(gen.fingerprint()).toBe(dyn.fingerprint());
    expect(gen.normalizedDescriptorSet()).toEqual(dyn.normalizedDescriptorSet());
    expect(String(gen)).toBe("ProtobufType(generated esfix.Order)");
    expect(gen.isKeyType()).toBe(false);
  });

  test("newGeneratedBuilder takes the four settings; build() equals ofGenerated for defaults", () => {
    const t = ProtobufType.newGeneratedBuilder(OrderSchema).maxMessageBytes(100).maxDepth(5).deterministic(true).aliasThreshold(4).build();
    expect(t.settings).toEqual({ maxMessageBytes: 100, maxDepth: 5, deterministic: true, aliasThreshold: 4 });
    expect(ProtobufType.newGeneratedBuilder(OrderSchema).build().equals(ProtobufType.ofGenerated(OrderSchema))).toBe(true);
    expect(() => ProtobufType.newGeneratedBuilder(OrderSchema).maxDepth(0)).toThrow(RangeError);
  });

  test.each([
    ["null", null],
    ["a string", "esfix.Order"],
    ["an enum descriptor", { kind: "enum", typeName: "esfix.E" }],
  ])("ofGenerated(%s) is an InvalidDescriptorError naming what to pass", (_name, input) => {
    let error: unknown;
    try {
      ProtobufType.ofGenerated(input as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidDescriptorError);
    expect((error as InvalidDescriptorError).code).toBe("NOT_A_GENERATED_SCHEMA");
    expect((error as Error).message).toMatch(/^invalid descriptor: ProtobufType\.ofGenerated expects a protobuf-es message schema \(a GenMessage such as OrderSchema from protoc-gen-es code\), got .*; for other descriptor inputs use ProtobufType\.of\(descriptor\)$/);
  });
});

describe("identity", () => {
  const gen = ProtobufType.ofGenerated(OrderSchema);
  test.each([
    ["the same schema again", ProtobufType.ofGenerated(OrderSchema), true],
    ["the dynamic type of the same schema", ProtobufType.of(OrderSchema), false],
    ["another generated schema", ProtobufType.ofGenerated(InvoiceSchema), false],
    ["other settings", ProtobufType.newGeneratedBuilder(OrderSchema).deterministic(true).build(), false],
    ["not a type", "esfix.Order", false],
  ])("equals %s: %s", (_name, other, expected) => {
    expect(gen.equals(other)).toBe(expected);
    if (typeof other === "object") expect(other.equals(gen)).toBe(expected);
  });
});
