// fast-check arbitraries of valid proto3 schemas (issue 11, "Random schemas"): FileDescriptorSets
// of one to three files in several packages with imports, covering nested types, self and mutual
// recursion, oneofs (up to hundreds of members), maps of every key type with scalar, enum and
// message values, empty messages, long chains of types (hundreds), high and sparse field numbers
// (up to 536,870,911, never 19000-19999), proto3 `optional`, packed, `[packed=true]` and
// `[packed=false]` repeated fields, enums (first value 0, negative values), `jstype` JS_STRING and
// JS_NUMBER on 64-bit fields, and reserved numbers and names.
//
// A sample is a plan (plain data, so fast-check shrinks it) turned into descriptors by a pure
// function: every message, enum and field number a plan names is resolved modulo what exists, so
// any shrunk plan is still a valid schema. `evolveSchema` derives another version of a schema
// (fields added with fresh numbers, or removed with their numbers reserved).
import { create, createFileRegistry, type DescMessage, type FileRegistry, type MessageInitShape } from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Label as L,
  FieldDescriptorProto_Type as T,
  FieldOptions_JSType as JS,
  FileDescriptorSetSchema,
  type DescriptorProtoSchema,
  type EnumDescriptorProtoSchema,
  type FieldDescriptorProtoSchema,
  type FileDescriptorProtoSchema,
  type FileDescriptorSet,
} from "@bufbuild/protobuf/wkt";
import fc from "fast-check";

type FileInit = MessageInitShape<typeof FileDescriptorProtoSchema>;
type MsgInit = MessageInitShape<typeof DescriptorProtoSchema>;
type FieldInit = MessageInitShape<typeof FieldDescriptorProtoSchema>;
type EnumInit = MessageInitShape<typeof EnumDescriptorProtoSchema>;

export const MAX_FIELD_NUMBER = 536_870_911;

/** Scalar field types, in the order of FieldDescriptorProto.Type. */
export const SCALAR_TYPES = [
  T.DOUBLE, T.FLOAT, T.INT64, T.UINT64, T.INT32, T.FIXED64, T.FIXED32, T.BOOL,
  T.STRING, T.BYTES, T.UINT32, T.SFIXED32, T.SFIXED64, T.SINT32, T.SINT64,
] as const;
/** Every map key type protobuf allows. */
export const MAP_KEY_TYPES = [
  T.INT32, T.INT64, T.UINT32, T.UINT64, T.SINT32, T.SINT64,
  T.FIXED32, T.FIXED64, T.SFIXED32, T.SFIXED64, T.BOOL, T.STRING,
] as const;
const LONG_TYPES: readonly T[] = [T.INT64, T.UINT64, T.SINT64, T.FIXED64, T.SFIXED64];
const PACKABLE = (t: T) => t !== T.STRING && t !== T.BYTES && t !== T.MESSAGE;

// --- plans ---

/** What a field holds: a scalar type, or the i-th enum / message visible from its file (modulo). */
export type TypePlan = { readonly s: T } | { readonly e: number } | { readonly m: number };

export interface FieldPlan {
  readonly shape: "plain" | "optional" | "repeated" | "map" | "oneof";
  readonly type: TypePlan;
  /** Map key type (maps only). */
  readonly key: (typeof MAP_KEY_TYPES)[number];
  /** Candidate number: moved out of 19000-19999 and past numbers already taken. */
  readonly num: number;
  /** Repeated packable fields: 0 default (packed), 1 `[packed=true]`, 2 `[packed=false]`. */
  readonly packed: 0 | 1 | 2;
  /** 64-bit scalars outside maps: 0 JS_NORMAL (unset), 1 JS_STRING, 2 JS_NUMBER. */
  readonly jstype: 0 | 1 | 2;
  /** Oneof members: which of the message's oneofs (modulo). */
  readonly oneof: number;
}

export interface EnumPlan {
  /** Values after the first (0): distinct numbers, negative ones included. */
  readonly values: readonly number[];
}

export interface MessagePlan {
  readonly fields: readonly FieldPlan[];
  readonly oneofs: number;
  readonly nested: readonly MessagePlan[];
  readonly enums: readonly EnumPlan[];
  /** Candidate reserved numbers (those a field took are skipped). */
  readonly reserved: readonly number[];
  /** A oneof with this many generated members (0: none), for very wide oneofs. */
  readonly wideOneof: number;
}

