// Payload rules (docs/design.md §4.2). Neither protobufjs nor @bufbuild/protobuf enforces them: both accept
// a field number above 2^29-1 and then write a corrupt tag, so every input path checks them here.
import { isFieldSet, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import {
  Edition,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FieldDescriptorProtoSchema,
  FieldOptions_JSType,
  type DescriptorProto,
  type FieldDescriptorProto,
} from "@bufbuild/protobuf/wkt";
import { collectClosure, type Closure, type Decl } from "./closure.js";
import { invalid } from "./invalid.js";
import { is64 } from "./long-form.js";
import { jsonNameOf, mapEntryName, protocJsonName, quoted, utf8Length } from "./names.js";
import { rangeHolding, reservedRangesOf } from "./normalize.js";
import { MAX_FIELD_NUMBER } from "../bytes.js";

/** Field numbers protobuf reserves for its own implementation. */
export const RESERVED_FIELD_NUMBERS = { from: 19_000, to: 19_999 } as const;
/** Snapshot and transfer forms store the root name with a u16 length. */
export const MAX_ROOT_NAME_BYTES = 65_535;

/** Stable codes of the payload rules, one per rule (README "Descriptors" lists them). */
export const RuleCode = {
  ROOT_NAME_TOO_LONG: "ROOT_NAME_TOO_LONG",
  SYNTAX_NOT_PROTO3: "SYNTAX_NOT_PROTO3",
  EDITIONS_NOT_SUPPORTED: "EDITIONS_NOT_SUPPORTED",
  EXTENSION_RANGE_DECLARED: "EXTENSION_RANGE_DECLARED",
  EXTENSION_DECLARED: "EXTENSION_DECLARED",
  GROUP_FIELD: "GROUP_FIELD",
  REQUIRED_FIELD: "REQUIRED_FIELD",
  EXPLICIT_DEFAULT: "EXPLICIT_DEFAULT",
  FIELD_NUMBER_TOO_SMALL: "FIELD_NUMBER_TOO_SMALL",
  FIELD_NUMBER_TOO_LARGE: "FIELD_NUMBER_TOO_LARGE",
  FIELD_NUMBER_RESERVED: "FIELD_NUMBER_RESERVED",
  FIELD_NUMBER_DUPLICATE: "FIELD_NUMBER_DUPLICATE",
  FIELD_NAME_DUPLICATE: "FIELD_NAME_DUPLICATE",
  JSON_NAME_CONFLICT: "JSON_NAME_CONFLICT",
  ENUM_FIRST_VALUE_NOT_ZERO: "ENUM_FIRST_VALUE_NOT_ZERO",
  ENUM_ALIAS_NOT_ALLOWED: "ENUM_ALIAS_NOT_ALLOWED",
  PACKAGE_NAME_INVALID: "PACKAGE_NAME_INVALID",
  FIELD_NAME_RESERVED: "FIELD_NAME_RESERVED",
  ENUM_VALUE_RESERVED: "ENUM_VALUE_RESERVED",
  RESERVED_RANGE_INVALID: "RESERVED_RANGE_INVALID",
  NAME_CONFLICT: "NAME_CONFLICT",
  ONEOF_INVALID: "ONEOF_INVALID",
  FIELD_TYPE_INVALID: "FIELD_TYPE_INVALID",
  JSTYPE_INVALID: "JSTYPE_INVALID",
  MAP_ENTRY_INVALID: "MAP_ENTRY_INVALID",
} as const;

/**
 * protoc's package grammar: identifiers (letters, digits and _, not starting with a digit) joined
 * by dots. A scan, not a regular expression: one compiled with little stack left throws a
 * SyntaxError of its own (test/adversarial/low-stack-no-regexp.test.ts).
 */
export function isPackageName(pkg: string): boolean {
  let start = true;
  for (let i = 0; i < pkg.length; i++) {
    const c = pkg.charCodeAt(i);
    if (c === 46) {
      if (start) return false;
      start = true;
      continue;
    }
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    if (!letter && (start || c < 48 || c > 57)) return false;
    start = false;
  }
  return !start;
}

/**
 * Checks rules 1–6 of docs/design.md §4.2 on every type of the root's closure and throws the first
 * violation as an `InvalidDescriptorError`. Rules 7–8 (size and rebuild of the normalized set)
 * are checked by `normalize` and `rebuildRoot`.
 */
export function checkPayloadRules(root: DescMessage): void {
  checkRootName(root.typeName);
  checkClosure(collectClosure(root));
}

export function checkRootName(fullName: string): void {
  const bytes = utf8Length(fullName);
  if (bytes > MAX_ROOT_NAME_BYTES) {
    throw invalid(
      fullName,
      RuleCode.ROOT_NAME_TOO_LONG,
      `the root full name is ${bytes} UTF-8 bytes, above ${MAX_ROOT_NAME_BYTES}; use a shorter package or message name`,
    );
  }
}

/** Checks rules 1–5 on an already collected closure (normalization shares the walk). */
export function checkClosure(closure: Closure): void {
  const root = closure.root.typeName;
  const files = new Set<unknown>();
  // Nearest first (breadth-first from the root's own): the error names the first type of a file
  // in the wrong syntax that the root reaches. In name order, a proto2 root in a cycle of proto2
  // types was refused naming another of them (FileDescriptorSet as "DescriptorProto is declared
  // in proto2 file …"), and a proto3 root reaching descriptor.proto named a type four steps in.
  let own: Decl = closure.root;
  while (own.parent !== undefined) own = own.parent;
  const order: Decl[] = [own];
  const seen = new Set<Decl>(order);
  for (let i = 0; i < order.length; i++) {
    for (const next of closure.edges.get(order[i]!) ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      order.push(next);
    }
  }
  for (const top of closure.tops) if (!seen.has(top)) order.push(top);
  for (const top of order) {
    if (files.has(top.file)) continue;
    files.add(top.file);
    // The root's own file names the root (a nested root too: p.Outer.In, not p.Outer).
    checkSyntax(root, top === own ? closure.root : top, () => reachedVia(closure, top));
    checkPackage(root, top);
  }
  for (const m of closure.messages) checkMessage(root, m);
  for (const e of closure.enums) checkEnum(root, e);
}

/**
 * Checks rule 5a (what protoc's DescriptorBuilder enforces) on a closure given to construction:
 * a schema entering protokeel. A type rebuilt from its own normalized set (snapshot restore, the
 * transfer form), the evaluator and write acceptance check rules 1–5 only, so that a type
 * accepted before 5a existed (protobufjs accepts several of these, e.g. jstype on an int32 field,
 * or two enums of one package sharing a value name) still restores and reads its saved data.
 */
export function checkProtocRules(closure: Closure): void {
  const root = closure.root.typeName;
  for (const m of closure.messages) {
    checkReserved(root, m);
    for (const f of m.fields) checkFieldType(root, m, f);
    checkOneofs(root, m);
    checkMapEntries(root, m);
    checkJsonNamesCross(root, m);
  }
  for (const e of closure.enums) checkEnumReserved(root, e);
  checkScopes(root, closure);
}

function what(d: Decl): string {
  return `${d.kind === "message" ? "message" : "enum"} ${d.typeName}`;
}

/**
 * How the root's closure reaches top-level declaration `top`, for an error about it: "" when it is
 * the root's own, else the chain of top-level declarations from the root's. A nested root (z.Outer.Inner) brings
 * every type its top-level message declares or names: a proto2 type named by a sibling of the root
 * was refused without saying how the root reached it.
 */
function reachedVia(closure: Closure, top: Decl): string {
  let from: Decl = closure.root;
  while (from.parent !== undefined) from = from.parent;
  if (from === top) return "";
  const back = new Map<Decl, Decl>([[from, from]]);
  const queue: Decl[] = [from];
  for (let i = 0; i < queue.length && !back.has(top); i++) {
    for (const next of closure.edges.get(queue[i]!) ?? []) {
      if (back.has(next)) continue;
      back.set(next, queue[i]!);
      queue.push(next);
    }
  }
  if (!back.has(top)) return "";
  const chain: string[] = [];
  for (let d = top; d !== from; d = back.get(d)!) chain.push(d.typeName);
  chain.push(from.typeName);
  const own = from === closure.root ? "" : ` (the top-level message of ${closure.root.typeName}, whose payload holds every type it declares or names)`;
  return `, reached as ${chain.reverse().join(" → ")}${own}`;
}

function checkSyntax(root: string, top: Decl, how: () => string): void {
  const file = top.file;
  if (file.edition === Edition.EDITION_PROTO3) return;
  if (file.edition === Edition.EDITION_PROTO2) {
    throw invalid(
      root,
      RuleCode.SYNTAX_NOT_PROTO3,
      `${what(top)} is declared in proto2 file ${file.proto.name}${how()}; payload types must be declared in a proto3 file (syntax = "proto3")`,
    );
  }
  throw invalid(
    root,
    RuleCode.EDITIONS_NOT_SUPPORTED,
    `${what(top)} is declared in file ${file.proto.name} with ${editionName(file.edition)}${how()}; editions are not supported, declare it in a proto3 file (syntax = "proto3")`,
  );
}

// @bufbuild/protobuf checks the names of types, fields and enum values, not the package: a
// package that holds other text ("acme;\nmessage X {}") became part of every type name, and of
// the .proto text printed from the schema (a registry's schema, `protokeel inspect`), where it
// declared types the schema does not have.
function checkPackage(root: string, top: Decl): void {
  const pkg = top.file.proto.package;
  if (pkg === "" || isPackageName(pkg)) return;
  throw invalid(
    root,
    RuleCode.PACKAGE_NAME_INVALID,
    `file ${quoted(top.file.proto.name)} declares package ${quoted(pkg)}, which is not identifiers joined by dots (letters, digits and _, not starting with a digit); use a package name protoc accepts`,
  );
}

function withoutPrefix(s: string, prefix: string): string {
  return s.startsWith(prefix) ? s.slice(prefix.length) : s;
}

function editionName(e: number): string {
  const name = Edition[e];
  return name === undefined ? `edition ${e}` : `edition ${withoutPrefix(name, "EDITION_").toLowerCase()}`;
}

function checkMessage(root: string, m: DescMessage): void {
  const proto = m.proto;
  const range = proto.extensionRange[0];
  if (range !== undefined) {
    throw invalid(
      root,
      RuleCode.EXTENSION_RANGE_DECLARED,
      `message ${m.typeName} declares extension range ${range.start}..${range.end - 1}; payload types cannot be extended, remove the extensions statement`,
    );
  }
  const ext = m.nestedExtensions[0];
  if (ext !== undefined) {
    throw invalid(
      root,
      RuleCode.EXTENSION_DECLARED,
      `message ${m.typeName} declares extension ${ext.typeName}; payload types declare no extensions, move the extend block out of the message`,
    );
  }
  const byNumber = new Map<number, string>();
  const byName = new Map<string, number>();
  const byJson = new Map<string, string>();
  for (const f of m.fields) {
    const fp = f.proto;
    const name = `${m.typeName}.${f.name}`;
    if (fp.type === FieldDescriptorProto_Type.GROUP) {
      throw invalid(root, RuleCode.GROUP_FIELD, `field ${name} is a group; groups are not supported, use a message field`);
    }
    if (fp.label === FieldDescriptorProto_Label.REQUIRED) {
      throw invalid(root, RuleCode.REQUIRED_FIELD, `field ${name} is required; required fields are not supported, remove the label`);
    }
    if (isFieldSet(fp, FieldDescriptorProtoSchema.field.defaultValue)) {
      throw invalid(
        root,
        RuleCode.EXPLICIT_DEFAULT,
        `field ${name} declares default ${quoted(fp.defaultValue)}; proto3 fields have no explicit defaults, remove the default option`,
      );
    }
    const n = f.number;
    if (n < 1) {
      throw invalid(root, RuleCode.FIELD_NUMBER_TOO_SMALL, `field ${name} has number ${n} below 1; use a number in 1..${MAX_FIELD_NUMBER}`);
    }
    if (n > MAX_FIELD_NUMBER) {
      throw invalid(
        root,
        RuleCode.FIELD_NUMBER_TOO_LARGE,
        `field ${name} has number ${n} above ${MAX_FIELD_NUMBER}; use a number in 1..${MAX_FIELD_NUMBER}`,
      );
    }
    if (n >= RESERVED_FIELD_NUMBERS.from && n <= RESERVED_FIELD_NUMBERS.to) {
      throw invalid(
        root,
        RuleCode.FIELD_NUMBER_RESERVED,
        `field ${name} has number ${n} in ${RESERVED_FIELD_NUMBERS.from}..${RESERVED_FIELD_NUMBERS.to}, which protobuf reserves for its implementation; use a number in 1..${MAX_FIELD_NUMBER} outside that range`,
      );
    }
    const sameNumber = byNumber.get(n);
    if (sameNumber !== undefined) {
      throw invalid(
        root,
        RuleCode.FIELD_NUMBER_DUPLICATE,
        `fields ${m.typeName}.${sameNumber} and ${name} share number ${n}; give each field its own number`,
      );
    }
    byNumber.set(n, f.name);
    const sameName = byName.get(f.name);
    if (sameName !== undefined) {
      throw invalid(
        root,
        RuleCode.FIELD_NAME_DUPLICATE,
        `message ${m.typeName} declares field name ${f.name} twice (numbers ${sameName} and ${n}); rename one of them`,
      );
    }
    byName.set(f.name, n);
    const json = jsonNameOf(f);
    const sameJson = byJson.get(json);
    if (sameJson !== undefined) {
      throw invalid(
        root,
        RuleCode.JSON_NAME_CONFLICT,
        `fields ${m.typeName}.${sameJson} and ${name} have the same JSON name ${json}; rename one of them or give it a distinct json_name`,
      );
    }
    byJson.set(json, f.name);
  }
}

/**
 * A ProtoJSON parser reads a field under its JSON name and its proto name: a JSON name that is
 * another field's proto name reads as either (toJson's {"b": …} of field a came back as field b,
 * or as both: JSON_FIELD_SET_TWICE). protoc and buf accept it when that field has its own
 * json_name; upb (Python, PHP, Ruby) refuses it ("duplicate json_name … with original field
 * name"). A construction rule (checkProtocRules): a type saved before it existed still restores.
 */
function checkJsonNamesCross(root: string, m: DescMessage): void {
  const names = new Set(m.fields.map((f) => f.name));
  for (const f of m.fields) {
    const json = jsonNameOf(f);
    if (json !== f.name && names.has(json)) {
      throw invalid(
        root,
        RuleCode.JSON_NAME_CONFLICT,
        `the JSON name of field ${m.typeName}.${f.name} is ${json}, the proto name of field ${m.typeName}.${json}; ProtoJSON reads a field under both names, so "${json}" would name either: give ${f.name} another json_name`,
      );
    }
  }
}

function checkEnum(root: string, e: DescEnum): void {
  const first = e.values[0];
  if (first === undefined) {
    throw invalid(
      root,
      RuleCode.ENUM_FIRST_VALUE_NOT_ZERO,
      `enum ${e.typeName} declares no values; proto3 enums must start with a value numbered 0, add one`,
    );
  }
  if (first.number !== 0) {
    throw invalid(
      root,
      RuleCode.ENUM_FIRST_VALUE_NOT_ZERO,
      `enum ${e.typeName} has first value ${first.name} = ${first.number}; proto3 enums must start with a value numbered 0, add one first`,
    );
  }
  if (e.proto.options?.allowAlias === true) return;
  const seen = new Map<number, string>();
  for (const v of e.values) {
    const prev = seen.get(v.number);
    if (prev !== undefined) {
      throw invalid(
        root,
        RuleCode.ENUM_ALIAS_NOT_ALLOWED,
        `enum ${e.typeName} values ${prev} and ${v.name} share number ${v.number} without allow_alias; renumber one or set option allow_alias = true`,
      );
    }
    seen.set(v.number, v.name);
  }
}

// --- rules protoc's DescriptorBuilder enforces that a hand-made set can break ---
// Each one below was accepted and then either changed what a value reads as, split protokeel from
// protobufjs or @bufbuild/protobuf on the same descriptor, or left in the normalized set a schema
// that protoc refuses (the .proto text of `protokeel inspect` and of a schema registry's subject).
// protoc never writes one, and normalization keeps each rule (a normalized set passes them all).
// They are checked at construction only (checkProtocRules), so that a type accepted before them
// still restores.

/** Inclusive `from..to` (or one number) as protoc's `reserved` statement writes it. */
function span(from: number, to: number): string {
  return from === to ? `${from}` : `${from} to ${to}`;
}

/**
 * A message's reserved ranges are positive and non-empty, and no field uses a reserved number or
 * name: protoc refuses both, and the evaluator would read a reserved number as retired while a
 * field still writes it. Overlapping ranges are left: normalization merges them, as the
 * equivalent non-overlapping statement would be. Sorted ranges keep this N log R.
 */
function checkReserved(root: string, m: DescMessage): void {
  const proto = m.proto;
  if (proto.reservedRange.length === 0 && proto.reservedName.length === 0) return;
  for (const r of proto.reservedRange) {
    if (r.start >= 1 && r.end > r.start) continue;
    throw invalid(
      root,
      RuleCode.RESERVED_RANGE_INVALID,
      `message ${m.typeName} declares reserved range start ${r.start} end ${r.end} (end exclusive), which is ${r.start < 1 ? "not positive" : "empty"}; reserve positive numbers with the end after the start, as protoc requires`,
    );
  }
  const ranges = reservedRangesOf(m);
  const names = new Set(proto.reservedName);
  for (const f of m.fields) {
    const at = rangeHolding(ranges, f.number);
    if (at >= 0) {
      throw invalid(
        root,
        RuleCode.FIELD_NUMBER_RESERVED,
        `field ${m.typeName}.${f.name} has number ${f.number}, which message ${m.typeName} reserves (reserved ${span(ranges[at]![0], ranges[at]![1])}); use a number the message does not reserve, or unreserve it`,
      );
    }
    if (names.has(f.name)) {
      throw invalid(
        root,
        RuleCode.FIELD_NAME_RESERVED,
        `field ${m.typeName}.${f.name} has a name that message ${m.typeName} reserves; rename the field, or unreserve the name`,
      );
    }
  }
}

/** An enum's reserved ranges are non-empty (both ends inclusive) and no value uses a reserved number or name. */
function checkEnumReserved(root: string, e: DescEnum): void {
  const proto = e.proto;
  if (proto.reservedRange.length === 0 && proto.reservedName.length === 0) return;
  for (const r of proto.reservedRange) {
    if (r.end >= r.start) continue;
    throw invalid(
      root,
      RuleCode.RESERVED_RANGE_INVALID,
      `enum ${e.typeName} declares reserved range start ${r.start} end ${r.end} (end inclusive), which is empty; reserve a range whose end is not below its start, as protoc requires`,
    );
  }
  const ranges = reservedRangesOf(e);
  const names = new Set(proto.reservedName);
  for (const v of e.values) {
    const at = rangeHolding(ranges, v.number);
    if (at >= 0) {
      throw invalid(
        root,
        RuleCode.ENUM_VALUE_RESERVED,
        `enum value ${e.typeName}.${v.name} has number ${v.number}, which enum ${e.typeName} reserves (reserved ${span(ranges[at]![0], ranges[at]![1])}); use a number the enum does not reserve, or unreserve it`,
      );
    }
    if (names.has(v.name)) {
      throw invalid(
        root,
        RuleCode.ENUM_VALUE_RESERVED,
        `enum value ${e.typeName}.${v.name} has a name that enum ${e.typeName} reserves; rename the value, or unreserve the name`,
      );
    }
  }
}

const MESSAGE_TYPE = FieldDescriptorProto_Type.MESSAGE;
const ENUM_TYPE = FieldDescriptorProto_Type.ENUM;

/** `int32`, `repeated string`, `map`, `message`: a field's declared type as a word. */
function typeWord(fp: FieldDescriptorProto, isMap: boolean): string {
  if (isMap) return "map";
  const t = withoutPrefix(FieldDescriptorProto_Type[fp.type] ?? `type ${fp.type}`, "TYPE_").toLowerCase();
  return fp.label === FieldDescriptorProto_Label.REPEATED ? `repeated ${t}` : t;
}

/**
 * A field declares its type, a type_name only with a message or enum type, and jstype only on a
 * 64-bit integer. With a type_name on a scalar, protobufjs reads the named message where
 * @bufbuild/protobuf reads the scalar; without a type, @bufbuild/protobuf (and so protokeel) read
 * a double where protoc and protobufjs read the named type. jstype elsewhere changes no value but
 * stays in the normalized set, whose .proto text protoc then refuses.
 */
function checkFieldType(root: string, m: DescMessage, f: DescField): void {
  const fp = f.proto;
  const name = `${m.typeName}.${fp.name}`;
  const named = isFieldSet(fp, FieldDescriptorProtoSchema.field.typeName) && fp.typeName !== "";
  if (!isFieldSet(fp, FieldDescriptorProtoSchema.field.type)) {
    throw invalid(
      root,
      RuleCode.FIELD_TYPE_INVALID,
      !named
        ? `field ${name} declares no type (or a type number protobuf does not define); set its type as protoc writes it`
        : `field ${name} declares no type, only type_name ${quoted(fp.typeName)}; @bufbuild/protobuf reads such a field as a double where protoc and protobufjs read the named type, set type as protoc writes it (TYPE_MESSAGE or TYPE_ENUM)`,
    );
  }
  const refers = fp.type === MESSAGE_TYPE || fp.type === ENUM_TYPE || fp.type === FieldDescriptorProto_Type.GROUP;
  if (!refers && named) {
    throw invalid(
      root,
      RuleCode.FIELD_TYPE_INVALID,
      `field ${name} (${typeWord(fp, false)}) names type ${quoted(fp.typeName)}; a scalar field names no type (protobufjs would read the named type, @bufbuild/protobuf the scalar), remove the type_name or set type to TYPE_MESSAGE or TYPE_ENUM`,
    );
  }
  const jstype = fp.options?.jstype;
  if (jstype === undefined || jstype === FieldOptions_JSType.JS_NORMAL) return;
  // JSType is a closed enum: a value it does not declare is dropped when the normalized set is
  // read back, so the type's own transfer form and snapshot did not restore (TRANSFER_NOT_NORMALIZED).
  if (FieldOptions_JSType[jstype] === undefined) {
    throw invalid(
      root,
      RuleCode.JSTYPE_INVALID,
      `field ${name} (${typeWord(fp, f.fieldKind === "map")}) has jstype = ${jstype}, which google.protobuf.FieldOptions.JSType does not declare (JS_NORMAL 0, JS_STRING 1, JS_NUMBER 2); use one of those or remove the option`,
    );
  }
  if (!refers && is64(fp.type as number)) return;
  throw invalid(
    root,
    RuleCode.JSTYPE_INVALID,
    `field ${name} (${typeWord(fp, f.fieldKind === "map")}) has jstype = ${FieldOptions_JSType[jstype] ?? jstype}; jstype applies only to int64, uint64, sint64, fixed64 and sfixed64 fields, as protoc requires, remove the option`,
  );
}

/**
 * Oneof membership as protoc builds it: members are singular, and a proto3 `optional` field is the
 * only member of a synthetic oneof of its own. @bufbuild/protobuf reads a proto3_optional field
 * as outside any oneof while protobufjs keeps it in the declared one: a second member of that
 * oneof made the two fields exclude each other in protobufjs only (protobufjs dropped one of two
 * values protokeel wrote), and an optional field with no oneof was written with presence by
 * protokeel and without by protobufjs. Read from the declared protos: the DescMessage hides
 * synthetic oneofs.
 */
function checkOneofs(root: string, m: DescMessage): void {
  const decls = m.proto.oneofDecl;
  const first: Array<FieldDescriptorProto | undefined> = [];
  const optional: Array<FieldDescriptorProto | undefined> = [];
  for (const fp of m.proto.field) {
    const name = `${m.typeName}.${fp.name}`;
    const member = isFieldSet(fp, FieldDescriptorProtoSchema.field.oneofIndex);
    if (fp.proto3Optional && !member) {
      throw invalid(
        root,
        RuleCode.ONEOF_INVALID,
        `field ${name} is proto3 optional but in no oneof; protoc declares each optional field as the only member of a synthetic oneof (protobufjs reads the field without presence, @bufbuild/protobuf with), declare it as protoc writes it`,
      );
    }
    if (!member) continue;
    const decl = decls[fp.oneofIndex];
    if (decl === undefined) continue; // no such oneof: the registry refused it already
    if (fp.label === FieldDescriptorProto_Label.REPEATED) {
      throw invalid(
        root,
        RuleCode.ONEOF_INVALID,
        `field ${name} (${typeWord(fp, m.fields.find((f) => f.proto === fp)?.fieldKind === "map")}) is a member of oneof ${m.typeName}.${decl.name}; oneof members are singular (protoc refuses a repeated or map member), move it out of the oneof`,
      );
    }
    const i = fp.oneofIndex;
    const opt = fp.proto3Optional ? fp : optional[i];
    const other = first[i];
    if (other !== undefined && opt !== undefined) {
      const second = opt === fp ? other : fp;
      throw invalid(
        root,
        RuleCode.ONEOF_INVALID,
        `oneof ${m.typeName}.${decl.name} holds proto3 optional field ${m.typeName}.${opt.name} and field ${m.typeName}.${second.name}; an optional field is the only member of its synthetic oneof (protobufjs would make the two exclude each other, @bufbuild/protobuf would not), give each field its own oneof`,
      );
    }
    first[i] ??= fp;
    if (fp.proto3Optional) optional[i] = fp;
  }
}

/**
 * A map field's entry is the one protoc generates: `<Field>Entry` nested in the field's message,
 * fields `key = 1` and `value = 2` (optional), nothing else. @bufbuild/protobuf reads any entry
 * of the same file by its numbers and normalization regenerates it, so a malformed entry (nested
 * types, extra fields, another message's entry) passed while protobufjs refused the set or read
 * it otherwise, and a type nested in an entry never reached the normalized set.
 */
function checkMapEntries(root: string, m: DescMessage): void {
  let entries: Map<string, DescriptorProto> | undefined;
  for (const f of m.fields) {
    if (f.fieldKind !== "map") continue;
    if (entries === undefined) {
      entries = new Map();
      for (const n of m.proto.nestedType) if (n.options?.mapEntry === true) entries.set(n.name, n);
    }
    const entryName = mapEntryName(f.name);
    const expected = `.${m.typeName}.${entryName}`;
    const entry = entries.get(entryName);
    const name = `${m.typeName}.${f.name}`;
    if (f.proto.typeName !== expected || entry === undefined) {
      throw invalid(
        root,
        RuleCode.MAP_ENTRY_INVALID,
        `map field ${name} uses entry ${quoted(f.proto.typeName)}; its entry is ${expected.slice(1)}, nested in its message and used by no other field, declare the field as map<K, V> and let protoc generate the entry`,
      );
    }
    if (!isMapEntryShape(entry)) {
      throw invalid(
        root,
        RuleCode.MAP_ENTRY_INVALID,
        `map field ${name} has entry ${expected.slice(1)} that is not the entry protoc generates (exactly the fields key = 1 and value = 2, a key of an integer, bool or string type, nothing nested); declare the field as map<K, V> and let protoc generate the entry`,
      );
    }
  }
}

/**
 * protoc's scoping: in a package and in a message, the names of the fields, oneofs, nested
 * types, map entries and enum values are one namespace, where an enum's values belong to the
 * scope around the enum (C++ scoping), not to the enum. Two values of one enum sharing a name made
 * fromJson read the name as the first one's number where @bufbuild/protobuf and protobufjs read
 * the last one's. Synthetic oneofs are left out: normalization renames them.
 */
function checkScopes(root: string, closure: Closure): void {
  const byPackage = new Map<string, Map<string, string>>();
  for (const top of closure.tops) {
    const pkg = top.file.proto.package;
    let scope = byPackage.get(pkg);
    if (scope === undefined) byPackage.set(pkg, (scope = new Map()));
    declare(root, pkg, scope, top.name, what(top));
    if (top.kind === "enum") declareValues(root, pkg, scope, top);
  }
  for (const m of closure.messages) {
    const scope = new Map<string, string>();
    for (const f of m.fields) {
      declare(root, m.typeName, scope, f.name, `field ${m.typeName}.${f.name}`);
      if (f.fieldKind === "map") declare(root, m.typeName, scope, mapEntryName(f.name), `the map entry of field ${m.typeName}.${f.name}`);
    }
    for (const o of m.oneofs) declare(root, m.typeName, scope, o.name, `oneof ${m.typeName}.${o.name}`);
    for (const n of m.nestedMessages) declare(root, m.typeName, scope, n.name, what(n));
    for (const e of m.nestedEnums) {
      declare(root, m.typeName, scope, e.name, what(e));
      declareValues(root, m.typeName, scope, e);
    }
  }
}

function declareValues(root: string, scopeName: string, scope: Map<string, string>, e: DescEnum): void {
  for (const v of e.values) declare(root, scopeName, scope, v.name, `enum value ${e.typeName}.${v.name} (${v.number})`);
}

function declare(root: string, scopeName: string, scope: Map<string, string>, name: string, described: string): void {
  const prev = scope.get(name);
  if (prev === undefined) {
    scope.set(name, described);
    return;
  }
  throw invalid(
    root,
    RuleCode.NAME_CONFLICT,
    `${prev} and ${described} share the name ${name} in ${scopeName === "" ? "the root package" : scopeName}; protoc requires distinct names for the fields, oneofs, nested types and enum values of one scope (enum values belong to the scope around their enum, C++ scoping), rename one`,
  );
}

/** A map entry as protoc generates it (what @bufbuild/protobuf asserts without a reason, and more). */
export function isMapEntryShape(entry: DescriptorProto): boolean {
  const T = FieldDescriptorProto_Type;
  const OPTIONAL = FieldDescriptorProto_Label.OPTIONAL;
  const [key, value] = entry.field;
  if (entry.field.length !== 2 || key!.name !== "key" || key!.number !== 1 || key!.label !== OPTIONAL) return false;
  if (value!.name !== "value" || value!.number !== 2 || value!.label !== OPTIONAL) return false;
  const k = key!.type;
  if (k === T.FLOAT || k === T.DOUBLE || k === T.BYTES || k === T.MESSAGE || k === T.GROUP || k === T.ENUM) return false;
  return entry.nestedType.length === 0 && entry.enumType.length === 0 && entry.oneofDecl.length === 0 && entry.extension.length === 0 && entry.extensionRange.length === 0;
}
