// Compiles a DescMessage into the flat layout table the WASM walker reads (format in
// assembly/table.ts). One layout per descriptor instance, cached in a WeakMap. Map fields get a
// synthetic entry type (key = field 1, value = field 2), cached per map field.
//
// A first use compiles the whole closure of types not compiled yet at once, without recursion (a
// chain of nested types is as long as the schema allows), and registers the layouts only when all
// of them are complete: a schema that fails a check leaves nothing behind.
//
// Records are shared and reclaimed by closure ("segment"): a segment whose words and names equal a
// live one's (the same schema restored again) reuses its records, and a segment's records are
// freed once no layout of it is reachable, so restoring serializers in a loop does not grow the
// table.
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { InvalidDescriptorError } from "../errors.js";
import { holdsJsNumber } from "../message/field-info.js";
import {
  A_MESSAGE, A_PACKABLE, A_REPEATED, B_JS_NUMBER, B_MAP_MESSAGE, A_SLOT_SHIFT, A_STRING, A_WIRE_SHIFT, DENSE_ENTRY_WORDS,
  KIND_BYTES, KIND_ENUM, KIND_MESSAGE, KIND_STRING, MAX_SLOTS, WIRE_FIXED32, WIRE_FIXED64, WIRE_VARINT, SPARSE_ENTRY_WORDS, T_DENSE_MAX_WORD,
  T_HEADER_WORDS, T_ACTIONS_WORD, TAG_ACTION_WORDS, ACT_SLOW, ACT_VARINT, ACT_FIXED64, ACT_FIXED32, ACT_LEN, ACT_STRING, ACT_MESSAGE, T_SPARSE_COUNT_WORD, T_LENGTH_WORD, allocTypeRecord, freeTypeRecord, tableWords,
  typeNames, wireTypeOf, writeTypeRecord, type TypeNames,
} from "../wasm/table.js";
import { MAX_FIELD_NUMBER } from "../bytes.js";

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
  /** Keeps the records of the layout's segment alive (see the file comment). */
  readonly segment: Segment;
  /** False for the generated kind's layouts: jstype = JS_NUMBER values are not range-checked. */
  readonly jsNumbers: boolean;
}

/**
 * Layouts of one way of reading jstype = JS_NUMBER fields: refused beyond ±(2^53 − 1), since a
 * DynamicMessage holds them as numbers, or not, since protobuf-es holds them as bigint (the
 * generated kind). A closure without such fields compiles to the same records either way, and
 * shares them (segments, below).
 */
interface Layouts {
  readonly jsNumbers: boolean;
  readonly messages: WeakMap<DescMessage, MessageLayout>;
  readonly entries: WeakMap<DescField, MessageLayout>;
}
const checked: Layouts = { jsNumbers: true, messages: new WeakMap(), entries: new WeakMap() };
const unchecked: Layouts = { jsNumbers: false, messages: new WeakMap(), entries: new WeakMap() };

/** The layout of `desc`, compiled on first use; `jsNumbers` false for the generated kind. */
export function layoutOf(desc: DescMessage, jsNumbers = true): MessageLayout {
  const cache = jsNumbers ? checked : unchecked;
  return cache.messages.get(desc) ?? compileClosure(desc, cache);
}

/** A nested type: a message type, or the entry type of a map field. */
type Target = { readonly desc: DescMessage; readonly map?: undefined } | { readonly desc?: undefined; readonly map: DescField & { fieldKind: "map" } };

interface FieldPlan {
  readonly number: number;
  readonly kind: number;
  readonly field: DescField;
  readonly entryPart: "key" | "value" | undefined;
  readonly repeated: boolean;
  readonly packable: boolean;
  readonly packed: boolean;
  readonly target: Target | undefined;
}

// One object shape for every plan (object spreads made planField a fifth of a first decode).
function fieldPlan(
  number: number,
  kind: number,
  field: DescField,
  entryPart: "key" | "value" | undefined,
  repeated: boolean,
  packable: boolean,
  packed: boolean,
  target: Target | undefined,
): FieldPlan {
  return { number, kind, field, entryPart, repeated, packable, packed, target };
}

