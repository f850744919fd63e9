// The directional schema evaluator (docs/design.md §9): can a program whose schema is `current` read,
// keep and re-write data that was written with `saved`? Pure descriptor comparison: no wasm,
// no wire. A successful parse is not enough: `int32` and `uint32` share the varint wire type
// and still change meaning, and presence decides what survives a re-write.
// Size: the rule table is one walk over paired messages, fields, oneofs and enums; its
// messages are in messages.ts and the JSON boundary in json-boundary.ts.
import { ScalarType, type DescEnum, type DescEnumValue, type DescField, type DescMessage, type DescOneof } from "@bufbuild/protobuf";
import { resolveRoot, type DescriptorInput } from "../descriptor/input.js";
import { mergeRanges, rangeHolding, reservedRangesOf } from "../descriptor/normalize.js";
import { checkPayloadRules } from "../descriptor/rules.js";
import { holdsJsNumber, is64 } from "../descriptor/long-form.js";
import { checkBoundary, servedAsOther, withJsonBoundary, type EvaluationBoundary, type JsonBoundaryRule } from "./json-boundary.js";
import { jsonEnumValueNamesSwapped, jsonFieldNamesSwapped } from "./json-messages.js";
import { resolveSettings, type Settings } from "../settings.js";
import {
  describeField,
  enumValueRemoved,
  enumValueRenamed,
  enumValueNameNotReserved,
  enumReservedNameReused,
  enumReservedNumberReused,
  fieldLeftOneofToImplicit,
  fieldMapChanged,
  fieldNameNotReserved,
  fieldRemovedNotReserved,
  fieldRenamed,
  fieldReservedNameReused,
  fieldReservedNumberReused,
  fieldTypeChanged,
  jsNumberAdded as jsNumberAddedMessage,
  jsonNameChanged,
  mapKeyChanged,
  maxDepthLowered,
  maxMessageBytesLowered,
  messageNameChanged,
  messageToBytesWithoutPresence,
  oneofFieldsMerged,
  oneofRenamed,
  packedChanged,
  presenceExplicitToImplicit,
  repeatedToSingular,
  reservationRemoved,
  reservedNameRemoved,
  rootNameChanged,
  enumNameChanged,
} from "./messages.js";
import { jsonNameOf } from "../descriptor/names.js";

/** The stable id of an evaluator rule; incompatibilities and notes use disjoint ids. */
export type CompatibilityRule =
  // incompatibilities
  | "MAX_MESSAGE_BYTES_LOWERED"
  | "MAX_DEPTH_LOWERED"
  | "MESSAGE_NAME_CHANGED"
  | "ENUM_NAME_CHANGED"
  | "FIELD_RESERVED_NUMBER_REUSED"
  | "FIELD_RESERVED_NAME_REUSED"
  | "FIELD_REMOVED_NOT_RESERVED"
  | "FIELD_TYPE_CHANGED"
  | "MESSAGE_TO_BYTES_WITHOUT_PRESENCE"
  | "REPEATED_TO_SINGULAR"
  | "FIELD_MAP_CHANGED"
  | "MAP_KEY_CHANGED"
  | "PRESENCE_EXPLICIT_TO_IMPLICIT"
  | "FIELD_LEFT_ONEOF_TO_IMPLICIT"
  | "ONEOF_FIELDS_MERGED"
  | "ENUM_VALUE_REMOVED_NOT_RESERVED"
  | "ENUM_RESERVED_NUMBER_REUSED"
  | "ENUM_RESERVED_NAME_REUSED"
  | "FIELD_RESERVATION_REMOVED"
  | "ENUM_RESERVATION_REMOVED"
  | "JSTYPE_NUMBER_ADDED"
  // notes (compatible)
  | "FIELD_RENAMED"
  | "JSON_NAME_CHANGED"
  | "FIELD_NAME_NOT_RESERVED"
  | "PACKED_CHANGED"
  | "ONEOF_RENAMED"
  | "ENUM_VALUE_RENAMED"
  | "ENUM_VALUE_NAME_NOT_RESERVED"
  | "FIELD_RESERVED_NAME_REMOVED"
  | "ENUM_RESERVED_NAME_REMOVED"
  // the JSON boundary's own rules (json-boundary.ts)
  | JsonBoundaryRule;

/** One finding of the evaluator. */
export interface Finding {
  /** Stable UPPER_SNAKE rule id, e.g. `FIELD_TYPE_CHANGED`. */
  readonly rule: CompatibilityRule;
  /** Where: the root full name, then `name(number)` per field, e.g. `acme.Order.items(4).price(2)`. */
  readonly path: string;
  /** What changed, why it matters for saved data, and what to do. */
  readonly message: string;
}

