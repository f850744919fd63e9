// Normalization version 1 (DESIGN §4.3): equal schema content gives identical bytes, whatever
// the input's file layout, declaration order, file options or custom options.
import { create, isFieldSet, toBinary, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
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
import { mapEntryName, protocJsonName } from "./names.js";
import { invalid } from "./rules.js";

export const NORMALIZATION_VERSION = 1;
/** The snapshot format's fixed limit on the normalized set (DESIGN §10.2 item 5). */
export const MAX_NORMALIZED_BYTES = 64 * 1024 * 1024;

export const NormalizeCode = {
  CYCLE_SPANS_PACKAGES: "CYCLE_SPANS_PACKAGES",
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
  const bytes = toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: files }), {
    writeUnknownFields: false,
  });
  const root = closure.root.typeName;
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
  return bytes;
}

/** Lowercase hex SHA-256 of normalized bytes: the schema fingerprint. */
export function fingerprintOf(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}

// --- files: one per strongly connected component of top-level declarations ---

function packageOf(d: Decl): string {
  return d.file.proto.package;
}

/** Tarjan's algorithm; components come out in reverse topological order of the condensation. */
export function stronglyConnected<T>(nodes: readonly T[], next: (n: T) => Iterable<T>): T[][] {
  const index = new Map<T, number>();
  const low = new Map<T, number>();
  const onStack = new Set<T>();
  const stack: T[] = [];
  const out: T[][] = [];
  let counter = 0;
  // Iterative, so a long chain of references cannot overflow the call stack.
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: Array<{ node: T; it: Iterator<T> }> = [];
    const enter = (n: T): void => {
      index.set(n, counter);
      low.set(n, counter);
      counter++;
      stack.push(n);
      onStack.add(n);
      work.push({ node: n, it: next(n)[Symbol.iterator]() });
    };
    enter(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const step = frame.it.next();
      if (!step.done) {
        const w = step.value;
        if (!index.has(w)) enter(w);
        else if (onStack.has(w)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(w)!));
        continue;
      }
      work.pop();
      const v = frame.node;
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(v)!));
      }
      if (low.get(v) === index.get(v)) {
        const comp: T[] = [];
        let w: T;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          comp.push(w);
        } while (w !== v);
        out.push(comp);
      }
    }
  }
  return out;
}

export interface FileGroup<T> {
  readonly name: string;
  readonly members: readonly T[];
  readonly dependencies: readonly string[];
}

/**
 * Groups top-level declarations into files, one per strongly connected component, named after
 * its smallest full name, in dependency order with ties by name. Throws when a component spans
 * packages (one file has one package). Shared with the protobufjs lowering.
 */
export function groupIntoFiles<T>(
  rootName: string,
  tops: readonly T[],
  fullName: (t: T) => string,
  packageName: (t: T) => string,
  refs: (t: T) => Iterable<T>,
): FileGroup<T>[] {
  const comps = stronglyConnected(tops, refs);
  const fileOf = new Map<T, string>();
  const groups = new Map<string, { members: T[]; deps: Set<string> }>();
  for (const comp of comps) {
    comp.sort((a, b) => compareNames(fullName(a), fullName(b)));
    const pkg = packageName(comp[0]!);
    const other = comp.find((t) => packageName(t) !== pkg);
    if (other !== undefined) {
      throw invalid(
        rootName,
        NormalizeCode.CYCLE_SPANS_PACKAGES,
        `${fullName(comp[0]!)} and ${fullName(other)} reference each other across packages ${pkg || "(none)"} and ${packageName(other) || "(none)"}; move mutually recursive types into one package`,
      );
    }
    const name = `${fullName(comp[0]!)}.proto`;
    for (const t of comp) fileOf.set(t, name);
    groups.set(name, { members: comp, deps: new Set() });
  }
  for (const [name, g] of groups) {
    for (const t of g.members) {
      for (const r of refs(t)) {
        const dep = fileOf.get(r)!;
        if (dep !== name) g.deps.add(dep);
      }
    }
  }
  // Kahn's algorithm, always taking the smallest ready name: a total, input-independent order.
  const remaining = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const [name, g] of groups) {
    remaining.set(name, g.deps.size);
    for (const d of g.deps) {
      const list = dependents.get(d);
      if (list) list.push(name);
      else dependents.set(d, [name]);
    }
  }
  const ready = [...remaining].filter(([, n]) => n === 0).map(([name]) => name);
  const out: FileGroup<T>[] = [];
  while (ready.length > 0) {
    ready.sort(compareNames);
    const name = ready.shift()!;
    const g = groups.get(name)!;
    out.push({ name, members: g.members, dependencies: [...g.deps].sort(compareNames) });
    for (const dep of dependents.get(name) ?? []) {
      const left = remaining.get(dep)! - 1;
      remaining.set(dep, left);
      if (left === 0) ready.push(dep);
    }
  }
  return out;
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

function messageProto(m: DescMessage): DescriptorProto {
  const fields = [...m.fields].sort((a, b) => a.number - b.number);
  const out = create(DescriptorProtoSchema, { name: m.name });
  const nested: DescriptorProto[] = m.nestedMessages.filter((n) => !isMapEntry(n)).map(messageProto);
  for (const f of fields) {
    if (f.fieldKind === "map") nested.push(mapEntryProto(f));
  }
  nested.sort((a, b) => compareNames(a.name, b.name));
  out.nestedType = nested;
  out.enumType = sortByName(m.nestedEnums).map(enumProto);

  // Real oneofs by their lowest member number, then the synthetic oneofs of proto3 `optional`.
  const real = [...m.oneofs].sort(
    (a, b) => Math.min(...a.fields.map((f) => f.number)) - Math.min(...b.fields.map((f) => f.number)),
  );
  const oneofIndex = new Map<string, number>();
  real.forEach((o, i) => oneofIndex.set(o.name, i));
  const taken = new Set<string>([...m.fields.map((f) => f.name), ...real.map((o) => o.name)]);
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
    const idx = f.oneof !== undefined ? oneofIndex.get(f.oneof.name) : syntheticIndex.get(f);
    if (idx !== undefined) fp.oneofIndex = idx;
    return fp;
  });

  for (const r of mergeRanges(m.proto.reservedRange.map((r) => [r.start, r.end - 1] as const))) {
    out.reservedRange.push(create(DescriptorProto_ReservedRangeSchema, { start: r[0], end: r[1] + 1 }));
  }
  out.reservedName = uniqueSorted(m.proto.reservedName);
  if (m.deprecated) out.options = create(MessageOptionsSchema, { deprecated: true });
  return out;
}

function jsonNameOf(f: DescField): string {
  return isFieldSet(f.proto, FieldDescriptorProtoSchema.field.jsonName) ? f.proto.jsonName : protocJsonName(f.name);
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
  // Enum reserved ranges are inclusive at both ends.
  for (const r of mergeRanges(e.proto.reservedRange.map((r) => [r.start, r.end] as const))) {
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

function uniqueSorted(names: readonly string[]): string[] {
  return [...new Set(names)].sort(compareNames);
}
