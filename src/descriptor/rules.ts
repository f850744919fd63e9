// Payload rules (docs/design.md §4.2). Neither protobufjs nor @bufbuild/protobuf enforces them: both accept
// a field number above 2^29-1 and then write a corrupt tag, so every input path checks them here.
import { isFieldSet, type DescEnum, type DescMessage } from "@bufbuild/protobuf";
import {
  Edition,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FieldDescriptorProtoSchema,
} from "@bufbuild/protobuf/wkt";
import { collectClosure, type Closure, type Decl } from "./closure.js";
import { invalid } from "./invalid.js";
import { protocJsonName, quoted, utf8Length } from "./names.js";

/** Largest field number: the tag is the number shifted left by 3 in an unsigned 32-bit varint. */
export const MAX_FIELD_NUMBER = 536_870_911;
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
} as const;

/** protoc's package grammar: identifiers joined by dots. */
const PACKAGE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

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
  for (const top of closure.tops) {
    if (files.has(top.file)) continue;
    files.add(top.file);
    checkSyntax(root, top);
    checkPackage(root, top);
  }
  for (const m of closure.messages) checkMessage(root, m);
  for (const e of closure.enums) checkEnum(root, e);
}

function what(d: Decl): string {
  return `${d.kind === "message" ? "message" : "enum"} ${d.typeName}`;
}

function checkSyntax(root: string, top: Decl): void {
  const file = top.file;
  if (file.edition === Edition.EDITION_PROTO3) return;
  if (file.edition === Edition.EDITION_PROTO2) {
    throw invalid(
      root,
      RuleCode.SYNTAX_NOT_PROTO3,
      `${what(top)} is declared in proto2 file ${file.proto.name}; payload types must be declared in a proto3 file (syntax = "proto3")`,
    );
  }
  throw invalid(
    root,
    RuleCode.EDITIONS_NOT_SUPPORTED,
    `${what(top)} is declared in file ${file.proto.name} with ${editionName(file.edition)}; editions are not supported, declare it in a proto3 file (syntax = "proto3")`,
  );
}

// @bufbuild/protobuf checks the names of types, fields and enum values, not the package: a
// package that holds other text ("acme;\nmessage X {}") became part of every type name, and of
// the .proto text printed from the schema (a registry's schema, `protokeel inspect`), where it
// declared types the schema does not have.
function checkPackage(root: string, top: Decl): void {
  const pkg = top.file.proto.package;
  if (pkg === "" || PACKAGE_NAME.test(pkg)) return;
  throw invalid(
    root,
    RuleCode.PACKAGE_NAME_INVALID,
    `file ${quoted(top.file.proto.name)} declares package ${quoted(pkg)}, which is not identifiers joined by dots (letters, digits and _, not starting with a digit); use a package name protoc accepts`,
  );
}

function editionName(e: number): string {
  const name = Edition[e];
  return name === undefined ? `edition ${e}` : `edition ${name.replace(/^EDITION_/, "").toLowerCase()}`;
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
    const json = isFieldSet(fp, FieldDescriptorProtoSchema.field.jsonName) ? fp.jsonName : protocJsonName(f.name);
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