/** The verdict: compatible when there is no incompatibility; notes never affect it. */
export interface EvaluationResult {
  readonly compatible: boolean;
  /** In order: settings, root, then fields by number, depth first. */
  readonly incompatibilities: readonly Finding[];
  /** Compatible changes worth knowing about (renames, encoding changes), in the same order. */
  readonly notes: readonly Finding[];
}

/** Options of {@link evaluateSchemaChange}. */
export interface EvaluateSchemaChangeOptions {
  /** Settings that wrote the saved data. Defaults to the default settings. */
  readonly savedSettings?: Partial<Settings>;
  /** Settings of the current reader. Defaults to the default settings. */
  readonly currentSettings?: Partial<Settings>;
  /** The representation saved data crosses: "binary" (default), "json" or "binary+json" (json-boundary.ts). */
  readonly boundary?: EvaluationBoundary;
}

/**
 * Evaluates whether data written with `saved` (schema and settings) can be read, kept and
 * re-written by a program whose schema is `current`. Each side is a `DescMessage`, a protobufjs
 * `Type` or `{ fileDescriptorSet, messageName }`. Never throws for schema content: throws
 * `InvalidDescriptorError` only for an input that does not resolve or a closure that breaks the
 * payload rules (docs/design.md §4.2), and `RangeError` for out-of-range settings.
 */
export function evaluateSchemaChange(
  saved: DescriptorInput,
  current: DescriptorInput,
  options: EvaluateSchemaChangeOptions = {},
): EvaluationResult {
  if (typeof options !== "object" || options === null) throw new TypeError(`evaluateSchemaChange: options must be an object ({ savedSettings?, currentSettings?, boundary? }), got ${options === null ? "null" : typeof options}`);
  for (const key of ["savedSettings", "currentSettings"] as const) {
    const v: unknown = options[key];
    if (v !== undefined && (typeof v !== "object" || v === null)) throw new TypeError(`evaluateSchemaChange: option ${key} must be an object of settings, got ${v === null ? "null" : typeof v}`);
  }
  const savedSettings = resolveSettings(options.savedSettings);
  const currentSettings = resolveSettings(options.currentSettings);
  const savedRoot = resolveRoot(saved);
  const currentRoot = resolveRoot(current);
  checkPayloadRules(savedRoot);
  checkPayloadRules(currentRoot);
  const boundary = checkBoundary(options.boundary);
  const binary = boundary === "json" ? undefined : evaluateMessages(savedRoot, currentRoot, savedSettings, currentSettings, true, boundary === "binary+json");
  return boundary === "binary" ? binary! : withJsonBoundary(boundary, binary, savedRoot, currentRoot, savedSettings, currentSettings);
}

const COMPATIBLE: EvaluationResult = Object.freeze({
  compatible: true,
  incompatibilities: Object.freeze([]) as readonly Finding[],
  notes: Object.freeze([]) as readonly Finding[],
});

/**
 * @internal The evaluator without input resolution or payload-rule checks, for the serializer's
 * write path and snapshots. Callers check the payload rules of both closures themselves.
 */
export function evaluateMessages(
  saved: DescMessage,
  current: DescMessage,
  savedSettings: Settings,
  currentSettings: Settings,
  // False for the generated kind, which holds jstype = JS_NUMBER fields as bigint (as protobuf-es
  // does) and so reads every saved value of them.
  jsNumbers = true,
  // Data stored as binary is served as JSON (boundary "binary+json"): fields and enum values
  // paired by number must keep the JSON names a consumer of the saved schema reads them by.
  served = false,
  // False where `current` reads data of `saved` without becoming the next check's saved side (a
  // registry consumer reading a record of its writer's schema): the reservations the saved schema
  // holds only guard a chain of checks (Walk.reservationsKept).
  reservations = true,
): EvaluationResult {
  const walk = new Walk(jsNumbers, served, false, reservations);
  evaluateWith(walk, saved, current, savedSettings, currentSettings);
  if (walk.incompatibilities === undefined && walk.notes === undefined) return COMPATIBLE;
  return {
    compatible: walk.incompatibilities === undefined,
    incompatibilities: walk.incompatibilities ?? [],
    notes: walk.notes ?? [],
  };
}

/**
 * The first incompatibility evaluateMessages would report (of the binary boundary, between equal
 * settings), or undefined when there is none: the walk stops there. Write acceptance needs no
 * more, and every finding costs a path string as long as its depth: all of them were O(N^2) for a
 * chain of N changed types (8,000: ~500 M characters).
 */