function planField(f: DescField): FieldPlan {
  switch (f.fieldKind) {
    case "scalar":
      return fieldPlan(f.number, f.scalar, f, undefined, false, false, false, undefined);
    case "enum":
      return fieldPlan(f.number, KIND_ENUM, f, undefined, false, false, false, undefined);
    case "message":
      return fieldPlan(f.number, KIND_MESSAGE, f, undefined, false, false, false, { desc: f.message });
    case "list": {
      if (f.listKind === "message") return fieldPlan(f.number, KIND_MESSAGE, f, undefined, true, false, false, { desc: f.message });
      const kind = f.listKind === "enum" ? KIND_ENUM : f.scalar;
      const packable = kind !== KIND_STRING && kind !== KIND_BYTES;
      return fieldPlan(f.number, kind, f, undefined, true, packable, packable && f.packed, undefined);
    }
    case "map":
      return fieldPlan(f.number, KIND_MESSAGE, f, undefined, true, false, false, { map: f });
  }
}

function entryPlans(f: DescField & { fieldKind: "map" }): FieldPlan[] {
  const key = fieldPlan(1, f.mapKey, f, "key", false, false, false, undefined);
  switch (f.mapKind) {
    case "scalar":
      return [key, fieldPlan(2, f.scalar, f, "value", false, false, false, undefined)];
    case "enum":
      return [key, fieldPlan(2, KIND_ENUM, f, "value", false, false, false, undefined)];
    case "message":
      return [key, fieldPlan(2, KIND_MESSAGE, f, "value", false, false, false, { desc: f.message })];
  }
}

/** The map entry's name as protoc generates it: `<Parent>.<FieldNameInPascalCase>Entry`. */
function entryName(f: DescField): string {
  const pascal = f.name
    .split("_")
    .map((p) => (p.length === 0 ? "" : p[0]!.toUpperCase() + p.slice(1)))
    .join("");
  return `${f.parent.typeName}.${pascal}Entry`;
}

function compiled(t: Target, cache: Layouts): MessageLayout | undefined {
  return t.desc !== undefined ? cache.messages.get(t.desc) : cache.entries.get(t.map);
}

/** One type of a closure being compiled. */
interface Node {
  readonly target: Target;
  readonly fullName: string;
  readonly plans: readonly FieldPlan[];
  readonly denseMax: number;
  /** Plans above denseMax, by number. */
  readonly sparse: readonly FieldPlan[];
  readonly words: number;
  /** jstype = JS_NUMBER fields are checked within ±(2^53 − 1) (see Layouts). */
  readonly jsNumbers: boolean;
  /** Nested types, by slot (undefined for a field without one). */
  readonly children: (Node | MessageLayout | undefined)[];
  layout: MessageLayout | undefined;
}

function checkPlans(fullName: string, plans: readonly FieldPlan[]): void {
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
}

/**
 * Numbers 1..denseMax get a direct entry; the rest are searched. The dense part stays at most
 * about twice the number of fields it covers (plus a little), so a type with numbers 1..20 and
 * one field at 536,870,911 costs 21 dense entries and one sparse entry.
 */
function chooseDenseMax(sorted: readonly FieldPlan[]): number {
  let denseMax = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i]!.number <= 2 * (i + 1) + 16) denseMax = sorted[i]!.number;
  }
  return denseMax;
}

function makeNode(target: Target, jsNumbers: boolean): Node {
  const fullName = target.desc !== undefined ? target.desc.typeName : entryName(target.map);
  const plans = target.desc !== undefined ? target.desc.fields.map(planField) : entryPlans(target.map);
  checkPlans(fullName, plans);
  const sorted = [...plans].sort((a, b) => a.number - b.number);
  const denseMax = chooseDenseMax(sorted);
  const sparse = sorted.filter((p) => p.number > denseMax);
  const words = T_HEADER_WORDS + DENSE_ENTRY_WORDS * (denseMax + 1) + SPARSE_ENTRY_WORDS * sparse.length + tagActionWords(denseMax);
  return { target, fullName, plans, denseMax, sparse, words, jsNumbers, children: [], layout: undefined };
}

/**
 * Tag actions cover every one-byte tag (numbers 0-15) and the two-byte tags of dense numbers
 * (up to 2047: validate's lean loop takes no longer tag, so a type dense past it stores none).
 */
function tagActionNumbers(denseMax: number): number {
  return Math.min(Math.max(denseMax + 1, 16), 2048);
}
function tagActionWords(denseMax: number): number {
  return TAG_ACTION_WORDS * tagActionNumbers(denseMax);
}