export interface FilePlan {
  readonly pkg: number;
  readonly messages: readonly MessagePlan[];
  readonly enums: readonly EnumPlan[];
}

export interface SchemaPlan {
  readonly files: readonly FilePlan[];
  /** A chain of this many message types C0 -> C1 -> ... in the last file, the last back to C0. */
  readonly chain: number;
}

const PACKAGES = ["pk", "pk.sub", "other.v1", ""] as const;

// --- arbitraries ---

const fieldNumberArb: fc.Arbitrary<number> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 20 }) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 5000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: MAX_FIELD_NUMBER }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(15, 16, 2047, 2048, 18_999, 19_000, 19_999, 20_000, 262_143, 262_144, 33_554_431, 33_554_432, MAX_FIELD_NUMBER - 1, MAX_FIELD_NUMBER),
  },
);

const typePlanArb: fc.Arbitrary<TypePlan> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...SCALAR_TYPES).map((s) => ({ s })) },
  { weight: 2, arbitrary: fc.nat(50).map((e) => ({ e })) },
  { weight: 3, arbitrary: fc.nat(50).map((m) => ({ m })) },
);

export const fieldPlanArb: fc.Arbitrary<FieldPlan> = fc.record({
  shape: fc.constantFrom("plain", "plain", "optional", "repeated", "map", "oneof"),
  type: typePlanArb,
  key: fc.constantFrom(...MAP_KEY_TYPES),
  num: fieldNumberArb,
  packed: fc.constantFrom(0, 1, 2),
  jstype: fc.constantFrom(0, 0, 1, 2),
  oneof: fc.nat(3),
});

const enumValueArb = fc.oneof(
  fc.integer({ min: -5, max: 10 }),
  fc.integer({ min: -2147483648, max: 2147483647 }),
  fc.constantFrom(-2147483648, 2147483647, -1),
);
export const enumPlanArb: fc.Arbitrary<EnumPlan> = fc.record({
  values: fc.uniqueArray(enumValueArb.filter((v) => v !== 0), { maxLength: 5 }),
});

export interface SchemaArbOptions {
  /** Most fields per message. Defaults to 8. */
  maxFields?: number;
  /** Most top-level messages per file. Defaults to 3. */
  maxMessages?: number;
  /** Most files. Defaults to 3. */
  maxFiles?: number;
  /** Weight of a very wide oneof (100-400 members) in a message. Defaults to 0 (never). */
  wideOneofWeight?: number;
  /** Weight of a long chain (100-400 types). Defaults to 0 (never). */
  chainWeight?: number;
  /** Declare every message's fields in number order (as @bufbuild/protobuf writes them). */
  sortedFields?: boolean;
}

function messagePlanArb(o: Required<SchemaArbOptions>): fc.Arbitrary<MessagePlan> {
  const leaf = (nested: fc.Arbitrary<MessagePlan[]>) =>
    fc.record({
      fields: fc.oneof({ weight: 1, arbitrary: fc.constant([]) }, { weight: 5, arbitrary: fc.array(fieldPlanArb, { maxLength: o.maxFields }) }),
      oneofs: fc.integer({ min: 1, max: 3 }),
      nested,
      enums: fc.array(enumPlanArb, { maxLength: 1 }),
      reserved: fc.array(fieldNumberArb, { maxLength: 2 }),
      wideOneof: o.wideOneofWeight > 0
        ? fc.oneof({ weight: 10, arbitrary: fc.constant(0) }, { weight: o.wideOneofWeight, arbitrary: fc.integer({ min: 100, max: 400 }) })
        : fc.constant(0),
    });
  const inner = leaf(fc.constant([]));
  return leaf(fc.array(inner, { maxLength: 2 }));
}

/** Plans of valid proto3 schemas. */
export function schemaPlanArb(options: SchemaArbOptions = {}): fc.Arbitrary<SchemaPlan> {
  const o: Required<SchemaArbOptions> = {
    sortedFields: false,
    maxFields: options.maxFields ?? 8,
    maxMessages: options.maxMessages ?? 3,
    maxFiles: options.maxFiles ?? 3,
    wideOneofWeight: options.wideOneofWeight ?? 0,
    chainWeight: options.chainWeight ?? 0,
  };
  const file = fc.record({
    pkg: fc.nat(PACKAGES.length - 1),
    messages: fc.array(messagePlanArb(o), { minLength: 1, maxLength: o.maxMessages }),
    enums: fc.array(enumPlanArb, { maxLength: 2 }),
  });
  return fc.record({
    files: fc.array(file, { minLength: 1, maxLength: o.maxFiles }),
    chain: o.chainWeight > 0
      ? fc.oneof({ weight: 10, arbitrary: fc.constant(0) }, { weight: o.chainWeight, arbitrary: fc.integer({ min: 100, max: 400 }) })
      : fc.constant(0),
  });
}

