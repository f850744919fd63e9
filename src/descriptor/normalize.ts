// Normalization version 1 (docs/design.md §4.3): equal schema content gives identical bytes, whatever
// the input's file layout, declaration order, file options or custom options.
import {
  create,
  isFieldSet,
  toBinary,
  type DescEnum,
  type DescField,
  type DescMessage,
  type DescOneof,
} from "@bufbuild/protobuf";
import {
  DescriptorProto_ReservedRangeSchema,
  DescriptorProtoSchema,
  EnumDescriptorProto_EnumReservedRangeSchema,
  EnumDescriptorProtoSchema,
  EnumOptionsSchema,
  EnumValueDescriptorProtoSchema,
  EnumValueOptionsSchema,
  FieldOptionsSchema,
  MessageOptionsSchema,
  OneofDescriptorProtoSchema,
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as FieldType,
  FieldDescriptorProtoSchema,
  FieldOptions_JSType,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  type DescriptorProto,
  type EnumDescriptorProto,
  type FieldDescriptorProto,
  type FileDescriptorProto,
} from "@bufbuild/protobuf/wkt";
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex } from "@noble/hashes/utils";
import { collectClosure, compareNames, isMapEntry, type Closure, type Decl } from "./closure.js";
import { jsonNameOf, mapEntryName, protocJsonName } from "./names.js";
import { groupIntoFiles } from "./file-groups.js";
import { invalid } from "./invalid.js";
import { reason } from "./rebuild.js";
import { scanDescriptorSet } from "./set-scan.js";

export const NORMALIZATION_VERSION = 1;
/** The snapshot format's fixed limit on the normalized set (docs/design.md §10.2 item 5). */
export const MAX_NORMALIZED_BYTES = 64 * 1024 * 1024;

export const NormalizeCode = {
  NORMALIZED_SET_EMPTY: "NORMALIZED_SET_EMPTY",
  NORMALIZED_SET_TOO_LARGE: "NORMALIZED_SET_TOO_LARGE",
} as const;

/**
 * The normalized `FileDescriptorSet` bytes of the root's closure. Assumes the payload rules hold
 * (call `checkPayloadRules` first); throws `InvalidDescriptorError` for a recursive cycle that
 * spans packages and for a set outside 1..64 MiB.
 */
export function normalize(root: DescMessage): Uint8Array {
  return normalizeClosure(collectClosure(root));
}

export function normalizeClosure(closure: Closure): Uint8Array {
  const files = buildFiles(closure);
  const root = closure.root.typeName;
  let bytes: Uint8Array;
  try {
    bytes = toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: files }), { writeUnknownFields: false });
  } catch (e) {
    // A DescMessage built with create() keeps any JS number (a field or enum number of 1.5),
    // which the payload rules compare but the encoder refuses with a plain Error.
    throw invalid(
      root,
      "INPUT_INVALID",
      `the descriptor does not encode as a FileDescriptorSet (${reason(e)}); numbers in a descriptor are 32-bit integers`,
    );
  }
  if (bytes.length === 0) {
    throw invalid(root, NormalizeCode.NORMALIZED_SET_EMPTY, "the normalized descriptor set is empty");
  }
  if (bytes.length > MAX_NORMALIZED_BYTES) {
    throw invalid(
      root,
      NormalizeCode.NORMALIZED_SET_TOO_LARGE,
      `the normalized descriptor set is ${bytes.length} bytes, above ${MAX_NORMALIZED_BYTES} (64 MiB); reduce the types reachable from the root`,
    );
  }
  // What a snapshot's reader counts before it decodes a set: a type it would refuse is not made.
  const { over } = scanDescriptorSet(bytes);
  if (over !== undefined) {
    throw invalid(root, NormalizeCode.NORMALIZED_SET_TOO_LARGE, `the normalized descriptor set holds ${over}; reduce the types reachable from the root`);
  }
  return bytes;
}

/** Lowercase hex SHA-256 of normalized bytes: the schema fingerprint. */
export function fingerprintOf(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}

// --- files ---

function packageOf(d: Decl): string {
  return d.file.proto.package;
}

function buildFiles(closure: Closure): FileDescriptorProto[] {
  const groups = groupIntoFiles(
    closure.root.typeName,
    closure.tops,
    (d) => d.typeName,
    packageOf,
    (d) => closure.edges.get(d) ?? [],
  );
  return groups.map((g) => {
    const messages = g.members.filter((d): d is DescMessage => d.kind === "message");
    const enums = g.members.filter((d): d is DescEnum => d.kind === "enum");
    const pkg = packageOf(g.members[0]!);
    const file = create(FileDescriptorProtoSchema, {
      name: g.name,
      dependency: [...g.dependencies],
      messageType: sortByName(messages).map(messageProto),
      enumType: sortByName(enums).map(enumProto),
      syntax: "proto3",
    });
    if (pkg !== "") file.package = pkg;
    return file;
  });
}

