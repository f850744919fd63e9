// Oneofs with 100,000 members, 50,000 oneofs, 100,000 proto3 `optional` fields (one synthetic
// oneof each) and an enum number with 100,000 aliases (hardening, descriptors items 1 and 5):
// no per-member work over all members, no per-oneof work over all oneofs. Correctness at these
// sizes, never time.
import { describe, expect, test } from "vitest";
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { ProtobufType, evaluateSchemaChange } from "../../src/index.js";
import { denseNumber, enumAliases, manyOneofs, messageOf, setOf, wideOneof } from "../../stress/schemas.mjs";
import { expectRoundTrips } from "./support/round-trip.js";

const N = 100_000;
const NEW_FIELD = "add a new field with a new number instead (and reserve this one)";

function messageProtoOf(t: ProtobufType) {
  return fromBinary(FileDescriptorSetSchema, t.normalizedDescriptorSet()).file[0]!.messageType[0]!;
}

describe("one oneof of 100,000 members", () => {
  const wide = messageOf(wideOneof(N, "current"), "s.Wide");
  const type = ProtobufType.of(wide);

  test("normalizes: one oneof, every member in it", () => {
    const message = messageProtoOf(type);
    expect(message.oneofDecl.map((o) => o.name)).toEqual(["choice"]);
    expect(message.field.length).toBe(N + 1);
    expect(message.field[0]!.name).toBe("id");
    expect(message.field.slice(1).every((f) => f.oneofIndex === 0)).toBe(true);
  });

  test("round-trips through the transfer form", () => {
    expectRoundTrips(type, { snapshot: false });
  });

  // 10,000 members here: a serializer (which a snapshot needs) maps oneof members to fields with
  // indexOf in src/message/field-info.ts, ~5 s per serializer at 100,000 members (reported).
  test("a snapshot of a 10,000-member oneof restores", () => {
    expectRoundTrips(ProtobufType.of(messageOf(wideOneof(10_000, "current"), "s.Wide")));
  });

  test("evaluate: two oneofs of 50,000 merged into one", () => {
    const merged = `s.Wide.c${N / 2}(${denseNumber(N / 2 + 1)})`;
    expect(evaluateSchemaChange(messageOf(wideOneof(N), "s.Wide"), wide)).toEqual({
      compatible: false,
      incompatibilities: [
        {
          rule: "ONEOF_FIELDS_MERGED",
          path: merged,
          message: `field ${merged} is now in oneof choice together with field s.Wide.c0(2), which the saved schema did not keep in one oneof: saved data may set both, and the current reader keeps only the last one; keep them in separate oneofs or ${NEW_FIELD}`,
        },
      ],
      notes: [
        {
          rule: "ONEOF_RENAMED",
          path: "s.Wide.c0(2)",
          message:
            "oneof a containing field s.Wide.c0(2) was renamed to choice: binary and JSON data are unaffected; code that reads the oneof by name changes",
        },
      ],
    });
  });
});

describe("50,000 oneofs of two members", () => {
  const saved = messageOf(manyOneofs(N), "s.Many");

  test("normalize orders oneofs by their lowest member number, not by name", () => {
    const names = messageProtoOf(ProtobufType.of(saved)).oneofDecl.map((o) => o.name);
    expect(names).toEqual(Array.from({ length: N / 2 }, (_, i) => `o${i}`));
  });

  test("evaluate: every oneof renamed is one note each, in field order", () => {
    const result = evaluateSchemaChange(saved, messageOf(manyOneofs(N, "current"), "s.Many"));
    expect(result.compatible).toBe(true);
    expect(result.notes.length).toBe(N / 2);
    const i = N / 2 - 1;
    const path = `s.Many.c${2 * i}(${denseNumber(2 * i)})`;
    expect(result.notes.at(-1)).toEqual({
      rule: "ONEOF_RENAMED",
      path,
      message: `oneof o${i} containing field ${path} was renamed to p${i}: binary and JSON data are unaffected; code that reads the oneof by name changes`,
    });
  });
});

/** `s.Opt` with 100,000 fields `f<i>`: proto3 `optional` (one synthetic oneof `_f<i>` each), or plain. */
function optionalFields(optional: boolean) {
  const field = [];
  const oneofDecl = [];
  for (let i = 0; i < N; i++) {
    const f: Record<string, unknown> = { name: `f${i}`, number: denseNumber(i), label: 1, type: 5, jsonName: `f${i}` };
    if (optional) {
      f.proto3Optional = true;
      f.oneofIndex = i;
      oneofDecl.push({ name: `_f${i}` });
    }
    field.push(f);
  }
  return messageOf(setOf([{ name: "s/opt.proto", package: "s", syntax: "proto3", messageType: [{ name: "Opt", field, oneofDecl }] }]), "s.Opt");
}