// --- building descriptors from a plan ---

export interface Schema {
  readonly plan: SchemaPlan;
  readonly sortedFields: boolean;
  /** The FileDescriptorSet, as @bufbuild/protobuf message (files in import order). */
  readonly set: FileDescriptorSet;
  readonly registry: FileRegistry;
  readonly root: DescMessage;
  /** Full names of every message type (map entries excluded), in declaration order. */
  readonly messageNames: readonly string[];
}

interface Decl {
  readonly full: string;
  readonly file: number;
}

/** Numbers a message uses, fixed up from candidates. */
class Numbers {
  readonly used = new Set<number>();
  take(candidate: number): number {
    let n = Math.min(Math.max(1, Math.trunc(candidate)), MAX_FIELD_NUMBER);
    if (n >= 19_000 && n <= 19_999) n = 20_000 + (n - 19_000);
    while (this.used.has(n)) n = n >= MAX_FIELD_NUMBER ? 1 : n === 18_999 ? 20_000 : n + 1;
    this.used.add(n);
    return n;
  }
}

/** protoc's json_name: drop underscores, capitalize the letter after each. */
export function jsonNameOf(name: string): string {
  return name.replace(/_+([a-z0-9]?)/g, (_m, c: string) => c.toUpperCase());
}

function camel(name: string): string {
  const j = jsonNameOf(name);
  return j.charAt(0).toUpperCase() + j.slice(1);
}

function ref(full: string): string {
  return `.${full}`;
}

