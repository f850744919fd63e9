// Lowers a protobufjs `Type` (protobufjs >= 8.8) into FileDescriptorProtos by hand. protobufjs is
// never imported: its objects are recognised by shape (`constructor.className`), so a bundle for
// workerd never pulls in its run-time code generation (Function constructor). `toDescriptor` from
// protobufjs/ext/descriptor is not used: it writes relative type names, wrong map entry names and
// no dependencies.
import { create, createFileRegistry, type DescMessage } from "@bufbuild/protobuf";
import {
  DescriptorProto_ExtensionRangeSchema,
  DescriptorProto_ReservedRangeSchema,
  DescriptorProtoSchema,
  Edition,
  EnumDescriptorProto_EnumReservedRangeSchema,
  EnumDescriptorProtoSchema,
  EnumOptionsSchema,
  EnumValueDescriptorProtoSchema,
  EnumValueOptionsSchema,
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as FieldType,
  FieldDescriptorProtoSchema,
  FieldOptions_JSType,
  FieldOptionsSchema,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  MessageOptionsSchema,
  OneofDescriptorProtoSchema,
  type DescriptorProto,
  type EnumDescriptorProto,
  type FieldDescriptorProto,
} from "@bufbuild/protobuf/wkt";
import { mapEntryName, protocJsonName } from "./names.js";
import { groupIntoFiles } from "./normalize.js";
import { invalid, RuleCode } from "./rules.js";
import { reason } from "./rebuild.js";

type Options = Record<string, unknown> | undefined;

/** The parts of protobufjs reflection objects this module reads. */
interface PbObject {
  readonly name: string;
  readonly fullName: string;
  readonly parent: PbObject | null;
  readonly options?: Options;
  readonly _edition?: string | null;
  readonly constructor: { readonly className?: string };
}
interface PbType extends PbObject {
  readonly fieldsArray: readonly PbField[];
  readonly oneofsArray: readonly PbOneOf[];
  readonly nestedArray: readonly PbObject[];
  readonly extensions?: ReadonlyArray<readonly [number, number] | string>;
  readonly reserved?: ReadonlyArray<readonly [number, number] | string>;
  readonly group?: boolean;
  lookupTypeOrEnum(path: string): PbObject;
}
interface PbEnum extends PbObject {
  readonly values: Readonly<Record<string, number>>;
  readonly valuesOptions?: Readonly<Record<string, Options>>;
  readonly reserved?: ReadonlyArray<readonly [number, number] | string>;
}
interface PbField extends PbObject {
  readonly id: number;
  readonly type: string;
  readonly rule?: string;
  readonly repeated: boolean;
  readonly map: boolean;
  readonly keyType?: string;
  readonly partOf: PbOneOf | null;
  readonly protoName?: string;
  readonly jsonName?: string;
  readonly resolvedType: PbObject | null;
}
interface PbOneOf {
  readonly name: string;
}

const SCALARS: Readonly<Record<string, FieldType>> = {
  double: FieldType.DOUBLE,
  float: FieldType.FLOAT,
  int64: FieldType.INT64,
  uint64: FieldType.UINT64,
  int32: FieldType.INT32,
  fixed64: FieldType.FIXED64,
  fixed32: FieldType.FIXED32,
  bool: FieldType.BOOL,
  string: FieldType.STRING,
  bytes: FieldType.BYTES,
  uint32: FieldType.UINT32,
  sfixed32: FieldType.SFIXED32,
  sfixed64: FieldType.SFIXED64,
  sint32: FieldType.SINT32,
  sint64: FieldType.SINT64,
};

const EDITIONS: Readonly<Record<string, Edition>> = {
  "2023": Edition.EDITION_2023,
  "2024": Edition.EDITION_2024,
  "2026": Edition.EDITION_2026,
};

export function protobufjsClassName(x: unknown): string | undefined {
  if (x === null || typeof x !== "object") return undefined;
  const name = (x as { constructor?: { className?: unknown } }).constructor?.className;
  return typeof name === "string" ? name : undefined;
}

export function isProtobufjsType(x: unknown): boolean {
  return (
    protobufjsClassName(x) === "Type" &&
    typeof (x as PbType).fullName === "string" &&
    Array.isArray((x as PbType).fieldsArray)
  );
}

const isType = (o: PbObject): o is PbType => o.constructor.className === "Type";
const isEnum = (o: PbObject): o is PbEnum => o.constructor.className === "Enum";
const dotless = (fullName: string): string => (fullName.startsWith(".") ? fullName.slice(1) : fullName);

function topOf(o: PbObject): PbObject {
  let t = o;
  while (t.parent !== null && isType(t.parent)) t = t.parent;
  return t;
}

function packageOf(top: PbObject): string {
  return top.parent === null ? "" : dotless(top.parent.fullName);
}

