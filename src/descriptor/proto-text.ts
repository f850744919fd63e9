// FileDescriptorProtos as .proto text: for people (`protokeel inspect`) and for compilers (the
// Schema Registry takes schemas as .proto text, protokeel/registry). The compilable form writes
// every type name fully qualified (`.acme.Item`: a relative name can resolve to another type
// when a nested declaration shares its first segment) and escapes strings as protoc reads them;
// compiling it and normalizing gives the normalized set it was printed from (test/registry-proto-text).
// The reading form (`protokeel inspect`) drops the dot where protoc's scope lookup finds the same
// type, and compiles back to the same set too (test/proto-text-scope).
// Nested declarations are written with an explicit stack (a schema may nest thousands of
// messages), and the text is joined once.
import { isFieldSet } from "@bufbuild/protobuf";
import {
  FieldDescriptorProtoSchema,
  FieldOptionsSchema,
  type DescriptorProto,
  type EnumDescriptorProto,
  type FieldDescriptorProto,
  type FileDescriptorProto,
  type FileDescriptorSet,
} from "@bufbuild/protobuf/wkt";
import { protocJsonName } from "./names.js";
import { MAX_FIELD_NUMBER } from "../bytes.js";

// google.protobuf.FieldDescriptorProto.Type and .Label numbers.
const SCALARS: Record<number, string> = {
  1: "double",
  2: "float",
  3: "int64",
  4: "uint64",
  5: "int32",
  6: "fixed64",
  7: "fixed32",
  8: "bool",
  9: "string",
  12: "bytes",
  13: "uint32",
  15: "sfixed32",
  16: "sfixed64",
  17: "sint32",
  18: "sint64",
};
const TYPE_GROUP = 10;
const TYPE_MESSAGE = 11;
const LABEL_REPEATED = 3;
const JS_TYPES: Record<number, string> = { 1: "JS_STRING", 2: "JS_NUMBER" };
/** `max` in a reserved range: the largest field number, and the largest enum value (int32). */
const FIELD_MAX = MAX_FIELD_NUMBER;
const ENUM_MAX = 2_147_483_647;

export interface ProtoTextOptions {
  /**
   * Type names with their leading dot (`.acme.Item`) always; else without it (`acme.Item`, for
   * reading) wherever protoc reads the same type from it. Defaults to false.
   */
  readonly qualified?: boolean;
}