/** Builds the files of a plan. Exposed for `evolveSchema`, which edits the plain inits. */
function buildFiles(plan: SchemaPlan, sortedFields: boolean): { files: FileInit[]; messageNames: string[]; root: string } {
  let counter = 0;
  const messages: Decl[] = [];
  const enums: Decl[] = [];
  const prefixOf = (f: FilePlan) => (PACKAGES[f.pkg % PACKAGES.length] ? `${PACKAGES[f.pkg % PACKAGES.length]}.` : "");
  // Pass 1: names of every message and enum (declaration order, nested ones after their parent).
  const msgNames = new Map<MessagePlan, string>();
  const enumNames = new Map<EnumPlan, string>();
  const nameEnum = (e: EnumPlan, scope: string, file: number) => {
    const full = `${scope}E${counter++}`;
    enumNames.set(e, full);
    enums.push({ full, file });
  };
  const nameMessage = (m: MessagePlan, scope: string, file: number) => {
    const full = `${scope}M${counter++}`;
    msgNames.set(m, full);
    messages.push({ full, file });
    for (const e of m.enums) nameEnum(e, `${full}.`, file);
    for (const n of m.nested) nameMessage(n, `${full}.`, file);
  };
  plan.files.forEach((f, i) => {
    for (const e of f.enums) nameEnum(e, prefixOf(f), i);
    for (const m of f.messages) nameMessage(m, prefixOf(f), i);
  });
  const lastFile = plan.files.length - 1;
  const chainNames: string[] = [];
  for (let i = 0; i < plan.chain; i++) {
    const full = `${prefixOf(plan.files[lastFile]!)}C${i}`;
    chainNames.push(full);
    messages.push({ full, file: lastFile });
  }

  const deps = plan.files.map(() => new Set<number>());
  const visible = <D extends Decl>(all: readonly D[], file: number) => all.filter((d) => d.file <= file);
  const use = (file: number, d: Decl) => {
    if (d.file !== file) deps[file]!.add(d.file);
    return ref(d.full);
  };

  const enumInit = (e: EnumPlan): EnumInit => {
    const full = enumNames.get(e)!;
    const short = full.slice(full.lastIndexOf(".") + 1);
    return {
      name: short,
      value: [0, ...e.values].map((number, j) => ({ name: `${short}_V${j}`, number })),
    };
  };

  const messageInit = (m: MessagePlan, file: number): MsgInit => {
    const full = msgNames.get(m)!;
    const short = full.slice(full.lastIndexOf(".") + 1);
    const nums = new Numbers();
    const fields: FieldInit[] = [];
    const nestedTypes: MsgInit[] = m.nested.map((n) => messageInit(n, file));
    const visMessages = visible(messages, file);
    const visEnums = visible(enums, file);
    // Real oneofs first (protoc puts synthetic ones after them); empty ones are dropped below.
    const oneofMembers: FieldInit[][] = Array.from({ length: Math.max(1, m.oneofs) }, () => []);
    const typed = (t: TypePlan, f: FieldInit): FieldInit => {
      if ("s" in t) return { ...f, type: t.s };
      if ("e" in t && visEnums.length > 0) return { ...f, type: T.ENUM, typeName: use(file, visEnums[t.e % visEnums.length]!) };
      if ("m" in t) return { ...f, type: T.MESSAGE, typeName: use(file, visMessages[t.m % visMessages.length]!) };
      return { ...f, type: T.INT32 };
    };
    const optionsFor = (f: FieldInit, p: FieldPlan, repeated: boolean): FieldInit => {
      const options: { packed?: boolean; jstype?: JS } = {};
      if (repeated && PACKABLE(f.type as T) && f.type !== undefined && p.packed !== 0) options.packed = p.packed === 1;
      if (LONG_TYPES.includes(f.type as T) && p.jstype !== 0) options.jstype = p.jstype === 1 ? JS.JS_STRING : JS.JS_NUMBER;
      return Object.keys(options).length > 0 ? ({ ...f, options } as FieldInit) : f;
    };
    for (const p of m.fields) {
      const number = nums.take(p.num);
      const name = `f_${number}`;
      const base: FieldInit = { name, number, jsonName: jsonNameOf(name), label: L.OPTIONAL };
      switch (p.shape) {
        case "plain":
          fields.push(optionsFor(typed(p.type, base), p, false));
          break;
        case "optional": {
          const f = typed(p.type, base);
          // proto3 `optional` on a scalar or enum; a message field has explicit presence anyway.
          fields.push(f.type === T.MESSAGE ? f : { ...optionsFor(f, p, false), proto3Optional: true });
          break;
        }
        case "repeated":
          fields.push(optionsFor(typed(p.type, { ...base, label: L.REPEATED }), p, true));
          break;
        case "oneof": {
          const f = optionsFor(typed(p.type, base), p, false);
          oneofMembers[p.oneof % oneofMembers.length]!.push(f);
          fields.push(f);
          break;
        }
        case "map": {
          const entry = `${camel(name)}Entry`;
          const value = typed(p.type, { name: "value", number: 2, jsonName: "value", label: L.OPTIONAL });
          nestedTypes.push({
            name: entry,
            field: [{ name: "key", number: 1, jsonName: "key", label: L.OPTIONAL, type: p.key }, value],
            options: { mapEntry: true },
          });
          fields.push({ ...base, label: L.REPEATED, type: T.MESSAGE, typeName: ref(`${full}.${entry}`) });
          break;
        }
      }
    }
    const wide: FieldInit[] = [];
    for (let i = 0; i < m.wideOneof; i++) {
      const number = nums.take(1);
      const name = `w_${number}`;
      const t: TypePlan = i % 5 === 4 ? { m: i } : i % 7 === 6 ? { e: i } : { s: SCALAR_TYPES[i % SCALAR_TYPES.length]! };
      wide.push(typed(t, { name, number, jsonName: jsonNameOf(name), label: L.OPTIONAL }));
    }
    const oneofDecl: { name: string }[] = [];
    const assign = (members: FieldInit[], name: string) => {
      if (members.length === 0) return;
      const index = oneofDecl.length;
      oneofDecl.push({ name });
      for (const f of members) f.oneofIndex = index;
    };
    // The members were pushed into `fields` by reference: set their index in place.
    oneofMembers.forEach((members, k) => assign(members, `o_${k}`));
    fields.push(...wide);
    assign(wide, "wide");
    for (const f of fields) if (f.proto3Optional) assign([f], `_${f.name}`);
    if (sortedFields) fields.sort((a, b) => a.number! - b.number!);
    const reservedRange = m.reserved
      .map((n) => Math.min(Math.max(1, n), MAX_FIELD_NUMBER))
      .filter((n) => !nums.used.has(n) && (n < 19_000 || n > 19_999))
      .filter((n, i, a) => a.indexOf(n) === i)
      .map((n) => ({ start: n, end: n + 1 }));
    const reservedName = reservedRange.length > 0 ? [`gone_${reservedRange[0]!.start}`] : [];
    return { name: short, field: fields, nestedType: nestedTypes, enumType: m.enums.map(enumInit), oneofDecl, reservedRange, reservedName };
  };

  const files: FileInit[] = plan.files.map((f, i) => {
    const pkg = PACKAGES[f.pkg % PACKAGES.length]!;
    const messageType = f.messages.map((m) => messageInit(m, i));
    return {
      name: `${pkg ? pkg.replaceAll(".", "/") : "root"}/f${i}.proto`,
      package: pkg || undefined,
      syntax: "proto3",
      enumType: f.enums.map(enumInit),
      messageType,
    } as FileInit;
  });
  // The chain: C_i { C_{i+1} next = 1; int32 v = 2; }, the last one's next is C0 (recursion).
  const chainFile = files[lastFile]!;
  chainNames.forEach((full, i) => {
    const next = chainNames[(i + 1) % chainNames.length]!;
    (chainFile.messageType as MsgInit[]).push({
      name: full.slice(full.lastIndexOf(".") + 1),
      field: [
        { name: "next", number: 1, jsonName: "next", label: L.OPTIONAL, type: T.MESSAGE, typeName: ref(next) },
        { name: "v", number: 2, jsonName: "v", label: L.OPTIONAL, type: T.INT32 },
      ],
    });
  });
  files.forEach((f, i) => {
    f.dependency = [...deps[i]!].sort((a, b) => a - b).map((d) => files[d]!.name!);
  });
  // The root: the first message of the last file, with a field into the chain when there is one.
  const rootFile = plan.files[lastFile]!;
  const rootName = msgNames.get(rootFile.messages[0]!)!;
  if (chainNames.length > 0) {
    const root = (chainFile.messageType as MsgInit[])[0]!;
    // Neither a field's number nor a reserved one (protoc refuses a field in a reserved range).
    const nums = new Set((root.field ?? []).map((f) => f.number));
    for (const r of root.reservedRange ?? []) for (let k = r.start!; k < r.end!; k++) nums.add(k);
    let n = 1;
    while (nums.has(n)) n++;
    root.field = [...(root.field ?? []), { name: `chain_${n}`, number: n, jsonName: `chain${n}`, label: L.OPTIONAL, type: T.MESSAGE, typeName: ref(chainNames[0]!) }];
  }
  return { files, messageNames: messages.map((d) => d.full), root: rootName };
}