describe("100,000 proto3 optional fields", () => {
  const saved = optionalFields(true);

  test("normalize: one synthetic oneof per field, in field order", () => {
    const message = messageProtoOf(ProtobufType.of(saved));
    expect(message.oneofDecl.length).toBe(N);
    expect(message.oneofDecl[N - 1]!.name).toBe(`_f${N - 1}`);
    expect(message.field.every((f, i) => f.proto3Optional && f.oneofIndex === i)).toBe(true);
  });

  test("a synthetic name taken by a field gets protoc's X prefix", () => {
    const set = setOf([
      {
        name: "s/x.proto",
        package: "s",
        syntax: "proto3",
        messageType: [
          {
            name: "X",
            field: [
              { name: "a", number: 1, label: 1, type: 5, jsonName: "a", proto3Optional: true, oneofIndex: 0 },
              { name: "_a", number: 2, label: 1, type: 5, jsonName: "A" },
              { name: "X_a", number: 3, label: 1, type: 5, jsonName: "XA" },
            ],
            oneofDecl: [{ name: "_a" }],
          },
        ],
      },
    ]);
    expect(messageProtoOf(ProtobufType.of(messageOf(set, "s.X"))).oneofDecl.map((o) => o.name)).toEqual(["XX_a"]);
  });

  test("evaluate: every field losing explicit presence is one finding each", () => {
    const result = evaluateSchemaChange(saved, optionalFields(false));
    expect(result.incompatibilities.length).toBe(N);
    expect(new Set(result.incompatibilities.map((f) => f.rule))).toEqual(new Set(["PRESENCE_EXPLICIT_TO_IMPLICIT"]));
    expect(result.incompatibilities.at(-1)!.path).toBe(`s.Opt.f${N - 1}(${denseNumber(N - 1)})`);
  });
});

describe("an enum number with 100,000 aliases", () => {
  const saved = messageOf(enumAliases(N), "s.Holder");

  test("builds (allow_alias) and evaluates all renamed names as one note", () => {
    expect(ProtobufType.of(saved).fullName).toBe("s.Holder");
    // The message lists the first 8 names of each side (a whole list was 2.4 MB here).
    const from = `${Array.from({ length: 8 }, (_, i) => `A${i}`).join(", ")} and ${N - 8} more`;
    const to = `${Array.from({ length: 8 }, (_, i) => `B${i}`).join(", ")} and ${N - 8} more`;
    expect(evaluateSchemaChange(saved, messageOf(enumAliases(N, "current"), "s.Holder"))).toEqual({
      compatible: true,
      incompatibilities: [],
      notes: [
        {
          rule: "ENUM_VALUE_RENAMED",
          path: "s.Holder.a(1).B0(0)",
          message: `enum value s.Holder.a(1).B0(0) of s.Alias was renamed from ${from} to ${to}: binary data is unaffected, but JSON and text written with ${from} no longer parse; accept the old name where JSON is read`,
        },
      ],
    });
  });

  test("at a JSON boundary, every lost alias is named by one finding of bounded size", () => {
    const from = `${Array.from({ length: 8 }, (_, i) => `"A${i}"`).join(", ")} and ${N - 8} more`;
    const r = evaluateSchemaChange(saved, messageOf(enumAliases(N, "current"), "s.Holder"), { boundary: "json" });
    expect(r.incompatibilities).toEqual([
      {
        rule: "JSON_ENUM_VALUE_RENAMED",
        path: "s.Holder.a(1).B0(0)",
        message: `enum value s.Holder.a(1).B0(0) of s.Alias was renamed from ${from.replaceAll('"', "")} to B0: enum values travel by name in JSON, so saved JSON with ${from} is rejected by the current parser, and current JSON with "B0" by a strict old one; keep ${from.replaceAll('"', "")} (an alias with allow_alias accepts both names)`,
      },
    ]);
  });

  test("without allow_alias the second name fails, every time", () => {
    const set = enumAliases(N);
    set.file[0]!.enumType[0]!.options = undefined;
    const broken = messageOf(set, "s.Holder");
    const expected = expect.objectContaining({
      code: "ENUM_ALIAS_NOT_ALLOWED",
      message:
        "invalid descriptor s.Holder: enum s.Alias values A0 and A1 share number 0 without allow_alias; renumber one or set option allow_alias = true",
    });
    expect(() => ProtobufType.of(broken)).toThrow(expected);
    expect(() => ProtobufType.of(broken)).toThrow(expected);
  });
});
