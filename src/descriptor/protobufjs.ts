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
import { mapEntryName, protocJsonName, quoted, shortName } from "./names.js";
import { MAX_NESTING_DEPTH, nestingTooDeep } from "./closure.js";
import { groupIntoFiles } from "./file-groups.js";
import { invalid } from "./invalid.js";
import { RuleCode } from "./rules.js";
import { MAX_FIELD_NUMBER } from "../bytes.js";
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
  /** Set on the copy protobufjs adds to an extended type's fields: the extension it copies. */
  readonly declaringField?: PbField | null;
}
interface PbOneOf {
  readonly name: string;
  readonly options?: Options;
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

/** protoc's map key types: any scalar but floating point and bytes. */
const MAP_KEYS: ReadonlySet<string> = new Set([
  "int32",
  "int64",
  "uint32",
  "uint64",
  "sint32",
  "sint64",
  "fixed32",
  "fixed64",
  "sfixed32",
  "sfixed64",
  "bool",
  "string",
]);

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const isInt32 = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= INT32_MIN && (n as number) <= INT32_MAX;

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

/**
 * The edition of objects no namespace gives one: a Type built with `new Type()` and never added to
 * a Root (adding it sets "proto2", as a parsed proto2 file does). protobufjs encodes them as
 * proto2 (explicit presence, unpacked), so they are proto2 here too, with an error that says where
 * the syntax comes from: the file name in the generic one ("declared in proto2 file M.proto") is
 * made up.
 */
const NO_SYNTAX = "none";

/**
 * Names and editions of protobufjs objects, computed once per object for one lowering.
 * protobufjs's own `fullName` rebuilds the whole path on every read (an unshift per parent), and
 * the edition is found by climbing to the file's namespace, so both are memoized along the way
 * up: each object is climbed past once, however deep its package or nesting.
 */
class Names {
  readonly #full = new Map<PbObject, string>();
  readonly #edition = new Map<PbObject, string>();

  /** `acme.Order.Item` (protobufjs writes `.acme.Order.Item`; the root namespace is ""). */
  fullName(o: PbObject): string {
    return this.#up(o, this.#full, (t, parent) => (parent ? `${parent}.${t.name}` : t.name));
  }

  /** The edition of the file that declares `o`: NO_SYNTAX (proto2) unless a namespace says otherwise. */
  edition(o: PbObject): string {
    return this.#up(o, this.#edition, (t, parent) => t._edition || (parent ?? NO_SYNTAX));
  }

  /** `value(t, value of t.parent)` for `o`, filling the cache for every object climbed past. */
  #up(o: PbObject, cache: Map<PbObject, string>, value: (t: PbObject, parent: string | undefined) => string): string {
    const path: PbObject[] = [];
    let t: PbObject | null = o;
    let known: string | undefined;
    for (; t !== null; t = t.parent) {
      known = cache.get(t);
      if (known !== undefined) break;
      path.push(t);
    }
    for (let i = path.length - 1; i >= 0; i--) {
      const v = value(path[i]!, i === path.length - 1 && t === null ? undefined : known);
      cache.set(path[i]!, v);
      known = v;
    }
    return known!;
  }
}

/** The top-level type around `o`; past MAX_NESTING_DEPTH it throws NESTING_TOO_DEEP. */
function topOf(rootName: string, names: Names, o: PbObject): PbObject {
  let t: PbObject = o;
  let depth = 0;
  while (t.parent !== null && isType(t.parent)) {
    t = t.parent;
    if (++depth > MAX_NESTING_DEPTH) {
      for (let p: PbObject | null = t.parent; p !== null && isType(p); p = p.parent) depth++;
      throw nestingTooDeep(rootName, `${kindOf(o)} ${shortName(names.fullName(o))}`, depth);
    }
  }
  return t;
}

function kindOf(o: PbObject): string {
  return isEnum(o) ? "enum" : "message";
}

function packageOf(names: Names, top: PbObject): string {
  return top.parent === null ? "" : names.fullName(top.parent);
}