function sortByName<T extends { name: string }>(list: readonly T[]): T[] {
  return [...list].sort((a, b) => compareNames(a.name, b.name));
}

// --- messages ---

/**
 * A top-level message with all its nested messages. Nesting comes from the input, so nested
 * messages are built from an explicit stack and attached to their parent's list, not by recursion.
 */
function messageProto(top: DescMessage): DescriptorProto {
  const first = ownProto(top);
  const work: Array<{ m: DescMessage; proto: DescriptorProto }> = [{ m: top, proto: first }];
  const built: DescriptorProto[] = [];
  while (work.length > 0) {
    const { m, proto } = work.pop()!;
    built.push(proto);
    for (const n of m.nestedMessages) {
      if (isMapEntry(n)) continue;
      const child = ownProto(n);
      proto.nestedType.push(child);
      work.push({ m: n, proto: child });
    }
  }
  for (const p of built) p.nestedType.sort((a, b) => compareNames(a.name, b.name));
  return first;
}

/** One message without its nested messages (map entries included: they derive from fields). */
function ownProto(m: DescMessage): DescriptorProto {
  const fields = [...m.fields].sort((a, b) => a.number - b.number);
  const out = create(DescriptorProtoSchema, { name: m.name });
  for (const f of fields) {
    if (f.fieldKind === "map") out.nestedType.push(mapEntryProto(f));
  }
  out.enumType = sortByName(m.nestedEnums).map(enumProto);

  // Real oneofs by their lowest member number, then the synthetic oneofs of proto3 `optional`.
  const lowest = new Map<DescOneof, number>();
  for (const o of m.oneofs) {
    let min = Infinity;
    for (const f of o.fields) if (f.number < min) min = f.number;
    lowest.set(o, min);
  }
  const real = [...m.oneofs].sort((a, b) => lowest.get(a)! - lowest.get(b)!);
  const oneofIndex = new Map<DescOneof, number>();
  real.forEach((o, i) => oneofIndex.set(o, i));
  const taken = new Set<string>();
  for (const f of m.fields) taken.add(f.name);
  for (const o of real) taken.add(o.name);
  const synthetic: string[] = [];
  const syntheticIndex = new Map<DescField, number>();
  for (const f of fields) {
    if (!f.proto.proto3Optional) continue;
    // protoc: prefix `_`, then prepend `X` until the name is free.
    let name = f.name.startsWith("_") ? f.name : `_${f.name}`;
    while (taken.has(name)) name = `X${name}`;
    taken.add(name);
    syntheticIndex.set(f, real.length + synthetic.length);
    synthetic.push(name);
  }
  out.oneofDecl = [...real.map((o) => o.name), ...synthetic].map((name) => create(OneofDescriptorProtoSchema, { name }));
  out.field = fields.map((f) => {
    const fp = fieldProto(m, f);
    const idx = f.oneof !== undefined ? oneofIndex.get(f.oneof) : syntheticIndex.get(f);
    if (idx !== undefined) fp.oneofIndex = idx;
    return fp;
  });

  for (const r of reservedRangesOf(m)) {
    out.reservedRange.push(create(DescriptorProto_ReservedRangeSchema, { start: r[0], end: r[1] + 1 }));
  }
  out.reservedName = uniqueSorted(m.proto.reservedName);
  if (m.deprecated) out.options = create(MessageOptionsSchema, { deprecated: true });
  return out;
}