function editionOf(o: PbObject): string {
  for (let t: PbObject | null = o; t !== null; t = t.parent) {
    if (t._edition) return t._edition;
  }
  return "proto2";
}

/** Lowers the protobufjs `Type` and every type it reaches into a registry and returns the root. */
export function lowerProtobufjsType(input: unknown): DescMessage {
  const type = input as PbType;
  const rootName = dotless(type.fullName);
  const resolved = new Map<PbField, PbObject>();
  const tops = new Set<PbObject>();
  const edges = new Map<PbObject, Set<PbObject>>();
  const queue: PbObject[] = [];
  const reach = (o: PbObject): PbObject => {
    const top = topOf(o);
    if (!tops.has(top)) {
      tops.add(top);
      queue.push(top);
    }
    return top;
  };
  reach(type);
  while (queue.length > 0) {
    const top = queue.pop()!;
    const out = new Set<PbObject>();
    edges.set(top, out);
    const walk = (o: PbObject): void => {
      if (!isType(o)) return;
      for (const f of o.fieldsArray) {
        if (SCALARS[f.type] !== undefined) continue;
        let target = f.resolvedType;
        if (target === null) {
          try {
            target = o.lookupTypeOrEnum(f.type);
          } catch {
            target = null;
          }
        }
        if (target === null || !(isType(target) || isEnum(target))) {
          throw invalid(
            rootName,
            "UNRESOLVED_TYPE",
            `field ${dotless(o.fullName)}.${f.protoName ?? f.name} references type ${f.type}, which does not resolve; load the file that declares it into the same protobufjs Root`,
          );
        }
        resolved.set(f, target);
        out.add(reach(target));
      }
      for (const n of o.nestedArray) {
        const kind = n.constructor.className;
        if (kind === "Field" || kind === "MapField") {
          throw invalid(
            rootName,
            RuleCode.EXTENSION_DECLARED,
            `message ${dotless(o.fullName)} declares extension ${dotless(n.fullName)}; payload types declare no extensions, move the extend block out of the message`,
          );
        }
        walk(n);
      }
    };
    walk(top);
  }

  const groups = groupIntoFiles(
    rootName,
    [...tops],
    (t) => dotless(t.fullName),
    packageOf,
    (t) => edges.get(t) ?? [],
  );
  const files = groups.map((g) => {
    const file = create(FileDescriptorProtoSchema, {
      name: g.name,
      dependency: [...g.dependencies],
      messageType: g.members.filter(isType).map((t) => messageProto(t, resolved)),
      enumType: g.members.filter(isEnum).map(enumProto),
    });
    const pkg = packageOf(g.members[0]!);
    if (pkg !== "") file.package = pkg;
    // A file has one syntax: when members came from files of different syntax, keep the one
    // the payload rules reject so that the violation is reported, not hidden.
    const editions = g.members.map(editionOf);
    const edition = editions.find((e) => e !== "proto3") ?? "proto3";
    if (edition === "proto3" || edition === "proto2") {
      file.syntax = edition;
    } else {
      const value = EDITIONS[edition];
      if (value === undefined) {
        throw invalid(
          rootName,
          RuleCode.EDITIONS_NOT_SUPPORTED,
          `${dotless(g.members[0]!.fullName)} is declared with edition ${edition}; editions are not supported, declare it in a proto3 file (syntax = "proto3")`,
        );
      }
      file.syntax = "editions";
      file.edition = value;
    }
    return file;
  });
  let root: DescMessage | undefined;
  try {
    root = createFileRegistry(create(FileDescriptorSetSchema, { file: files })).getMessage(rootName);
  } catch (e) {
    throw invalid(rootName, "INPUT_INVALID", `the protobufjs type does not convert to descriptors (${reason(e)})`);
  }
  if (root === undefined) {
    throw invalid(rootName, "INPUT_INVALID", `the protobufjs type does not convert to descriptors`);
  }
  return root;
}

function fieldName(f: PbField): string {
  return f.protoName ?? f.name;
}

