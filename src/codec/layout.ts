// Compiles a DescMessage into the flat layout table the WASM walker reads (format in
// assembly/table.ts). One layout per descriptor instance, cached in a WeakMap and registered
// before its fields are compiled, so recursive types terminate. Map fields get a synthetic
// entry type (key = field 1, value = field 2), cached per map field.
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { InvalidDescriptorError } from "../errors.js";
import {
  A_MESSAGE, A_PACKABLE, A_REPEATED, A_SLOT_SHIFT, A_STRING, A_WIRE_SHIFT, DENSE_ENTRY_WORDS,
  K_BYTES, K_ENUM, K_MESSAGE, K_STRING, MAX_SLOTS, SPARSE_ENTRY_WORDS, T_DENSE_MAX,
  T_HEADER_WORDS, T_SLOTS, T_SPARSE_COUNT, T_WORDS, allocTypeRecord, wireTypeOf, writeTypeRecord,
} from "../wasm/table.js";

const MAX_FIELD_NUMBER = 536870911;

/** One field of a layout, at index `slot` of `MessageLayout.fields` (the tape's slot). */
export interface LayoutField {
  readonly slot: number;
  readonly number: number;
  /** Kind as in assembly/table.ts (FieldDescriptorProto.Type numbering; ScalarType values map to themselves). */
  readonly kind: number;
  /** The declared field; for a map entry's key and value, the map field. */
  readonly field: DescField;
  /** "key" or "value" in a map entry layout, else undefined. */
  readonly entryPart: "key" | "value" | undefined;
  /** A list or a map. */
  readonly repeated: boolean;
  /** A repeated numeric or enum field that is written packed. */
  readonly packed: boolean;
  /** Nested message layout: the message type, or a map field's entry type. */
  readonly message: MessageLayout | undefined;
}

/** The compiled form of one message type (or map entry type). */
export interface MessageLayout {
  /** Word offset of the type's record in the layout table: what walkMessage takes. */
  readonly typeOffset: number;
  readonly fullName: string;
  /** The message descriptor; undefined for a map entry type. */
  readonly desc: DescMessage | undefined;
  /** The map field whose entries this layout reads; undefined for a message type. */
  readonly mapField: DescField | undefined;
  /** Fields by slot (declaration order; for a map entry: key, value). */
  readonly fields: readonly LayoutField[];
  /** Fields by number. */
  readonly byNumber: ReadonlyMap<number, LayoutField>;
}

const messageLayouts = new WeakMap<DescMessage, MessageLayout>();
const entryLayouts = new WeakMap<DescField, MessageLayout>();

/** The layout of `desc`, compiled on first use. */
export function layoutOf(desc: DescMessage): MessageLayout {
  return messageLayouts.get(desc) ?? compileMessage(desc);
}

interface FieldPlan {
  readonly number: number;
  readonly kind: number;
  readonly field: DescField;
  readonly entryPart: "key" | "value" | undefined;
  readonly repeated: boolean;
  readonly packable: boolean;
  readonly packed: boolean;
  readonly sub: (() => MessageLayout) | undefined;
}

function planField(f: DescField): FieldPlan {
  const base = { number: f.number, field: f, entryPart: undefined };
  switch (f.fieldKind) {
    case "scalar":
      return { ...base, kind: f.scalar, repeated: false, packable: false, packed: false, sub: undefined };
    case "enum":
      return { ...base, kind: K_ENUM, repeated: false, packable: false, packed: false, sub: undefined };
    case "message":
      return { ...base, kind: K_MESSAGE, repeated: false, packable: false, packed: false, sub: () => layoutOf(f.message) };
    case "list": {
      if (f.listKind === "message") {
        return { ...base, kind: K_MESSAGE, repeated: true, packable: false, packed: false, sub: () => layoutOf(f.message) };
      }
      const kind = f.listKind === "enum" ? K_ENUM : f.scalar;
      const packable = kind !== K_STRING && kind !== K_BYTES;
      return { ...base, kind, repeated: true, packable, packed: packable && f.packed, sub: undefined };
    }
    case "map":
      return { ...base, kind: K_MESSAGE, repeated: true, packable: false, packed: false, sub: () => entryLayoutOf(f) };
  }
}

function entryPlans(f: DescField & { fieldKind: "map" }): FieldPlan[] {
  const key: FieldPlan = {
    number: 1, kind: f.mapKey, field: f, entryPart: "key", repeated: false, packable: false, packed: false, sub: undefined,
  };
  let value: FieldPlan;
  switch (f.mapKind) {
    case "scalar":
      value = { number: 2, kind: f.scalar, field: f, entryPart: "value", repeated: false, packable: false, packed: false, sub: undefined };
      break;
    case "enum":
      value = { number: 2, kind: K_ENUM, field: f, entryPart: "value", repeated: false, packable: false, packed: false, sub: undefined };
      break;
    case "message": {
      const m = f.message;
      value = { number: 2, kind: K_MESSAGE, field: f, entryPart: "value", repeated: false, packable: false, packed: false, sub: () => layoutOf(m) };
      break;
    }
  }
  return [key, value];
}