function schemaOf(plan: SchemaPlan, sortedFields: boolean, files: FileInit[], messageNames: readonly string[], rootName: string): Schema {
  const set = create(FileDescriptorSetSchema, { file: files });
  const registry = createFileRegistry(set);
  const root = registry.getMessage(rootName);
  if (root === undefined) throw new Error(`generated schema has no root ${rootName}`);
  // fast-check prints a counterexample's plan and root, not the registry.
  const toString = () => `Schema(root ${rootName}, plan ${JSON.stringify(plan)}${sortedFields ? ", sorted fields" : ""})`;
  return { plan, sortedFields, set, registry, root, messageNames, [fc.toStringMethod]: toString } as Schema;
}

/** The schema of a plan. */
export function buildSchema(plan: SchemaPlan, sortedFields = false): Schema {
  const { files, messageNames, root } = buildFiles(plan, sortedFields);
  return schemaOf(plan, sortedFields, files, messageNames, root);
}

/** Arbitrary valid proto3 schemas. */
export function schemaArb(options: SchemaArbOptions = {}): fc.Arbitrary<Schema> {
  return schemaPlanArb(options).map((plan) => buildSchema(plan, options.sortedFields ?? false));
}

/** Another registry over the same files: descriptors equal in content, distinct instances. */
export function sameSchemaAgain(s: Schema): Schema {
  const registry = createFileRegistry(s.set);
  return { ...s, registry, root: registry.getMessage(s.root.typeName)! };
}

// --- versions ---

export interface EvolvePlan {
  /** Fields added to messages (chosen modulo the message count) with fresh numbers. */
  readonly add: readonly { readonly message: number; readonly field: FieldPlan }[];
  /** Fields removed (message, field index, both modulo), their numbers and names reserved. */
  readonly remove: readonly { readonly message: number; readonly field: number }[];
}