function messageProto(t: PbType, resolved: ReadonlyMap<PbField, PbObject>): DescriptorProto {
  const oneofIndex = new Map<PbOneOf, number>();
  t.oneofsArray.forEach((o, i) => oneofIndex.set(o, i));
  const nested: DescriptorProto[] = [];
  const enums: EnumDescriptorProto[] = [];
  for (const n of t.nestedArray) {
    if (isType(n)) nested.push(messageProto(n, resolved));
    else if (isEnum(n)) enums.push(enumProto(n));
  }
  const fields = t.fieldsArray.map((f) => {
    const fp = fieldProto(t, f, resolved.get(f));
    if (f.map) nested.push(mapEntryProto(f, resolved.get(f)));
    if (f.partOf !== null) {
      const idx = oneofIndex.get(f.partOf);
      if (idx !== undefined) fp.oneofIndex = idx;
    }
    return fp;
  });
  const out = create(DescriptorProtoSchema, {
    name: t.name,
    field: fields,
    nestedType: nested,
    enumType: enums,
    oneofDecl: t.oneofsArray.map((o) => create(OneofDescriptorProtoSchema, { name: o.name })),
  });
  for (const r of t.extensions ?? []) {
    if (typeof r !== "string") out.extensionRange.push(create(DescriptorProto_ExtensionRangeSchema, { start: r[0], end: r[1] + 1 }));
  }
  for (const r of t.reserved ?? []) {
    // protobufjs ranges are inclusive; DescriptorProto's end is exclusive.
    if (typeof r === "string") out.reservedName.push(r);
    else out.reservedRange.push(create(DescriptorProto_ReservedRangeSchema, { start: r[0], end: r[1] + 1 }));
  }
  if (t.options?.deprecated === true) out.options = create(MessageOptionsSchema, { deprecated: true });
  return out;
}

function typeOf(target: PbObject): FieldType {
  if (isEnum(target)) return FieldType.ENUM;
  return (target as PbType).group === true ? FieldType.GROUP : FieldType.MESSAGE;
}

function fieldProto(parent: PbType, f: PbField, target: PbObject | undefined): FieldDescriptorProto {
  const name = fieldName(f);
  const opts = f.options;
  const explicitJson = f.jsonName ?? (typeof opts?.json_name === "string" ? opts.json_name : undefined);
  const out = create(FieldDescriptorProtoSchema, {
    name,
    number: f.id,
    label: f.map || f.repeated ? Label.REPEATED : f.rule === "required" ? Label.REQUIRED : Label.OPTIONAL,
    jsonName: explicitJson ?? protocJsonName(name),
  });
  if (f.map) {
    out.type = FieldType.MESSAGE;
    out.typeName = `${parent.fullName}.${mapEntryName(name)}`;
  } else if (target !== undefined) {
    out.type = typeOf(target);
    out.typeName = target.fullName;
  } else {
    out.type = SCALARS[f.type]!;
  }
  if (opts?.proto3_optional === true) out.proto3Optional = true;
  if (opts?.default !== undefined) out.defaultValue = String(opts.default);
  const options: { packed?: boolean; jstype?: FieldOptions_JSType; deprecated?: boolean } = {};
  if (opts?.packed === false) options.packed = false;
  if (opts?.packed === true) options.packed = true;
  const jstype = opts?.jstype;
  if (jstype === "JS_STRING") options.jstype = FieldOptions_JSType.JS_STRING;
  else if (jstype === "JS_NUMBER") options.jstype = FieldOptions_JSType.JS_NUMBER;
  if (opts?.deprecated === true) options.deprecated = true;
  if (Object.keys(options).length > 0) out.options = create(FieldOptionsSchema, options);
  return out;
}

function mapEntryProto(f: PbField, target: PbObject | undefined): DescriptorProto {
  const key = create(FieldDescriptorProtoSchema, {
    name: "key",
    number: 1,
    label: Label.OPTIONAL,
    type: SCALARS[f.keyType ?? ""] ?? FieldType.STRING,
    jsonName: "key",
  });
  const value = create(FieldDescriptorProtoSchema, { name: "value", number: 2, label: Label.OPTIONAL, jsonName: "value" });
  if (target !== undefined) {
    value.type = typeOf(target);
    value.typeName = target.fullName;
  } else {
    value.type = SCALARS[f.type]!;
  }
  return create(DescriptorProtoSchema, {
    name: mapEntryName(fieldName(f)),
    field: [key, value],
    options: create(MessageOptionsSchema, { mapEntry: true }),
  });
}

function enumProto(e: PbEnum): EnumDescriptorProto {
  const out = create(EnumDescriptorProtoSchema, { name: e.name });
  for (const [name, number] of Object.entries(e.values)) {
    const v = create(EnumValueDescriptorProtoSchema, { name, number });
    if (e.valuesOptions?.[name]?.deprecated === true) v.options = create(EnumValueOptionsSchema, { deprecated: true });
    out.value.push(v);
  }
  for (const r of e.reserved ?? []) {
    // Enum reserved ranges are inclusive in both protobufjs and EnumDescriptorProto.
    if (typeof r === "string") out.reservedName.push(r);
    else out.reservedRange.push(create(EnumDescriptorProto_EnumReservedRangeSchema, { start: r[0], end: r[1] }));
  }
  const options: { allowAlias?: boolean; deprecated?: boolean } = {};
  if (e.options?.allow_alias === true) options.allowAlias = true;
  if (e.options?.deprecated === true) options.deprecated = true;
  if (Object.keys(options).length > 0) out.options = create(EnumOptionsSchema, options);
  return out;
}