/** The table words of a node's record; nested types as their offsets, `offsetOf` gives them. */
function recordOf(node: Node, offsetOf: (child: Node | MessageLayout) => number): Int32Array {
  const record = new Int32Array(node.words);
  const actions = T_HEADER_WORDS + DENSE_ENTRY_WORDS * (node.denseMax + 1) + SPARSE_ENTRY_WORDS * node.sparse.length;
  record[T_ACTIONS_WORD] = actions << 2;
  record[T_DENSE_MAX_WORD] = node.denseMax;
  record[T_SPARSE_COUNT_WORD] = node.sparse.length;
  record[T_LENGTH_WORD] = node.words;
  const sparseIndex = new Map<FieldPlan, number>();
  node.sparse.forEach((p, i) => sparseIndex.set(p, i));
  node.plans.forEach((p, slot) => {
    let a = p.kind | (wireTypeOf(p.kind) << A_WIRE_SHIFT) | (slot << A_SLOT_SHIFT);
    if (p.packable) a |= A_PACKABLE;
    if (p.kind === KIND_STRING) a |= A_STRING;
    if (p.kind === KIND_MESSAGE) a |= A_MESSAGE;
    if (p.repeated) a |= A_REPEATED;
    const child = node.children[slot];
    let b = child !== undefined ? offsetOf(child) : node.jsNumbers && p.entryPart === undefined && holdsJsNumber(p.field) ? B_JS_NUMBER : 0;
    // The core's validating walk counts a map entry's message value as a level even when the
    // wire has none (the readers put the default instance there): validate.ts, B_MAP_MESSAGE.
    if (child !== undefined && p.entryPart === undefined && p.field.fieldKind === "map" && p.field.mapKind === "message") b |= B_MAP_MESSAGE;
    if (p.number <= node.denseMax) {
      // Only a dense number has an action: the lean loop reads a message's type from the
      // dense entry (numbers 0-18 are always dense, see chooseDenseMax).
      if (p.number < tagActionNumbers(node.denseMax)) {
        const t = (p.number << 3) | wireTypeOf(p.kind);
        record[actions + (t >> 2)] |= tagAction(p, b) << ((t & 3) << 3);
      }
      record[T_HEADER_WORDS + DENSE_ENTRY_WORDS * p.number] = a;
      record[T_HEADER_WORDS + DENSE_ENTRY_WORDS * p.number + 1] = b;
    } else {
      const at = T_HEADER_WORDS + DENSE_ENTRY_WORDS * (node.denseMax + 1) + SPARSE_ENTRY_WORDS * sparseIndex.get(p)!;
      record[at] = p.number;
      record[at + 1] = a;
      record[at + 2] = b;
    }
  });
  return record;
}

/**
 * What validateFast does with a record of field `p` in its declared (unpacked) wire type: the
 * checks every record of that tag needs beyond its bytes' bounds, decided once here.
 */
function tagAction(p: FieldPlan, b: number): number {
  if (p.kind === KIND_MESSAGE) return ACT_MESSAGE;
  if (p.kind === KIND_STRING) return ACT_STRING;
  if (b !== 0) return ACT_SLOW;
  switch (wireTypeOf(p.kind)) {
    case WIRE_VARINT: return ACT_VARINT;
    case WIRE_FIXED64: return ACT_FIXED64;
    case WIRE_FIXED32: return ACT_FIXED32;
    default: return ACT_LEN;
  }
}

function namesOf(node: Node): TypeNames {
  return {
    fullName: node.fullName,
    fields: node.plans.map((p) => ({ name: p.entryPart ?? p.field.name, number: p.number, kind: p.kind })),
  };
}

function compileClosure(root: DescMessage, cache: Layouts): MessageLayout {
  // 1. Every type of the closure without a layout yet, checked before anything is allocated.
  const nodes: Node[] = [];
  const byTarget = new Map<DescMessage | DescField, Node>();
  const first = makeNode({ desc: root }, cache.jsNumbers);
  byTarget.set(root, first);
  nodes.push(first);
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    for (const p of node.plans) {
      const t = p.target;
      if (t === undefined) {
        node.children.push(undefined);
        continue;
      }
      const key = t.desc ?? t.map;
      let child: Node | MessageLayout | undefined = compiled(t, cache) ?? byTarget.get(key);
      if (child === undefined) {
        const made = makeNode(t, cache.jsNumbers);
        byTarget.set(key, made);
        nodes.push(made);
        child = made;
      }
      node.children.push(child);
    }
  }
  // 2. The records: shared with a live segment of the same content, else allocated.
  const index = new Map<Node, number>();
  nodes.forEach((n, i) => index.set(n, i));
  const names = nodes.map(namesOf);
  const segment = shareOrAllocate(nodes, names, (offsets) => (c) => ("segment" in c ? c.typeOffset : offsets[index.get(c)!]!));
  // 3. Layouts, registered only now.
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    const fields: LayoutField[] = [];
    const byNumber = new Map<number, LayoutField>();
    node.layout = {
      typeOffset: segment.offsets[i]!,
      fullName: node.fullName,
      desc: node.target.desc,
      mapField: node.target.map,
      fields,
      byNumber,
      segment,
      jsNumbers: cache.jsNumbers,
    };
  }
  for (const node of nodes) {
    const fields = node.layout!.fields as LayoutField[];
    const byNumber = node.layout!.byNumber as Map<number, LayoutField>;
    node.plans.forEach((p, slot) => {
      const c = node.children[slot];
      const lf: LayoutField = {
        slot, number: p.number, kind: p.kind, field: p.field, entryPart: p.entryPart,
        repeated: p.repeated, packed: p.packed, message: c === undefined ? undefined : "segment" in c ? c : c.layout,
      };
      fields.push(lf);
      byNumber.set(p.number, lf);
    });
  }
  for (const node of nodes) {
    const t = node.target;
    if (t.desc !== undefined) cache.messages.set(t.desc, node.layout!);
    else cache.entries.set(t.map, node.layout!);
  }
  return first.layout!;
}