export function firstIncompatibility(saved: DescMessage, current: DescMessage, settings: Settings, jsNumbers: boolean): Finding | undefined {
  // A write keeps what a dropped reservation guarded (unknown fields are written as they are): the
  // value is written alike, so write acceptance does not ask about reservations.
  const walk = new Walk(jsNumbers, false, true, false);
  try {
    evaluateWith(walk, saved, current, settings, settings);
  } catch (e) {
    if (e !== FOUND) throw e;
  }
  return walk.incompatibilities?.[0];
}

/** Thrown by a Walk that stops at its first incompatibility. */
const FOUND = new Error("an incompatibility was found");

function evaluateWith(walk: Walk, saved: DescMessage, current: DescMessage, savedSettings: Settings, currentSettings: Settings): void {
  const root = new PathNode(undefined, current.typeName, -1);
  if (currentSettings.maxMessageBytes < savedSettings.maxMessageBytes) {
    walk.incompatible(
      "MAX_MESSAGE_BYTES_LOWERED",
      root,
      maxMessageBytesLowered(savedSettings.maxMessageBytes, currentSettings.maxMessageBytes),
    );
  }
  if (currentSettings.maxDepth < savedSettings.maxDepth) {
    walk.incompatible("MAX_DEPTH_LOWERED", root, maxDepthLowered(savedSettings.maxDepth, currentSettings.maxDepth));
  }
  // Another full name is another type (the snapshot and the reader key on it): its fields are
  // not compared, which would only add findings about unrelated declarations.
  if (saved.typeName !== current.typeName) {
    walk.incompatible("MESSAGE_NAME_CHANGED", root, rootNameChanged(saved.typeName, current.typeName));
  } else {
    walk.message(saved, current, root);
  }
}

/** A path segment; strings are built only when a finding needs one. */
class PathNode {
  constructor(
    readonly parent: PathNode | undefined,
    readonly name: string,
    /** -1 for the root. */
    readonly number: number,
  ) {}

  toString(): string {
    const parts: string[] = [];
    let node: PathNode | undefined = this;
    for (; node.parent !== undefined; node = node.parent) parts.push(`${node.name}(${node.number})`);
    parts.push(node.name);
    return parts.reverse().join(".");
  }
}

function finding(rule: CompatibilityRule, node: PathNode, message: string | ((path: string) => string)): Finding {
  const path = node.toString();
  return { rule, path, message: typeof message === "string" ? message : message(path) };
}

function pathOf(parent: PathNode, f: DescField): PathNode {
  return new PathNode(parent, f.name, f.number);
}

// FeatureSet.FieldPresence numbers as @bufbuild/protobuf reports them on DescField.presence.
const IMPLICIT = 2;

const sortedCache = new WeakMap<DescMessage, readonly DescField[]>();

/** Fields by number; descriptors are immutable, so the order is computed once per instance. */
function fieldsByNumber(desc: DescMessage): readonly DescField[] {
  let sorted = sortedCache.get(desc);
  if (sorted === undefined) {
    const fields = desc.fields;
    let inOrder = true;
    for (let i = 1; i < fields.length; i++) {
      if (fields[i - 1]!.number > fields[i]!.number) {
        inOrder = false;
        break;
      }
    }
    sorted = inOrder ? fields : [...fields].sort((a, b) => a.number - b.number);
    sortedCache.set(desc, sorted);
  }
  return sorted;
}