function fieldProto(parent: DescMessage, f: DescField): FieldDescriptorProto {
  const out = create(FieldDescriptorProtoSchema, {
    name: f.name,
    number: f.number,
    label: f.fieldKind === "list" || f.fieldKind === "map" ? Label.REPEATED : Label.OPTIONAL,
    jsonName: jsonNameOf(f),
  });
  switch (f.fieldKind) {
    case "scalar":
      out.type = f.scalar as number as FieldType;
      break;
    case "enum":
      out.type = FieldType.ENUM;
      out.typeName = `.${f.enum.typeName}`;
      break;
    case "message":
      out.type = FieldType.MESSAGE;
      out.typeName = `.${f.message.typeName}`;
      break;
    case "list":
      if (f.listKind === "scalar") out.type = f.scalar as number as FieldType;
      else if (f.listKind === "enum") {
        out.type = FieldType.ENUM;
        out.typeName = `.${f.enum.typeName}`;
      } else {
        out.type = FieldType.MESSAGE;
        out.typeName = `.${f.message.typeName}`;
      }
      break;
    case "map":
      out.type = FieldType.MESSAGE;
      out.typeName = `.${parent.typeName}.${mapEntryName(f.name)}`;
      break;
  }
  if (f.proto.proto3Optional) out.proto3Optional = true;
  const options: { packed?: boolean; jstype?: FieldOptions_JSType; deprecated?: boolean } = {};
  // Packed is the proto3 default for numeric repeated fields, so only `packed = false` is content.
  if (f.fieldKind === "list" && f.listKind !== "message" && !f.packed && isPackable(out.type)) options.packed = false;
  const jstype = f.proto.options?.jstype;
  if (jstype !== undefined && jstype !== FieldOptions_JSType.JS_NORMAL) options.jstype = jstype;
  if (f.deprecated) options.deprecated = true;
  if (Object.keys(options).length > 0) {
    out.options = create(FieldOptionsSchema, options);
  }
  return out;
}

function isPackable(t: FieldType): boolean {
  return t !== FieldType.STRING && t !== FieldType.BYTES && t !== FieldType.MESSAGE && t !== FieldType.GROUP;
}

function mapEntryProto(f: DescField & { fieldKind: "map" }): DescriptorProto {
  const key = create(FieldDescriptorProtoSchema, {
    name: "key",
    number: 1,
    label: Label.OPTIONAL,
    type: f.mapKey as number as FieldType,
    jsonName: "key",
  });
  const value = create(FieldDescriptorProtoSchema, { name: "value", number: 2, label: Label.OPTIONAL, jsonName: "value" });
  if (f.mapKind === "scalar") value.type = f.scalar as number as FieldType;
  else if (f.mapKind === "enum") {
    value.type = FieldType.ENUM;
    value.typeName = `.${f.enum.typeName}`;
  } else {
    value.type = FieldType.MESSAGE;
    value.typeName = `.${f.message.typeName}`;
  }
  const entry = create(DescriptorProtoSchema, { name: mapEntryName(f.name), field: [key, value] });
  entry.options = create(MessageOptionsSchema, { mapEntry: true });
  return entry;
}

// --- enums ---

function enumProto(e: DescEnum): EnumDescriptorProto {
  const out = create(EnumDescriptorProtoSchema, { name: e.name });
  // Declaration order is content: the first value with a number is its primary alias.
  out.value = e.values.map((v) => {
    const value = create(EnumValueDescriptorProtoSchema, { name: v.name, number: v.number });
    if (v.deprecated) value.options = create(EnumValueOptionsSchema, { deprecated: true });
    return value;
  });
  for (const r of reservedRangesOf(e)) {
    out.reservedRange.push(create(EnumDescriptorProto_EnumReservedRangeSchema, { start: r[0], end: r[1] }));
  }
  out.reservedName = uniqueSorted(e.proto.reservedName);
  const options: { allowAlias?: boolean; deprecated?: boolean } = {};
  if (e.proto.options?.allowAlias === true) options.allowAlias = true;
  if (e.deprecated) options.deprecated = true;
  if (Object.keys(options).length > 0) {
    out.options = create(EnumOptionsSchema, options);
  }
  return out;
}

// --- reserved ---

/**
 * A message's or enum's reserved numbers as sorted, merged inclusive ranges (message ranges end
 * exclusive in the descriptor, enum ranges inclusive).
 */
export function reservedRangesOf(desc: DescMessage | DescEnum): Array<[number, number]> {
  const endShift = desc.kind === "message" ? 1 : 0;
  return mergeRanges(desc.proto.reservedRange.map((r) => [r.start, r.end - endShift] as const));
}

/** Sorts inclusive ranges and merges overlapping or adjacent ones. */
export function mergeRanges(ranges: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: Array<[number, number]> = [];
  for (const [from, to] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

/** The index of the sorted, merged inclusive range holding `n`, or -1. */
export function rangeHolding(ranges: ReadonlyArray<readonly [number, number]>, n: number): number {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const [from, to] = ranges[mid]!;
    if (n < from) hi = mid - 1;
    else if (n > to) lo = mid + 1;
    else return mid;
  }
  return -1;
}

function uniqueSorted(names: readonly string[]): string[] {
  return [...new Set(names)].sort(compareNames);
}