/** Lowers the protobufjs `Type` and every type it reaches into a registry and returns the root. */
export function lowerProtobufjsType(input: unknown): DescMessage {
  const type = input as PbType;
  const names = new Names();
  const rootName = names.fullName(type);
  const resolved = new Map<PbField, PbObject>();
  const tops = new Set<PbObject>();
  const edges = new Map<PbObject, Set<PbObject>>();
  const queue: PbObject[] = [];
  // Two protobufjs objects can carry one full name when a field was resolved against another
  // Root; one descriptor would then silently stand for both.
  const topByName = new Map<string, PbObject>();
  const reach = (o: PbObject, via?: string): PbObject => {
    const top = topOf(rootName, names, o);
    if (!tops.has(top)) {
      const name = names.fullName(top);
      if (topByName.has(name)) {
        throw invalid(
          rootName,
          "INPUT_INVALID",
          `two different protobufjs types are named ${shortName(name)} (${via} reaches the second); resolve every type against one Root`,
        );
      }
      topByName.set(name, top);
      tops.add(top);
      queue.push(top);
    }
    return top;
  };
  reach(type);
  // Nesting comes from the input: an explicit stack, and the depth limit of the closure walk
  // (checked here, before @bufbuild/protobuf's registry recurses over the nesting).
  const stack: Array<{ o: PbObject; depth: number }> = [];
  while (queue.length > 0) {
    const top = queue.pop()!;
    const out = new Set<PbObject>();
    edges.set(top, out);
    stack.push({ o: top, depth: 0 });
    while (stack.length > 0) {
      const { o, depth } = stack.pop()!;
      if (depth > MAX_NESTING_DEPTH) throw nestingTooDeep(rootName, `${kindOf(o)} ${shortName(names.fullName(o))}`, depth);
      checkFeatures(rootName, names, o);
      if (isEnum(o)) checkEnumNumbers(rootName, names, o);
      if (!isType(o)) continue;
      checkReservedNumbers(rootName, names, o);
      for (const oneof of o.oneofsArray) {
        // protobufjs hands a oneof's features to its members (a DELIMITED oneof's message is a group).
        const features = oneof.options?.features;
        if (features !== undefined) throw featuresRefused(rootName, `oneof ${oneof.name} of message ${shortName(names.fullName(o))}`, features);
      }
      for (const f of o.fieldsArray) {
        if (f.declaringField) {
          // The type's own declarations decide, as they do from a descriptor set (where an
          // extension lives only in its scope): an extension range is EXTENSION_RANGE_DECLARED, a
          // proto2 file SYNTAX_NOT_PROTO3. Only a JSON descriptor can extend a type without a range.
          if ((o.extensions ?? []).some((r) => typeof r !== "string")) continue;
          refuseProto2(rootName, names, o);
          throw invalid(
            rootName,
            RuleCode.EXTENSION_DECLARED,
            `message ${shortName(names.fullName(o))} is extended by ${shortName(names.fullName(f.declaringField))}; payload types cannot be extended, remove the extend block`,
          );
        }
        checkFeatures(rootName, names, f);
        checkJstype(rootName, names, o, f);
        if (f.map && !MAP_KEYS.has(f.keyType ?? "")) {
          throw invalid(
            rootName,
            "INPUT_INVALID",
            `field ${shortName(`${names.fullName(o)}.${fieldName(f)}`)} has map key type ${shortName(String(f.keyType))}; map keys are integer, bool or string types, use one of them`,
          );
        }
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
            `field ${names.fullName(o)}.${f.protoName ?? f.name} references type ${f.type}, which does not resolve; load the file that declares it into the same protobufjs Root`,
          );
        }
        resolved.set(f, target);
        out.add(reach(target, `field ${shortName(`${names.fullName(o)}.${fieldName(f)}`)}`));
      }
      for (const n of o.nestedArray) {
        const kind = n.constructor.className;
        if (kind === "Field" || kind === "MapField") {
          refuseProto2(rootName, names, o);
          throw invalid(
            rootName,
            RuleCode.EXTENSION_DECLARED,
            `message ${names.fullName(o)} declares extension ${names.fullName(n)}; payload types declare no extensions, move the extend block out of the message`,
          );
        }
        stack.push({ o: n, depth: depth + 1 });
      }
    }
  }

  const groups = groupIntoFiles(
    rootName,
    [...tops],
    (t) => names.fullName(t),
    (t) => packageOf(names, t),
    (t) => edges.get(t) ?? [],
  );
  const lower = new Lowering(names, resolved);
  const files = groups.map((g) => {
    const file = create(FileDescriptorProtoSchema, {
      name: g.name,
      dependency: [...g.dependencies],
      messageType: g.members.filter(isType).map((t) => lower.message(t)),
      enumType: g.members.filter(isEnum).map(enumProto),
    });
    const pkg = packageOf(names, g.members[0]!);
    if (pkg !== "") file.package = pkg;
    // A file has one syntax: when members came from files of different syntax, keep the one
    // the payload rules reject so that the violation is reported, not hidden.
    const edition = g.members.map((m) => names.edition(m)).find((e) => e !== "proto3") ?? "proto3";
    if (edition === NO_SYNTAX) {
      const first = g.members.find((m) => names.edition(m) === NO_SYNTAX)!;
      throw invalid(
        rootName,
        RuleCode.SYNTAX_NOT_PROTO3,
        `${kindOf(first)} ${shortName(names.fullName(first))} is a protobufjs object outside any Root and without a syntax (built with new Type()), which protobufjs encodes as proto2; payload types must be proto3: load them from proto3 source (protobuf.parse, load) or from JSON descriptors (Root.fromJSON)`,
      );
    }
    if (edition === "proto3" || edition === "proto2") {
      file.syntax = edition;
    } else {
      const value = EDITIONS[edition];
      if (value === undefined) {
        throw invalid(
          rootName,
          RuleCode.EDITIONS_NOT_SUPPORTED,
          `${names.fullName(g.members[0]!)} is declared with edition ${edition}; editions are not supported, declare it in a proto3 file (syntax = "proto3")`,
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

// protobufjs keeps any number a JSON descriptor holds; DescriptorProto holds 32-bit integers, and
// its encoder throws a plain Error on anything else.
function checkEnumNumbers(rootName: string, names: Names, e: PbEnum): void {
  for (const [name, number] of Object.entries(e.values)) {
    if (isInt32(number)) continue;
    throw invalid(
      rootName,
      "INPUT_INVALID",
      `enum ${shortName(names.fullName(e))} value ${shortName(name)} is ${number}, not an integer in ${INT32_MIN}..${INT32_MAX}; give it a 32-bit integer value`,
    );
  }
  for (const r of e.reserved ?? []) {
    if (typeof r === "string" || (isInt32(r[0]) && isInt32(r[1]))) continue;
    throw invalid(
      rootName,
      "INPUT_INVALID",
      `enum ${shortName(names.fullName(e))} reserves ${r[0]} to ${r[1]}, which a descriptor cannot hold; reserve enum numbers in ${INT32_MIN}..${INT32_MAX} (max)`,
    );
  }
}

/** EDITIONS_NOT_SUPPORTED for `what` (a field, message, enum or oneof) setting editions `features`. */
function featuresRefused(rootName: string, what: string, features: unknown): Error {
  const list = Object.keys(features as object).map((k) => `features.${k}`).join(", ") || "features";
  return invalid(
    rootName,
    RuleCode.EDITIONS_NOT_SUPPORTED,
    `${what} sets editions features (${list}), which proto3 does not have (protoc and buf refuse them; protobufjs encodes by them); remove them, payload types are plain proto3`,
  );
}

/**
 * protobufjs reads editions `features` options in a proto3 file (protoc and buf refuse them) and
 * encodes by them (a DELIMITED message as a group, EXPANDED lists unpacked, EXPLICIT presence), and
 * a JSON descriptor may give one field or type an edition of its own: such a type was lowered as
 * plain proto3, so each library misread the other's bytes (protobufjs dropped a nested message).
 */
function checkFeatures(rootName: string, names: Names, o: PbObject): void {
  const features = o.options?.features;
  const edition = o._edition;
  // A top-level declaration's edition is its file's (checked with the file: SYNTAX_NOT_PROTO3,
  // EDITIONS_NOT_SUPPORTED); a field or nested declaration may differ from its type's.
  const parent = o.parent;
  const own = edition !== undefined && edition !== null && parent !== null && isType(parent) && edition !== names.edition(parent);
  if (features === undefined && !own) return;
  const kind = o.constructor.className;
  const what = `${kind === "Field" || kind === "MapField" ? "field" : kindOf(o)} ${shortName(names.fullName(o))}`;
  if (features !== undefined) throw featuresRefused(rootName, what, features);
  throw invalid(
    rootName,
    RuleCode.EDITIONS_NOT_SUPPORTED,
    `${what} is declared with edition ${String(edition)} of its own; payload types must be proto3 throughout, declare it in the proto3 file (syntax = "proto3") without an edition`,
  );
}

/**
 * protobufjs keeps whatever a `jstype` option holds; only "JS_STRING" and "JS_NUMBER" were read,
 * and anything else ("JS_BOGUS", "js_number", 1 and 2 from setOption or JSON) was dropped
 * silently: a jstype the enum does not declare is JSTYPE_INVALID, as from the other inputs.
 */
function checkJstype(rootName: string, names: Names, t: PbType, f: PbField): void {
  const jstype = f.options?.jstype;
  if (jstype === undefined || jstypeOf(jstype) !== undefined) return;
  throw invalid(
    rootName,
    RuleCode.JSTYPE_INVALID,
    `field ${shortName(`${names.fullName(t)}.${fieldName(f)}`)} has jstype = ${typeof jstype === "string" ? quoted(jstype) : typeof jstype === "number" ? String(jstype) : (JSON.stringify(jstype) ?? String(jstype))}, which google.protobuf.FieldOptions.JSType does not declare (JS_NORMAL, JS_STRING, JS_NUMBER); use one of those names or remove the option`,
  );
}

/** The JSType a protobufjs jstype option holds: one of the enum's names or numbers, else undefined. */
function jstypeOf(v: unknown): FieldOptions_JSType | undefined {
  return typeof v === "string" || typeof v === "number" ? JSTYPES[String(v)] : undefined;
}

/** protobufjs' jstype option values: the enum's names (as .proto text gives them) or its numbers (JSON). */
const JSTYPES: Readonly<Record<string, FieldOptions_JSType>> = {
  JS_NORMAL: FieldOptions_JSType.JS_NORMAL,
  JS_STRING: FieldOptions_JSType.JS_STRING,
  JS_NUMBER: FieldOptions_JSType.JS_NUMBER,
  "0": FieldOptions_JSType.JS_NORMAL,
  "1": FieldOptions_JSType.JS_STRING,
  "2": FieldOptions_JSType.JS_NUMBER,
};

function checkReservedNumbers(rootName: string, names: Names, t: PbType): void {
  for (const r of t.reserved ?? []) {
    // The end is stored exclusive, so the inclusive end must stay below INT32_MAX.
    if (typeof r === "string" || (isInt32(r[0]) && isInt32(r[1]) && r[1] < INT32_MAX)) continue;
    throw invalid(
      rootName,
      "INPUT_INVALID",
      `message ${shortName(names.fullName(t))} reserves ${r[0]} to ${r[1]}, which a descriptor cannot hold; reserve field numbers in 1..${MAX_FIELD_NUMBER} (max)`,
    );
  }
}

/** DescriptorProtos of protobufjs types, with the names and resolved field types of one lowering. */
class Lowering {
  constructor(
    private readonly names: Names,
    private readonly resolved: ReadonlyMap<PbField, PbObject>,
  ) {}

  /** A top-level type with its nested types, from an explicit stack (nesting comes from the input). */
  message(top: PbType): DescriptorProto {
    const first = this.own(top);
    const work: Array<{ t: PbType; proto: DescriptorProto; entries: DescriptorProto[] }> = [{ t: top, ...first }];
    while (work.length > 0) {
      const { t, proto, entries } = work.pop()!;
      for (const n of t.nestedArray) {
        if (isType(n)) {
          const child = this.own(n);
          proto.nestedType.push(child.proto);
          work.push({ t: n, ...child });
        } else if (isEnum(n)) {
          proto.enumType.push(enumProto(n));
        }
      }
      for (const e of entries) proto.nestedType.push(e);
    }
    return first.proto;
  }

  /** One type without its nested declarations, and the map entries its map fields need. */
  own(t: PbType): { proto: DescriptorProto; entries: DescriptorProto[] } {
    const oneofIndex = new Map<PbOneOf, number>();
    t.oneofsArray.forEach((o, i) => oneofIndex.set(o, i));
    const entries: DescriptorProto[] = [];
    const fields = t.fieldsArray.filter((f) => !f.declaringField).map((f) => {
      const target = this.resolved.get(f);
      const fp = fieldProto(this.names.fullName(t), f, target === undefined ? undefined : this.names.fullName(target), target);
      if (f.map) entries.push(mapEntryProto(f, target === undefined ? undefined : this.names.fullName(target), target));
      if (f.partOf !== null) {
        const idx = oneofIndex.get(f.partOf);
        if (idx !== undefined) fp.oneofIndex = idx;
      }
      return fp;
    });
    const out = create(DescriptorProtoSchema, {
      name: t.name,
      field: fields,
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
    return { proto: out, entries };
  }
}

function typeOf(target: PbObject): FieldType {
  if (isEnum(target)) return FieldType.ENUM;
  return (target as PbType).group === true ? FieldType.GROUP : FieldType.MESSAGE;
}

function fieldProto(parentName: string, f: PbField, targetName: string | undefined, target: PbObject | undefined): FieldDescriptorProto {
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
    out.typeName = `.${parentName}.${mapEntryName(name)}`;
  } else if (target !== undefined) {
    out.type = typeOf(target);
    out.typeName = `.${targetName}`;
  } else {
    out.type = SCALARS[f.type]!;
  }
  // protobufjs gives presence by oneof membership; the option alone (a JSON descriptor without the
  // synthetic oneof) leaves the field implicit when protobufjs encodes it.
  if (opts?.proto3_optional === true && f.partOf !== null) out.proto3Optional = true;
  if (opts?.default !== undefined) out.defaultValue = String(opts.default);
  const options: { packed?: boolean; jstype?: FieldOptions_JSType; deprecated?: boolean } = {};
  if (opts?.packed === false) options.packed = false;
  if (opts?.packed === true) options.packed = true;
  const jstype = jstypeOf(opts?.jstype);
  if (jstype === FieldOptions_JSType.JS_STRING || jstype === FieldOptions_JSType.JS_NUMBER) options.jstype = jstype;
  if (opts?.deprecated === true) options.deprecated = true;
  if (Object.keys(options).length > 0) out.options = create(FieldOptionsSchema, options);
  return out;
}

function mapEntryProto(f: PbField, targetName: string | undefined, target: PbObject | undefined): DescriptorProto {
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
    value.typeName = `.${targetName}`;
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

/**
 * SYNTAX_NOT_PROTO3 for a message of a proto2 file, before another of its faults (an extension)
 * is reported: the reason a FileDescriptorSet or DescMessage of the same schema gives first (the
 * input forms named different codes for one schema).
 */
function refuseProto2(rootName: string, names: Names, o: PbObject): void {
  if (names.edition(o) !== "proto2") return;
  throw invalid(
    rootName,
    RuleCode.SYNTAX_NOT_PROTO3,
    `${kindOf(o)} ${shortName(names.fullName(o))} is declared in a proto2 file; payload types must be declared in a proto3 file (syntax = "proto3")`,
  );
}