function findByNumber(sorted: readonly DescField[], number: number): DescField | undefined {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const n = sorted[mid]!.number;
    if (n === number) return sorted[mid];
    if (n < number) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** A declaration's reserved numbers (merged, inclusive ranges by start) and names. */
interface Reserved {
  readonly ranges: ReadonlyArray<readonly [number, number]>;
  readonly names: ReadonlySet<string>;
}

// Each added or removed field asks its message whether a number or name is reserved: answered
// from sorted ranges and a set, so N fields against R ranges cost N log R, not N x R.
const reservedCache = new WeakMap<DescMessage | DescEnum, Reserved>();

function reservedOf(desc: DescMessage | DescEnum): Reserved {
  let r = reservedCache.get(desc);
  if (r === undefined) {
    r = {
      ranges: reservedRangesOf(desc),
      names: new Set(desc.proto.reservedName),
    };
    reservedCache.set(desc, r);
  }
  return r;
}

function reservesNumber(desc: DescMessage | DescEnum, number: number): boolean {
  return rangeHolding(reservedOf(desc).ranges, number) >= 0;
}

function reservesName(desc: DescMessage | DescEnum, name: string): boolean {
  return reservedOf(desc).names.has(name);
}

/** What `current` declares: its fields, or its enum values. */
function declared(current: DescMessage | DescEnum): readonly (DescField | DescEnumValue)[] {
  return current.kind === "message" ? current.fields : current.values;
}

/**
 * The numbers `saved` reserves that `current` neither reserves nor uses (a field or value number),
 * as sorted inclusive ranges: one pass over merged ranges, so `reserved 1000 to max` costs what
 * `reserved 1000` does.
 */
export function droppedRanges(saved: DescMessage | DescEnum, current: DescMessage | DescEnum): Array<[number, number]> {
  const reserved = reservedOf(saved).ranges;
  if (reserved.length === 0) return [];
  const kept = mergeRanges([...reservedOf(current).ranges, ...declared(current).map((x) => [x.number, x.number] as const)]);
  const out: Array<[number, number]> = [];
  let k = 0;
  for (const [start, end] of reserved) {
    while (k < kept.length && kept[k]![1] < start) k++;
    let from = start;
    for (let i = k; from <= end; i++) {
      const r = kept[i];
      if (r === undefined || r[0] > end) {
        out.push([from, end]);
        break;
      }
      if (r[0] > from) out.push([from, r[0] - 1]);
      from = Math.max(from, r[1] + 1);
    }
  }
  return out;
}

/**
 * The names `saved` reserves that `current` neither reserves nor uses, in declaration order. A
 * field's JSON name is a use too, as the JSON walk counts it (FIELD_RESERVED_NAME_REUSED there).
 */
export function droppedNames(saved: DescMessage | DescEnum, current: DescMessage | DescEnum): string[] {
  const names = saved.proto.reservedName;
  if (names.length === 0) return [];
  const inUse = new Set(current.kind === "message" ? current.fields.flatMap((f) => [f.name, jsonNameOf(f)]) : current.values.map((v) => v.name));
  return [...new Set(names)].filter((n) => !reservesName(current, n) && !inUse.has(n));
}

function hasExplicitPresence(f: DescField): boolean {
  return f.oneof !== undefined || f.presence !== IMPLICIT;
}

function isPackable(f: DescField): boolean {
  return f.enum !== undefined || (f.scalar !== undefined && f.scalar !== ScalarType.STRING && f.scalar !== ScalarType.BYTES);
}

/**
 * True when current field `cf` holds JS numbers (jstype = JS_NUMBER, dynamic kind), which the
 * readers refuse beyond ±(2^53 − 1), and saved field `sf` is 64-bit without that bound.
 */
export function jsNumberAdded(sf: DescField, cf: DescField): boolean {
  return holdsJsNumber(cf) && !holdsJsNumber(sf) && sf.scalar !== undefined && sf.fieldKind !== "map" && is64(sf.scalar);
}

/** Saved → current scalar changes that keep both the wire type and every saved value's meaning. */
function scalarReadable(saved: ScalarType, current: ScalarType): boolean {
  if (saved === current) return true;
  switch (saved) {
    case ScalarType.INT32:
      return current === ScalarType.INT64;
    case ScalarType.UINT32:
      return current === ScalarType.UINT64 || current === ScalarType.INT64;
    case ScalarType.SINT32:
      return current === ScalarType.SINT64;
    case ScalarType.STRING:
      return current === ScalarType.BYTES;
    default:
      return false;
  }
}

/** A message pair being compared: the merge position in both field lists. */
interface Frame {
  readonly saved: DescMessage;
  readonly current: DescMessage;
  readonly path: PathNode;
  readonly s: readonly DescField[];
  readonly c: readonly DescField[];
  i: number;
  j: number;
  readonly events: Map<number, OneofEvent> | undefined;
}

interface OneofEvent {
  readonly merged?: { readonly oneof: DescOneof; readonly with: DescField };
  readonly renamed?: { readonly from: string; readonly to: string };
}

/** The state of one evaluation: findings so far and the visited pairs. */
class Walk {
  constructor(
    /** Report current fields that hold JS numbers (see evaluateMessages). */
    private readonly jsNumbers: boolean,
    /** Binary data served as JSON (see evaluateMessages). */
    private readonly served: boolean,
    /** Throw FOUND at the first incompatibility (firstIncompatibility). */
    private readonly first: boolean,
    /** Report reservations of the saved schema that the current one drops (see reservations). */
    private readonly reservations: boolean,
  ) {}

  incompatibilities: Finding[] | undefined;
  notes: Finding[] | undefined;
  private visitedMessages: Map<DescMessage, Set<DescMessage>> | undefined;
  /** A message pair that the field just compared asks to descend into. */
  private pending: { saved: DescMessage; current: DescMessage; path: PathNode } | undefined;
  private visitedEnums: Map<DescEnum, Set<DescEnum>> | undefined;

  incompatible(rule: CompatibilityRule, path: PathNode, message: string | ((path: string) => string)): void {
    (this.incompatibilities ??= []).push(finding(rule, path, message));
    if (this.first) throw FOUND;
  }

  note(rule: CompatibilityRule, path: PathNode, message: string | ((path: string) => string)): void {
    (this.notes ??= []).push(finding(rule, path, message));
  }

  /**
   * Compares two messages of the same full name and everything below them, depth first. Each
   * instance pair is compared once. The walk keeps its own stack, so a schema nested thousands
   * of types deep cannot overflow the call stack.
   */
  message(saved: DescMessage, current: DescMessage, path: PathNode): void {
    const stack: Frame[] = [];
    this.enter(stack, saved, current, path);
    while (stack.length > 0) {
      const f = stack[stack.length - 1]!;
      const s = f.s;
      const c = f.c;
      while (this.pending === undefined && (f.i < s.length || f.j < c.length)) {
        const sf = s[f.i];
        const cf = c[f.j];
        if (sf !== undefined && cf !== undefined && sf.number === cf.number) {
          this.field(f.saved, sf, cf, f.path, f.events?.get(cf.number));
          f.i++;
          f.j++;
        } else if (cf === undefined || (sf !== undefined && sf.number < cf.number)) {
          this.removed(f.current, sf!, f.path);
          f.i++;
        } else {
          this.added(f.saved, cf, f.path);
          f.j++;
        }
      }
      const next = this.pending;
      if (next === undefined) {
        stack.pop();
      } else {
        this.pending = undefined;
        this.enter(stack, next.saved, next.current, next.path);
      }
    }
  }

  /** Pushes a message pair unless it is one instance or was compared before. */
  private enter(stack: Frame[], saved: DescMessage, current: DescMessage, path: PathNode): void {
    if (saved === current) return;
    if (!firstVisit((this.visitedMessages ??= new Map()), saved, current)) return;
    if (this.reservations) this.reservationsKept(saved, current, path);
    stack.push({
      saved,
      current,
      path,
      s: fieldsByNumber(saved),
      c: fieldsByNumber(current),
      i: 0,
      j: 0,
      events: current.oneofs.length > 0 ? this.oneofEvents(saved, current) : undefined,
    });
  }

  /**
   * A reservation is the only record that data written with the saved schema may still carry a
   * retired number (a removed field's values, kept as unknown fields by every re-write) or that
   * JSON may carry a retired name. A current schema that neither keeps it nor uses it (a use is a
   * *_REUSED finding) passes every check on its own, but the next check compares with it, and a
   * field added then with that number is judged fresh and misreads the old values (a helper's
   * attack pass: a chain v1 -> v4 of steps each judged compatible read v1's int32 -1 as uint64
   * 18446744073709551615; googleapis dropped `reserved 2` from google.pubsub.v1.StreamingPullResponse).
   * Numbers are incompatible; names only matter to JSON and text: a note here, incompatible at the
   * JSON boundary (json-boundary.ts).
   */
  private reservationsKept(saved: DescMessage | DescEnum, current: DescMessage | DescEnum, path: PathNode): void {
    const message = saved.kind === "message";
    const dropped = droppedRanges(saved, current);
    if (dropped.length > 0) {
      this.incompatible(message ? "FIELD_RESERVATION_REMOVED" : "ENUM_RESERVATION_REMOVED", path, (p) => reservationRemoved(p, saved, dropped));
    }
    const names = droppedNames(saved, current);
    if (names.length > 0) this.note(message ? "FIELD_RESERVED_NAME_REMOVED" : "ENUM_RESERVED_NAME_REMOVED", path, (p) => reservedNameRemoved(p, saved, names, false));
  }

  private removed(current: DescMessage, sf: DescField, parent: PathNode): void {
    const path = new PathNode(parent, sf.name, sf.number);
    // A field renumbered keeps its name: the name cannot be reserved (protoc refuses that).
    const holder = fieldNamed(current, sf);
    if (!reservesNumber(current, sf.number)) {
      this.incompatible("FIELD_REMOVED_NOT_RESERVED", path, fieldRemovedNotReserved(path, sf, current.typeName, holder));
    } else if (holder === undefined && !reservesName(current, sf.name)) {
      this.note("FIELD_NAME_NOT_RESERVED", path, fieldNameNotReserved(path, sf, current.typeName));
    }
  }

  private added(saved: DescMessage, cf: DescField, parent: PathNode): void {
    if (reservesNumber(saved, cf.number)) {
      const path = new PathNode(parent, cf.name, cf.number);
      this.incompatible("FIELD_RESERVED_NUMBER_REUSED", path, fieldReservedNumberReused(path, cf.number, saved.typeName));
    }
    if (reservesName(saved, cf.name)) {
      const path = new PathNode(parent, cf.name, cf.number);
      this.incompatible("FIELD_RESERVED_NAME_REUSED", path, fieldReservedNameReused(path, cf.name, saved.typeName));
    }
  }

  /**
   * Oneof membership changes, keyed by the current field number where they are reported: two
   * fields that the saved schema let be set together now share a oneof, or a oneof was renamed.
   */
  private oneofEvents(saved: DescMessage, current: DescMessage): Map<number, OneofEvent> | undefined {
    const savedFields = fieldsByNumber(saved);
    const currentNames = new Set(current.oneofs.map((o) => o.name));
    let events: Map<number, OneofEvent> | undefined;
    for (const oneof of current.oneofs) {
      const members = [...oneof.fields].sort((a, b) => a.number - b.number);
      let firstGroup: DescOneof | DescField | undefined;
      let firstField: DescField | undefined;
      for (const cf of members) {
        const sf = findByNumber(savedFields, cf.number);
        if (sf === undefined) continue;
        // A saved field outside any oneof is its own group: it could be set with anything.
        const group = sf.oneof ?? sf;
        if (firstGroup === undefined) {
          firstGroup = group;
          firstField = cf;
          const from = sf.oneof?.name;
          if (from !== undefined && from !== oneof.name && !currentNames.has(from)) {
            (events ??= new Map()).set(cf.number, { renamed: { from, to: oneof.name } });
          }
        } else if (group !== firstGroup) {
          (events ??= new Map()).set(cf.number, { merged: { oneof, with: firstField! } });
          break;
        }
      }
    }
    return events;
  }

  private field(
    savedMsg: DescMessage,
    sf: DescField,
    cf: DescField,
    parent: PathNode,
    event: OneofEvent | undefined,
  ): void {
    // Paths are built only for findings and descent: most fields compare equal.
    if (sf.name !== cf.name) {
      this.note("FIELD_RENAMED", pathOf(parent, cf), (p) => fieldRenamed(p, sf, cf, fieldNamed(cf.parent, sf)));
      if (reservesName(savedMsg, cf.name)) {
        this.incompatible("FIELD_RESERVED_NAME_REUSED", pathOf(parent, cf), (p) => fieldReservedNameReused(p, cf.name, savedMsg.typeName));
      }
    } else if (jsonNameOf(sf) !== jsonNameOf(cf)) {
      this.note("JSON_NAME_CHANGED", pathOf(parent, cf), (p) => jsonNameChanged(p, jsonNameOf(sf), jsonNameOf(cf)));
    }
    if (this.served && (sf.name !== cf.name || jsonNameOf(sf) !== jsonNameOf(cf))) {
      const taken = servedAsOther(savedMsg, sf, cf);
      if (taken !== undefined) {
        this.incompatible("JSON_FIELD_NAMES_SWAPPED", pathOf(parent, cf), (p) => jsonFieldNamesSwapped(p, sf, cf, taken.property, pathOf(parent, taken.other)));
      }
    }
    const renamed = event?.renamed;
    if (renamed) this.note("ONEOF_RENAMED", pathOf(parent, cf), (p) => oneofRenamed(p, renamed.from, renamed.to));
    const merged = event?.merged;
    if (merged) {
      const other = pathOf(parent, merged.with);
      this.incompatible("ONEOF_FIELDS_MERGED", pathOf(parent, cf), (p) => oneofFieldsMerged(p, merged.oneof.name, other));
    }

    const sk = sf.fieldKind;
    const ck = cf.fieldKind;
    if (sk === "map" || ck === "map") {
      if (sk !== ck) {
        this.incompatible("FIELD_MAP_CHANGED", pathOf(parent, cf), (p) => fieldMapChanged(p, describeField(sf), describeField(cf)));
        return;
      }
      if (sf.fieldKind === "map" && cf.fieldKind === "map" && sf.mapKey !== cf.mapKey) {
        this.incompatible("MAP_KEY_CHANGED", pathOf(parent, cf), (p) => mapKeyChanged(p, sf.mapKey, cf.mapKey));
      }
      // Map entries keep their value even when it is empty, like repeated elements.
      if (this.elementCheck(sf, cf, parent, true, true)) this.descend(sf, cf, parent);
      return;
    }
    if (sk === "list" && ck !== "list") {
      this.incompatible("REPEATED_TO_SINGULAR", pathOf(parent, cf), (p) => repeatedToSingular(p, describeField(sf), describeField(cf)));
      return;
    }
    const keeps = ck === "list" || cf.presence !== IMPLICIT || cf.oneof !== undefined;
    const readable = this.elementCheck(sf, cf, parent, keeps);
    if (readable && sk === "list" && ck === "list" && isPackable(sf) && isPackable(cf) && sf.packed !== cf.packed) {
      this.note("PACKED_CHANGED", pathOf(parent, cf), (p) => packedChanged(p, sf.packed, cf.packed));
    }
    if (readable && this.jsNumbers && jsNumberAdded(sf, cf)) {
      this.incompatible("JSTYPE_NUMBER_ADDED", pathOf(parent, cf), (p) => jsNumberAddedMessage(p, sf, cf, false));
    }
    if (readable && sk !== "list" && ck !== "list" && hasExplicitPresence(sf) && !hasExplicitPresence(cf)) {
      const oneof = sf.oneof;
      if (oneof !== undefined) {
        this.incompatible("FIELD_LEFT_ONEOF_TO_IMPLICIT", pathOf(parent, cf), (p) => fieldLeftOneofToImplicit(p, oneof.name));
      } else {
        this.incompatible("PRESENCE_EXPLICIT_TO_IMPLICIT", pathOf(parent, cf), (p) => presenceExplicitToImplicit(p, describeField(sf), describeField(cf)));
      }
    }
    if (readable) this.descend(sf, cf, parent);
  }

  /**
   * Compares the element (value) types of two fields; reports and returns false when saved
   * values cannot be read with the same meaning. `keeps`: the current field keeps an empty value.
   */
  private elementCheck(sf: DescField, cf: DescField, parent: PathNode, keeps: boolean, isMapValue = false): boolean {
    const sm = sf.message;
    const se = sf.enum;
    if (sm !== undefined) {
      if (cf.message !== undefined) {
        if (sm.typeName !== cf.message.typeName) {
          this.incompatible("MESSAGE_NAME_CHANGED", pathOf(parent, cf), (p) => messageNameChanged(p, sm.typeName, cf.message.typeName, isMapValue));
          return false;
        }
        if (isDelimited(sf) !== isDelimited(cf)) {
          this.incompatible("FIELD_TYPE_CHANGED", pathOf(parent, cf), (p) => fieldTypeChanged(p, sf, cf, isMapValue));
          return false;
        }
        return true;
      }
      if (cf.scalar === ScalarType.BYTES && !isDelimited(sf)) {
        if (keeps) return true;
        this.incompatible("MESSAGE_TO_BYTES_WITHOUT_PRESENCE", pathOf(parent, cf), (p) => messageToBytesWithoutPresence(p, sm.typeName));
        return false;
      }
    } else if (se !== undefined) {
      if (cf.enum !== undefined) {
        if (se.typeName !== cf.enum.typeName) {
          this.incompatible("ENUM_NAME_CHANGED", pathOf(parent, cf), (p) => enumNameChanged(p, se.typeName, cf.enum.typeName, isMapValue));
          return false;
        }
        return true;
      }
      // Enum numbers are int32 varints (negative ones sign-extended), so int32 and int64 read them as-is.
      if (cf.scalar === ScalarType.INT32 || cf.scalar === ScalarType.INT64) return true;
    } else if (cf.scalar !== undefined && scalarReadable(sf.scalar!, cf.scalar)) {
      return true;
    }
    this.incompatible("FIELD_TYPE_CHANGED", pathOf(parent, cf), (p) => fieldTypeChanged(p, sf, cf, isMapValue));
    return false;
  }

  /** Message pairs are queued for the walk in `message`; enums have no depth and compare here. */
  private descend(sf: DescField, cf: DescField, parent: PathNode): void {
    if (sf.message !== undefined && cf.message !== undefined) {
      this.pending = { saved: sf.message, current: cf.message, path: pathOf(parent, cf) };
    }
    else if (sf.enum !== undefined && cf.enum !== undefined) this.enumPair(sf.enum, cf.enum, pathOf(parent, cf));
  }

  private enumPair(saved: DescEnum, current: DescEnum, path: PathNode): void {
    if (saved === current) return;
    if (!firstVisit((this.visitedEnums ??= new Map()), saved, current)) return;
    if (this.reservations) this.reservationsKept(saved, current, path);

    const s = valuesByNumber(saved);
    const c = valuesByNumber(current);
    let currentNames: Set<string> | undefined;
    let i = 0;
    let j = 0;
    while (i < s.length || j < c.length) {
      const sv = s[i];
      const cv = c[j];
      if (sv !== undefined && cv !== undefined && sv.number === cv.number) {
        const vpath = new PathNode(path, cv.names[0]!, cv.number);
        const missing = sv.names.filter((n) => !cv.nameSet.has(n));
        if (missing.length > 0) {
          this.note("ENUM_VALUE_RENAMED", vpath, enumValueRenamed(vpath, current.typeName, missing, cv.names));
          if (this.served) {
            const byName = numbersByName(saved);
            const to = cv.names.find((n) => !sv.nameSet.has(n) && byName.has(n));
            if (to !== undefined) {
              this.incompatible("JSON_ENUM_VALUE_NAMES_SWAPPED", vpath, jsonEnumValueNamesSwapped(vpath, current.typeName, sv.names[0]!, to, byName.get(to)!));
            }
          }
        }
        for (const name of cv.names) {
          if (reservesName(saved, name) && !sv.nameSet.has(name)) {
            this.incompatible("ENUM_RESERVED_NAME_REUSED", vpath, enumReservedNameReused(vpath, name, saved.typeName));
          }
        }
        i++;
        j++;
      } else if (cv === undefined || (sv !== undefined && sv.number < cv.number)) {
        const vpath = new PathNode(path, sv!.names[0]!, sv!.number);
        // A value renumbered keeps its name: the name cannot be reserved (protoc refuses that).
        const inUse = (currentNames ??= new Set(current.values.map((v) => v.name)));
        if (!reservesNumber(current, sv!.number)) {
          this.incompatible("ENUM_VALUE_REMOVED_NOT_RESERVED", vpath, enumValueRemoved(vpath, sv!.names, sv!.number, current.typeName, inUse));
        } else {
          const unreserved = sv!.names.filter((n) => !reservesName(current, n) && !inUse.has(n));
          if (unreserved.length > 0) {
            this.note("ENUM_VALUE_NAME_NOT_RESERVED", vpath, enumValueNameNotReserved(vpath, unreserved, current.typeName));
          }
        }
        i++;
      } else {
        const vpath = new PathNode(path, cv.names[0]!, cv.number);
        if (reservesNumber(saved, cv.number)) {
          this.incompatible("ENUM_RESERVED_NUMBER_REUSED", vpath, enumReservedNumberReused(vpath, cv.number, saved.typeName));
        }
        for (const name of cv.names) {
          if (reservesName(saved, name)) {
            this.incompatible("ENUM_RESERVED_NAME_REUSED", vpath, enumReservedNameReused(vpath, name, saved.typeName));
          }
        }
        j++;
      }
    }
  }
}

/** Records the pair and says whether it is new; each instance pair is compared once. */
function firstVisit<T extends object>(visited: Map<T, Set<T>>, saved: T, current: T): boolean {
  const seen = visited.get(saved);
  if (seen === undefined) {
    visited.set(saved, new Set([current]));
    return true;
  }
  if (seen.has(current)) return false;
  seen.add(current);
  return true;
}

function isDelimited(f: DescField): boolean {
  return (f as { delimitedEncoding?: boolean }).delimitedEncoding === true;
}

interface EnumNumber {
  readonly number: number;
  /** Declaration order; the first is the primary name. */
  readonly names: readonly string[];
  readonly nameSet: ReadonlySet<string>;
}

const enumCache = new WeakMap<DescEnum, readonly EnumNumber[]>();

const namesCache = new WeakMap<DescEnum, ReadonlyMap<string, number>>();
const byNumberCache = new WeakMap<DescEnum, ReadonlyMap<number, readonly string[]>>();

/** An enum's value numbers by name (cached per enum; the JSON walk reads it too). */
export function numbersByName(desc: DescEnum): ReadonlyMap<string, number> {
  let out = namesCache.get(desc);
  if (out === undefined) {
    out = new Map(desc.values.map((v) => [v.name, v.number]));
    namesCache.set(desc, out);
  }
  return out;
}

/**
 * An enum's names by number, each list in declaration order: the first is the primary name (the
 * one `desc.value[n]` holds and ProtoJSON writes), the rest its aliases.
 */
export function namesByNumber(desc: DescEnum): ReadonlyMap<number, readonly string[]> {
  let out = byNumberCache.get(desc);
  if (out === undefined) {
    const byNumber = new Map<number, string[]>();
    for (const v of desc.values) {
      const names = byNumber.get(v.number);
      if (names === undefined) byNumber.set(v.number, [v.name]);
      else names.push(v.name);
    }
    out = byNumber;
    byNumberCache.set(desc, out);
  }
  return out;
}

function valuesByNumber(desc: DescEnum): readonly EnumNumber[] {
  let out = enumCache.get(desc);
  if (out === undefined) {
    out = [...namesByNumber(desc)].map(([number, names]) => ({ number, names, nameSet: new Set(names) })).sort((a, b) => a.number - b.number);
    enumCache.set(desc, out);
  }
  return out;
}

/** The field of `current` with `sf`'s name (a renumbered field), or undefined. */
function fieldNamed(current: DescMessage, sf: DescField): DescField | undefined {
  // protobuf-es keys fields by local name, which is a function of the name alone.
  // An own property: `field` is a plain object, whose inherited hasOwnProperty, isPrototypeOf, …
  // matched fields of those names (a function's `name` is its own).
  if (!Object.hasOwn(current.field, sf.localName)) return undefined;
  const f = (current.field as Record<string, DescField>)[sf.localName]!;
  return f.name === sf.name ? f : undefined;
}
