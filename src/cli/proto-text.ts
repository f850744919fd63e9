// A FileDescriptorSet as .proto-like text, for `protokeel inspect`. Nested declarations are
// written with an explicit stack (a schema may nest thousands of messages), and the text is
// joined once.
import { isFieldSet } from "@bufbuild/protobuf";
import {
  FieldDescriptorProtoSchema,
  type DescriptorProto,
  type EnumDescriptorProto,
  type FieldDescriptorProto,
  type FileDescriptorProto,
  type FileDescriptorSet,
} from "@bufbuild/protobuf/wkt";

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
const LABEL_REPEATED = 3;
const JS_TYPES: Record<number, string> = { 1: "JS_STRING", 2: "JS_NUMBER" };

/** protoc's default JSON name. */
function defaultJsonName(name: string): string {
  return name.replace(/_([a-z0-9]?)/g, (_m, c: string) => c.toUpperCase());
}

function typeName(f: FieldDescriptorProto): string {
  const scalar = SCALARS[f.type];
  if (scalar !== undefined) return scalar;
  return f.typeName.startsWith(".") ? f.typeName.slice(1) : f.typeName;
}

function fieldOptions(f: FieldDescriptorProto): string {
  const o: string[] = [];
  if (f.jsonName !== "" && f.jsonName !== defaultJsonName(f.name)) o.push(`json_name = ${JSON.stringify(f.jsonName)}`);
  if (f.options?.packed === false) o.push("packed = false");
  const js = f.options?.jstype;
  if (js !== undefined && JS_TYPES[js] !== undefined) o.push(`jstype = ${JS_TYPES[js]}`);
  if (f.options?.deprecated === true) o.push("deprecated = true");
  return o.length === 0 ? "" : ` [${o.join(", ")}]`;
}

function reserved(ranges: readonly { start: number; end: number }[], names: readonly string[], inclusiveEnd: boolean): string[] {
  const out: string[] = [];
  if (ranges.length > 0) {
    const parts = ranges.map((r) => {
      const last = inclusiveEnd ? r.end : r.end - 1;
      return last === r.start ? String(r.start) : last >= 536870911 ? `${r.start} to max` : `${r.start} to ${last}`;
    });
    out.push(`reserved ${parts.join(", ")};`);
  }
  if (names.length > 0) out.push(`reserved ${names.map((n) => JSON.stringify(n)).join(", ")};`);
  return out;
}

function enumLines(e: EnumDescriptorProto): string[] {
  const lines = [`enum ${e.name} {`];
  if (e.options?.allowAlias === true) lines.push("  option allow_alias = true;");
  for (const v of e.value) lines.push(`  ${v.name} = ${v.number};${v.options?.deprecated === true ? " // deprecated" : ""}`);
  for (const r of reserved(e.reservedRange, e.reservedName, true)) lines.push(`  ${r}`);
  lines.push("}");
  return lines;
}

type Item = { kind: "message"; m: DescriptorProto; depth: number } | { kind: "line"; text: string };

/** The body of one message (fields, oneofs, nested declarations) as items, nested ones unexpanded. */
function messageItems(m: DescriptorProto, depth: number): Item[] {
  const pad = "  ".repeat(depth);
  const items: Item[] = [{ kind: "line", text: `${pad}message ${m.name} {` }];
  const entries = new Map(m.nestedType.filter((n) => n.options?.mapEntry === true).map((n) => [n.name, n]));
  const fieldText = (f: FieldDescriptorProto, inOneof: boolean): string => {
    const entryName = f.typeName.slice(f.typeName.lastIndexOf(".") + 1);
    const entry = f.label === LABEL_REPEATED && f.type === 11 ? entries.get(entryName) : undefined;
    let type: string;
    if (entry !== undefined && entry.field.length === 2) type = `map<${typeName(entry.field[0]!)}, ${typeName(entry.field[1]!)}>`;
    else {
      const label = f.label === LABEL_REPEATED ? "repeated " : f.proto3Optional && !inOneof ? "optional " : "";
      type = `${label}${f.type === TYPE_GROUP ? "group" : typeName(f)}`;
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
  for (const r of reserved(m.reservedRange, m.reservedName, false)) items.push({ kind: "line", text: `${pad}  ${r}` });
  for (const e of m.enumType) for (const l of enumLines(e)) items.push({ kind: "line", text: `${pad}  ${l}` });
  for (const n of m.nestedType) if (!entries.has(n.name)) items.push({ kind: "message", m: n, depth: depth + 1 });
  items.push({ kind: "line", text: `${pad}}` });
  return items;
}

function fileLines(file: FileDescriptorProto, out: string[]): void {
  out.push(`// ${file.name}`);
  out.push(`syntax = "${file.syntax === "" ? "proto2" : file.syntax}";`);
  if (file.package !== "") out.push(`package ${file.package};`);
  for (const d of file.dependency) out.push(`import "${d}";`);
  for (const e of file.enumType) {
    out.push("");
    out.push(...enumLines(e));
  }
  for (const m of file.messageType) {
    out.push("");
    // Depth-first with an explicit stack: a message's items, a nested message expanded in place.
    const stack: Item[] = [{ kind: "message", m, depth: 0 }];
    while (stack.length > 0) {
      const item = stack.pop()!;
      if (item.kind === "line") out.push(item.text);
      else {
        const items = messageItems(item.m, item.depth);
        for (let k = items.length - 1; k >= 0; k--) stack.push(items[k]!);
      }
    }
  }
}

/** Every file of the set, in set order, separated by a blank line. */
export function protoText(set: FileDescriptorSet): string {
  const out: string[] = [];
  set.file.forEach((file, i) => {
    if (i > 0) out.push("");
    fileLines(file, out);
  });
  return out.join("\n");
}