function entryLayoutOf(f: DescField & { fieldKind: "map" }): MessageLayout {
  return entryLayouts.get(f) ?? compile(entryName(f), undefined, f, entryPlans(f));
}

/** The map entry's name as protoc generates it: `<Parent>.<FieldNameInPascalCase>Entry`. */
function entryName(f: DescField): string {
  const pascal = f.name
    .split("_")
    .map((p) => (p.length === 0 ? "" : p[0]!.toUpperCase() + p.slice(1)))
    .join("");
  return `${f.parent.typeName}.${pascal}Entry`;
}

function compileMessage(desc: DescMessage): MessageLayout {
  return compile(desc.typeName, desc, undefined, desc.fields.map(planField));
}

/**
 * Numbers 1..denseMax get a direct entry; the rest are searched. The dense part stays at most
 * about twice the number of fields it covers (plus a little), so a type with numbers 1..20 and
 * one field at 536,870,911 costs 21 dense entries and one sparse entry.
 */
function chooseDenseMax(numbers: readonly number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  let denseMax = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i]! <= 2 * (i + 1) + 16) denseMax = sorted[i]!;
  }
  return denseMax;
}

function compile(fullName: string, desc: DescMessage | undefined, mapField: DescField | undefined, plans: FieldPlan[]): MessageLayout {
  if (plans.length >= MAX_SLOTS) {
    throw new InvalidDescriptorError(
      "TOO_MANY_FIELDS",
      `invalid descriptor ${fullName}: ${fullName} declares ${plans.length} fields, more than the ${MAX_SLOTS - 1} a layout holds; split the message`,
    );
  }
  const seen = new Set<number>();
  for (const p of plans) {
    if (!Number.isInteger(p.number) || p.number < 1 || p.number > MAX_FIELD_NUMBER) {
      throw new InvalidDescriptorError(
        "FIELD_NUMBER_OUT_OF_RANGE",
        `invalid descriptor ${fullName}: field ${fullName}.${p.field.name} has number ${p.number} outside 1..${MAX_FIELD_NUMBER}; use a number in 1..${MAX_FIELD_NUMBER}`,
      );
    }
    if (seen.has(p.number)) {
      throw new InvalidDescriptorError(
        "FIELD_NUMBER_DUPLICATE",
        `invalid descriptor ${fullName}: field number ${p.number} is declared twice in ${fullName}; give each field its own number`,
      );
    }
    seen.add(p.number);
  }
  const denseMax = chooseDenseMax(plans.map((p) => p.number));
  const sparse = plans.filter((p) => p.number > denseMax).sort((a, b) => a.number - b.number);
  const words = T_HEADER_WORDS + DENSE_ENTRY_WORDS * (denseMax + 1) + SPARSE_ENTRY_WORDS * sparse.length;
  const typeOffset = allocTypeRecord(words, {
    fullName,
    fields: plans.map((p) => ({ name: p.entryPart ?? p.field.name, number: p.number, kind: p.kind })),
  });

  const fields: LayoutField[] = [];
  const byNumber = new Map<number, LayoutField>();
  const layout: MessageLayout = { typeOffset, fullName, desc, mapField, fields, byNumber };
  // Registered before the fields are compiled: a recursive reference finds this layout.
  if (desc) messageLayouts.set(desc, layout);
  else if (mapField) entryLayouts.set(mapField, layout);

  const record = new Int32Array(words);
  record[T_SLOTS] = plans.length;
  record[T_DENSE_MAX] = denseMax;
  record[T_SPARSE_COUNT] = sparse.length;
  record[T_WORDS] = words;
  const wordB = new Map<number, number>();
  plans.forEach((p, slot) => {
    const message = p.sub?.();
    const lf: LayoutField = {
      slot, number: p.number, kind: p.kind, field: p.field, entryPart: p.entryPart,
      repeated: p.repeated, packed: p.packed, message,
    };
    fields.push(lf);
    byNumber.set(p.number, lf);
    let a = p.kind | (wireTypeOf(p.kind) << A_WIRE_SHIFT) | (slot << A_SLOT_SHIFT);
    if (p.packable) a |= A_PACKABLE;
    if (p.kind === K_STRING) a |= A_STRING;
    if (p.kind === K_MESSAGE) a |= A_MESSAGE;
    if (p.repeated) a |= A_REPEATED;
    const b = message ? message.typeOffset : 0;
    wordB.set(p.number, b);
    if (p.number <= denseMax) {
      record[T_HEADER_WORDS + DENSE_ENTRY_WORDS * p.number] = a;
      record[T_HEADER_WORDS + DENSE_ENTRY_WORDS * p.number + 1] = b;
    } else {
      const i = sparse.indexOf(p);
      const at = T_HEADER_WORDS + DENSE_ENTRY_WORDS * (denseMax + 1) + SPARSE_ENTRY_WORDS * i;
      record[at] = p.number;
      record[at + 1] = a;
      record[at + 2] = b;
    }
  });
  writeTypeRecord(typeOffset, record);
  return layout;
}