export const evolvePlanArb: fc.Arbitrary<EvolvePlan> = fc.record({
  add: fc.array(fc.record({ message: fc.nat(20), field: fieldPlanArb }), { maxLength: 4 }),
  remove: fc.array(fc.record({ message: fc.nat(20), field: fc.nat(20) }), { maxLength: 3 }),
});

/**
 * The next version of a schema: `add` gives new fields (plain, optional, repeated or map shapes;
 * a oneof shape is added as a plain field) with numbers no version used or reserved; `remove`
 * drops fields and reserves their numbers and names, as a careful schema author does. The plan's
 * message types and names stay; the result is a compatible evolution (docs/design.md §9) of `s`.
 */
export function evolveSchema(s: Schema, e: EvolvePlan): Schema {
  const { files, messageNames, root } = buildFiles(s.plan, s.sortedFields);
  // Every message init by full name (map entries and the chain included, as declared).
  const byName = new Map<string, { init: MsgInit; file: number }>();
  const walk = (m: MsgInit, scope: string, file: number) => {
    const full = `${scope}${m.name}`;
    byName.set(full, { init: m, file });
    for (const n of m.nestedType ?? []) walk(n as MsgInit, `${full}.`, file);
  };
  files.forEach((f, i) => {
    for (const m of f.messageType ?? []) walk(m as MsgInit, f.package ? `${f.package}.` : "", i);
  });
  const targets = messageNames.filter((n) => byName.has(n));
  for (const r of e.remove) {
    const m = byName.get(targets[r.message % targets.length]!)!.init;
    const fields = (m.field ?? []) as FieldInit[];
    if (fields.length === 0) continue;
    const [gone] = fields.splice(r.field % fields.length, 1);
    m.reservedRange = [...(m.reservedRange ?? []), { start: gone!.number!, end: gone!.number! + 1 }];
    m.reservedName = [...(m.reservedName ?? []), gone!.name!];
    // A proto3 optional field takes its synthetic oneof with it; a oneof left empty goes too.
    if (gone!.oneofIndex !== undefined) dropEmptyOneofs(m);
  }
  for (const a of e.add) {
    const full = targets[a.message % targets.length]!;
    const { init: m, file } = byName.get(full)!;
    const taken = new Numbers();
    for (const f of (m.field ?? []) as FieldInit[]) taken.used.add(f.number!);
    for (const r of m.reservedRange ?? []) for (let n = r.start!; n < r.end!; n++) taken.used.add(n);
    const number = taken.take(a.field.num);
    const name = `f_${number}`;
    const field: FieldInit = { name, number, jsonName: jsonNameOf(name), label: a.field.shape === "repeated" ? L.REPEATED : L.OPTIONAL };
    const visible = messageNames.filter((n) => byName.get(n)!.file <= file);
    const t = a.field.type;
    if ("m" in t) {
      const target = visible[t.m % visible.length]!;
      const tf = byName.get(target)!.file;
      if (tf !== file && !files[file]!.dependency!.includes(files[tf]!.name!)) files[file]!.dependency!.push(files[tf]!.name!);
      Object.assign(field, { type: T.MESSAGE, typeName: ref(target) });
    } else Object.assign(field, { type: "s" in t ? t.s : T.INT64 });
    if (a.field.shape === "optional" && field.type !== T.MESSAGE) {
      field.proto3Optional = true;
      m.oneofDecl = [...(m.oneofDecl ?? []), { name: `_${name}` }];
      field.oneofIndex = m.oneofDecl.length - 1;
    }
    m.field = [...(m.field ?? []), field];
  }
  return schemaOf(s.plan, s.sortedFields, files, messageNames, root);
}

/** Removes the oneofs no field refers to and renumbers the others' indexes. */
function dropEmptyOneofs(m: MsgInit): void {
  const fields = (m.field ?? []) as FieldInit[];
  const decls = m.oneofDecl ?? [];
  const map = new Map<number, number>();
  const kept: typeof decls = [];
  decls.forEach((d, i) => {
    if (fields.some((f) => f.oneofIndex === i)) {
      map.set(i, kept.length);
      kept.push(d);
    }
  });
  for (const f of fields) if (f.oneofIndex !== undefined) f.oneofIndex = map.get(f.oneofIndex)!;
  m.oneofDecl = kept;
}