// --- segments: records shared by equal content, freed when unreachable ---

/** The records of one compiled closure. */
export interface Segment {
  readonly offsets: readonly number[];
  readonly hash: string;
}

const live = new Map<string, WeakRef<Segment>>();
const registry =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry<{ offsets: readonly number[]; hash: string }>((held) => {
        for (const at of held.offsets) freeTypeRecord(at);
        const ref = live.get(held.hash);
        if (ref !== undefined && ref.deref() === undefined) live.delete(held.hash);
      })
    : undefined;

type Resolver = (offsets: readonly number[]) => (child: Node | MessageLayout) => number;

function hashOf(records: readonly Int32Array[], names: readonly TypeNames[]): string {
  // FNV-1a-like over words and names, two lanes; a hit is verified word by word before use.
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  const mix = (v: number): void => {
    h1 = Math.imul(h1 ^ v, 0x01000193);
    h2 = Math.imul(h2 ^ v, 0x5bd1e995) ^ (h2 >>> 15);
  };
  for (const r of records) for (let i = 0; i < r.length; i++) mix(r[i]!);
  for (const n of names) {
    for (let i = 0; i < n.fullName.length; i++) mix(n.fullName.charCodeAt(i));
    for (const f of n.fields) {
      mix(f.number);
      for (let i = 0; i < f.name.length; i++) mix(f.name.charCodeAt(i));
    }
  }
  return `${records.length}:${(h1 >>> 0).toString(36)}:${(h2 >>> 0).toString(36)}`;
}

function sameNames(a: TypeNames | undefined, b: TypeNames): boolean {
  if (a === undefined || a.fullName !== b.fullName || a.fields.length !== b.fields.length) return false;
  for (let j = 0; j < a.fields.length; j++) {
    const x = a.fields[j]!;
    const y = b.fields[j]!;
    if (x.name !== y.name || x.number !== y.number || x.kind !== y.kind) return false;
  }
  return true;
}

/** True when the segment's records are exactly what `nodes` compile to at its offsets. */
function sameContent(seg: Segment, nodes: readonly Node[], names: readonly TypeNames[], resolve: Resolver): boolean {
  if (seg.offsets.length !== nodes.length) return false;
  const words = tableWords();
  const offsetOf = resolve(seg.offsets);
  for (let i = 0; i < nodes.length; i++) {
    const at = seg.offsets[i]!;
    if (!sameNames(typeNames(at), names[i]!)) return false;
    const r = recordOf(nodes[i]!, offsetOf);
    for (let j = 0; j < r.length; j++) if (words[at + j] !== r[j]) return false;
  }
  return true;
}

function shareOrAllocate(nodes: readonly Node[], names: readonly TypeNames[], resolve: Resolver): Segment {
  // Hashed with nested types of this closure numbered by their index (offsets not known yet).
  const relative = resolve(nodes.map((_, i) => -1 - i));
  const hash = hashOf(nodes.map((n) => recordOf(n, relative)), names);
  const existing = live.get(hash)?.deref();
  if (existing !== undefined && sameContent(existing, nodes, names, resolve)) return existing;
  const offsets = nodes.map((n, i) => allocTypeRecord(n.words, names[i]!));
  const offsetOf = resolve(offsets);
  nodes.forEach((n, i) => writeTypeRecord(offsets[i]!, recordOf(n, offsetOf)));
  const segment: Segment = { offsets, hash };
  if (registry !== undefined) {
    live.set(hash, new WeakRef(segment));
    registry.register(segment, { offsets, hash });
  }
  return segment;
}
