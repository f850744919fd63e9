// Property: any declaration order, file options, explicit-or-computed json_name, reserved-range
// split and map entry name give the same normalized bytes for the same schema content.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { DescriptorProtoSchema, FieldDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { normalize } from "../src/descriptor/normalize.js";
import { rebuildRoot } from "../src/descriptor/rebuild.js";
import { protocJsonName } from "../src/descriptor/names.js";
import { L, messageOf, T, type FileInit } from "./support/descriptors.js";

type FieldInit = MessageInitShape<typeof FieldDescriptorProtoSchema>;
type MessageInit = MessageInitShape<typeof DescriptorProtoSchema>;

type Kind =
  | { k: "scalar"; type: number }
  | { k: "optional"; type: number }
  | { k: "repeated"; type: number }
  | { k: "message"; target: number }
  | { k: "list"; target: number }
  | { k: "map"; target: number }
  | { k: "enum" };

interface FieldModel {
  number: number;
  kind: Kind;
  oneof: boolean;
}
interface MessageModel {
  fields: FieldModel[];
  reserved: number[];
}

const SCALARS = [T.INT32, T.INT64, T.STRING, T.BYTES, T.DOUBLE, T.SINT64, T.BOOL, T.FIXED32];

const schemaArb = fc.integer({ min: 1, max: 5 }).chain((n) =>
  fc.array(
    fc.record({
      fields: fc.uniqueArray(
        fc.record({
          number: fc.integer({ min: 1, max: 60 }),
          kind: fc.oneof(
            fc.record({ k: fc.constant("scalar" as const), type: fc.constantFrom(...SCALARS) }),
            fc.record({ k: fc.constant("optional" as const), type: fc.constantFrom(...SCALARS) }),
            fc.record({ k: fc.constant("repeated" as const), type: fc.constantFrom(...SCALARS) }),
            fc.record({ k: fc.constant("message" as const), target: fc.nat(n - 1) }),
            fc.record({ k: fc.constant("list" as const), target: fc.nat(n - 1) }),
            fc.record({ k: fc.constant("map" as const), target: fc.nat(n - 1) }),
            fc.record({ k: fc.constant("enum" as const) }),
          ),
          oneof: fc.boolean(),
        }),
        { selector: (f) => f.number, minLength: 1, maxLength: 8 },
      ),
      reserved: fc.uniqueArray(fc.integer({ min: 61, max: 90 }), { maxLength: 6 }),
    }),
    { minLength: n, maxLength: n },
  ),
);

interface Layout {
  shuffle: (n: number) => number[];
  explicitJson: boolean;
  options: boolean;
  entrySuffix: string;
}

function emit(schema: MessageModel[], layout: Layout): FileInit {
  const messages: MessageInit[] = schema.map((m, i) => {
    const fields: FieldInit[] = [];
    const nested: MessageInit[] = [];
    const oneofs = ["choice"];
    let syntheticCount = 0;
    const synthetic: Array<[FieldInit, string]> = [];
    for (const f of m.fields) {
      const name = `f_${f.number}`;
      const base: FieldInit = { name, number: f.number, label: L.OPTIONAL };
      if (layout.explicitJson) base.jsonName = protocJsonName(name);
      const canBeInOneof = f.kind.k === "scalar" || f.kind.k === "message" || f.kind.k === "enum";
      switch (f.kind.k) {
        case "scalar":
        case "optional":
          base.type = f.kind.type;
          break;
        case "repeated":
          base.type = f.kind.type;
          base.label = L.REPEATED;
          break;
        case "message":
          base.type = T.MESSAGE;
          base.typeName = `.p.M${f.kind.target}`;
          break;
        case "list":
          base.type = T.MESSAGE;
          base.typeName = `.p.M${f.kind.target}`;
          base.label = L.REPEATED;
          break;
        case "map": {
          const entry = `F${f.number}${layout.entrySuffix}`;
          base.type = T.MESSAGE;
          base.typeName = `.p.M${i}.${entry}`;
          base.label = L.REPEATED;
          nested.push({
            name: entry,
            options: { mapEntry: true },
            field: [
              { name: "key", number: 1, label: L.OPTIONAL, type: T.STRING, jsonName: "key" },
              { name: "value", number: 2, label: L.OPTIONAL, type: T.MESSAGE, typeName: `.p.M${f.kind.target}`, jsonName: "value" },
            ],
          });
          break;
        }
        case "enum":
          base.type = T.ENUM;
          base.typeName = ".p.E";
          break;
      }
      if (f.kind.k === "optional") {
        base.proto3Optional = true;
        synthetic.push([base, `_${name}`]);
        syntheticCount++;
      } else if (f.oneof && canBeInOneof) {
        base.oneofIndex = 0;
      }
      fields.push(base);
    }
    // Synthetic oneofs follow the real one in the declaration.
    synthetic.forEach(([field, oneofName], k) => {
      field.oneofIndex = 1 + k;
      oneofs.push(oneofName);
    });
    void syntheticCount;
    const hasReal = fields.some((f) => f.oneofIndex === 0);
    if (!hasReal) {
      oneofs.shift();
      for (const f of fields) if (f.oneofIndex !== undefined) f.oneofIndex -= 1;
    }
    // Reserved numbers as single-number ranges in a layout-dependent order (end is exclusive).
    const reservedRange = layout.shuffle(m.reserved.length).map((k) => ({ start: m.reserved[k]!, end: m.reserved[k]! + 1 }));
    const order = layout.shuffle(fields.length);
    const msg: MessageInit = {
      name: `M${i}`,
      field: order.map((k) => fields[k]!),
      nestedType: nested,
      oneofDecl: oneofs.map((name) => ({ name })),
      reservedRange,
    };
    if (layout.options) msg.options = { deprecatedLegacyJsonFieldConflicts: false, noStandardDescriptorAccessor: false };
    return msg;
  });
  const file: FileInit = {
    name: layout.options ? "other/place.proto" : "p/schema.proto",
    package: "p",
    syntax: "proto3",
    messageType: layout.shuffle(messages.length).map((k) => messages[k]!),
    enumType: [{ name: "E", value: [{ name: "E_ZERO", number: 0 }, { name: "E_ONE", number: 1 }] }],
  };
  if (layout.options) file.options = { javaPackage: "com.example", goPackage: "example.com/p", optimizeFor: 2 };
  return file;
}

const identity: Layout = { shuffle: (n) => [...Array(n).keys()], explicitJson: false, options: false, entrySuffix: "Entry" };

describe("normalization v1 (property)", () => {
  test("layout, order, options and map entry names do not change the bytes; normalization is idempotent", () => {
    fc.assert(
      fc.property(schemaArb, fc.infiniteStream(fc.nat()), fc.boolean(), (schema, randoms, explicitJson) => {
        const shuffle = (n: number): number[] => {
          const a = [...Array(n).keys()];
          for (let i = n - 1; i > 0; i--) {
            const j = randoms.next().value % (i + 1);
            [a[i], a[j]] = [a[j]!, a[i]!];
          }
          return a;
        };
        const a = normalize(messageOf([emit(schema, identity)], "p.M0"));
        const b = normalize(messageOf([emit(schema, { shuffle, explicitJson, options: true, entrySuffix: "Pair" })], "p.M0"));
        expect(b).toEqual(a);
        expect(normalize(rebuildRoot(a, "p.M0"))).toEqual(a);
      }),
      { numRuns: 150 },
    );
  });
});