/** A string literal protoc and buf read back as the same UTF-8: quotes, backslashes and control characters escaped. */
export function protoString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (c < 0x20 || c === 0x7f) out += `\\${c.toString(8).padStart(3, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * How type names are written: with their leading dot (`qualified`), or without it where protoc's
 * scope lookup finds the same type. The names a scope lookup can stop at are the set's messages
 * and enums (`types`) and, for a dotted name, its packages and their prefixes too (`packages`).
 */
interface Naming {
  readonly qualified: boolean;
  readonly types: ReadonlySet<string>;
  readonly packages: ReadonlySet<string>;
}

/** The naming of the files `files` (what a compiler of them can see), dotted names or not. */
function namingOf(files: readonly FileDescriptorProto[], qualified: boolean): Naming {
  const types = new Set<string>();
  const packages = new Set<string>();
  if (qualified) return { qualified, types, packages };
  for (const file of files) {
    const pkg = file.package;
    if (pkg !== "") {
      let at = pkg.indexOf(".");
      for (; at >= 0; at = pkg.indexOf(".", at + 1)) packages.add(pkg.slice(0, at));
      packages.add(pkg);
    }
    const stack: [string, DescriptorProto][] = file.messageType.map((m) => [pkg, m]);
    for (const e of file.enumType) types.add(pkg === "" ? e.name : `${pkg}.${e.name}`);
    while (stack.length > 0) {
      const [scope, m] = stack.pop()!;
      const name = scope === "" ? m.name : `${scope}.${m.name}`;
      types.add(name);
      for (const e of m.enumType) types.add(`${name}.${e.name}`);
      for (const n of m.nestedType) stack.push([name, n]);
    }
  }
  return { qualified, types, packages };
}

/**
 * Words a type name starting with which keeps its dot: those a statement in a message or oneof
 * body starts with, and the scalar types (a type named `int32` read as the scalar; protoc reads
 * `string.q.M` as the scalar followed by junk).
 */
const STATEMENT_WORDS = new Set([
  "option", "optional", "repeated", "required", "message", "enum", "oneof", "map", "group", "reserved", "extensions", "extend",
  ...Object.values(SCALARS),
]);

/**
 * A field's type as written in the message `scope` (its full name). protoc resolves a name by
 * its first part from the innermost scope out, and commits to the first match (a message, an
 * enum, or for a dotted name a package): `a.b.Other` read in `a.b.Msg`, which nests a message
 * `a`, is looked up as `a.b.Msg.a.b.Other` and fails. Such a name keeps its leading dot.
 */
function typeName(f: FieldDescriptorProto, naming: Naming, scope: string): string {
  const scalar = SCALARS[f.type];
  if (scalar !== undefined) return scalar;
  const full = f.typeName;
  if (naming.qualified || !full.startsWith(".")) return full;
  const name = full.slice(1);
  const dot = name.indexOf(".");
  const first = dot < 0 ? name : name.slice(0, dot);
  // `option d = 1;` is an option statement to protoc, `optional x = 1;` a label and a type,
  // `int32 f = 1;` the scalar.
  if (STATEMENT_WORDS.has(first)) return full;
  for (let p = scope; p !== ""; ) {
    const candidate = `${p}.${first}`;
    if (naming.types.has(candidate) || (dot >= 0 && naming.packages.has(candidate))) return full;
    const cut = p.lastIndexOf(".");
    p = cut < 0 ? "" : p.slice(0, cut);
  }
  return name;
}

function fieldOptions(f: FieldDescriptorProto): string {
  const o: string[] = [];
  if (f.jsonName !== "" && f.jsonName !== protocJsonName(f.name)) o.push(`json_name = ${protoString(f.jsonName)}`);
  // packed is a proto2 field of FieldOptions: unset reads as false, so ask whether it is set.
  if (f.options !== undefined && isFieldSet(f.options, FieldOptionsSchema.field.packed) && !f.options.packed) o.push("packed = false");
  const js = f.options?.jstype;
  if (js !== undefined && JS_TYPES[js] !== undefined) o.push(`jstype = ${JS_TYPES[js]}`);
  if (f.options?.deprecated === true) o.push("deprecated = true");
  return o.length === 0 ? "" : ` [${o.join(", ")}]`;
}

function reserved(ranges: readonly { start: number; end: number }[], names: readonly string[], inclusiveEnd: boolean, max: number): string[] {
  const out: string[] = [];
  if (ranges.length > 0) {
    const parts = ranges.map((r) => {
      const last = inclusiveEnd ? r.end : r.end - 1;
      return last === r.start ? String(r.start) : last >= max ? `${r.start} to max` : `${r.start} to ${last}`;
    });
    out.push(`reserved ${parts.join(", ")};`);
  }
  if (names.length > 0) out.push(`reserved ${names.map(protoString).join(", ")};`);
  return out;
}

function enumLines(e: EnumDescriptorProto): string[] {
  const lines = [`enum ${e.name} {`];
  if (e.options?.allowAlias === true) lines.push("  option allow_alias = true;");
  if (e.options?.deprecated === true) lines.push("  option deprecated = true;");
  for (const v of e.value) lines.push(`  ${v.name} = ${v.number}${v.options?.deprecated === true ? " [deprecated = true]" : ""};`);
  for (const r of reserved(e.reservedRange, e.reservedName, true, ENUM_MAX)) lines.push(`  ${r}`);
  lines.push("}");
  return lines;
}

type Item = { kind: "message"; m: DescriptorProto; scope: string; depth: number } | { kind: "line"; text: string };

/** The body of one message (fields, oneofs, nested declarations) as items, nested ones unexpanded. */
function messageItems(m: DescriptorProto, scope: string, depth: number, naming: Naming): Item[] {
  const name = scope === "" ? m.name : `${scope}.${m.name}`;
  const pad = "  ".repeat(depth);
  const items: Item[] = [{ kind: "line", text: `${pad}message ${m.name} {` }];
  if (m.options?.deprecated === true) items.push({ kind: "line", text: `${pad}  option deprecated = true;` });
  const entries = new Map(m.nestedType.filter((n) => n.options?.mapEntry === true).map((n) => [n.name, n]));
  const fieldText = (f: FieldDescriptorProto, inOneof: boolean): string => {
    const entryName = f.typeName.slice(f.typeName.lastIndexOf(".") + 1);
    const entry = f.label === LABEL_REPEATED && f.type === TYPE_MESSAGE ? entries.get(entryName) : undefined;
    let type: string;
    // protoc resolves an entry's value type from inside the entry, which declares no type.
    if (entry !== undefined && entry.field.length === 2) type = `map<${typeName(entry.field[0]!, naming, name)}, ${typeName(entry.field[1]!, naming, name)}>`;
    else {
      const label = f.label === LABEL_REPEATED ? "repeated " : f.proto3Optional && !inOneof ? "optional " : "";
      type = `${label}${f.type === TYPE_GROUP ? "group" : typeName(f, naming, name)}`;
    }
    return `${type} ${f.name} = ${f.number}${fieldOptions(f)};`;
  };
  // Real oneofs are written where their first field is; synthetic ones (proto3 optional) are not.
  const oneofOf = (f: FieldDescriptorProto): number | undefined => (isFieldSet(f, FieldDescriptorProtoSchema.field.oneofIndex) ? f.oneofIndex : undefined);
  const members = new Map<number, FieldDescriptorProto[]>();
  for (const f of m.field) {
    const o = oneofOf(f);
    if (o === undefined || f.proto3Optional) continue;
    const list = members.get(o);
    if (list === undefined) members.set(o, [f]);
    else list.push(f);
  }
  for (const f of m.field) {
    const o = oneofOf(f);
    const group = o === undefined ? undefined : members.get(o);
    if (group === undefined) items.push({ kind: "line", text: `${pad}  ${fieldText(f, false)}` });
    else if (group[0] === f) {
      items.push({ kind: "line", text: `${pad}  oneof ${m.oneofDecl[o!]?.name ?? `oneof_${o}`} {` });
      for (const g of group) items.push({ kind: "line", text: `${pad}    ${fieldText(g, true)}` });
      items.push({ kind: "line", text: `${pad}  }` });
    }
  }
  for (const r of reserved(m.reservedRange, m.reservedName, false, FIELD_MAX)) items.push({ kind: "line", text: `${pad}  ${r}` });
  for (const e of m.enumType) for (const l of enumLines(e)) items.push({ kind: "line", text: `${pad}  ${l}` });
  for (const n of m.nestedType) if (!entries.has(n.name)) items.push({ kind: "message", m: n, scope: name, depth: depth + 1 });
  items.push({ kind: "line", text: `${pad}}` });
  return items;
}

/** The declarations of one file after its header. */
function bodyLines(file: FileDescriptorProto, naming: Naming, out: string[]): void {
  for (const e of file.enumType) {
    out.push("");
    for (const l of enumLines(e)) out.push(l);
  }
  for (const m of file.messageType) {
    out.push("");
    // Depth-first with an explicit stack: a message's items, a nested message expanded in place.
    const stack: Item[] = [{ kind: "message", m, scope: file.package, depth: 0 }];
    while (stack.length > 0) {
      const item = stack.pop()!;
      if (item.kind === "line") out.push(item.text);
      else {
        const items = messageItems(item.m, item.scope, item.depth, naming);
        for (let k = items.length - 1; k >= 0; k--) stack.push(items[k]!);
      }
    }
  }
}

/**
 * One file as .proto text: syntax, package, `imports` (the file's own dependencies when not
 * given), then its enums and messages. Ends with a newline. Unqualified, it sees this file's
 * declarations only (not its imports'): the registry's texts, which a compiler reads, are qualified.
 */
export function protoFileText(file: FileDescriptorProto, options: ProtoTextOptions & { readonly imports?: readonly string[] } = {}): string {
  const out: string[] = [`syntax = "${file.syntax === "" ? "proto2" : file.syntax}";`];
  if (file.package !== "") out.push(`package ${file.package};`);
  for (const d of options.imports ?? file.dependency) out.push(`import ${protoString(d)};`);
  bodyLines(file, namingOf([file], options.qualified ?? false), out);
  out.push("");
  return out.join("\n");
}

/** True when `s` holds a control character, DEL, or U+2028/U+2029 (which end a line too). */
function breaksLine(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x1f || c === 0x7f || c === 0x2028 || c === 0x2029) return true;
  }
  return false;
}

/** Every file of the set, in set order, each under a `// <file name>` line, separated by a blank line. */
export function protoText(set: FileDescriptorSet, options: ProtoTextOptions = {}): string {
  const out: string[] = [];
  const naming = namingOf(set.file, options.qualified ?? false);
  set.file.forEach((file, i) => {
    if (i > 0) out.push("");
    // A file name is free text: one with a line break would end the comment and start a line.
    out.push(`// ${breaksLine(file.name) ? protoString(file.name) : file.name}`);
    out.push(`syntax = "${file.syntax === "" ? "proto2" : file.syntax}";`);
    if (file.package !== "") out.push(`package ${file.package};`);
    for (const d of file.dependency) out.push(`import ${protoString(d)};`);
    bodyLines(file, naming, out);
  });
  return out.join("\n");
}
