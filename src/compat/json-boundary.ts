// The JSON boundary of the evaluator (evaluateSchemaChange(…, { boundary: "json" | "binary+json" })):
// can a ProtoJSON parser of the current schema read, with the same meaning, JSON that the saved
// schema wrote? JSON names fields and enum values instead of numbering them, so this walk pairs
// fields by property name (JSON name and proto name), compares JSON forms rather than wire types,
// and notes what a strict consumer of the saved schema will see in current output. Its own walk,
// iterative (an explicit stack, every message pair once), so it works at any schema depth.
import { ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { JsonPath as PathNode } from "../json/info.js";
import type { Settings } from "../settings.js";
import { droppedNames, jsNumberAdded, namesByNumber, numbersByName, type EvaluationResult, type Finding } from "./evaluate.js";
import {
  jsonEnumValueAdded,
  jsonEnumValueOutputNameChanged,
  jsonEnumValueRemoved,
  jsonEnumValueRemovedNotReserved,
  jsonEnumValueRenamed,
  jsonFieldAdded,
  jsonFieldNameChanged,
  jsonFieldNameReused,
  jsonFieldRemoved,
  jsonFieldRemovedNotReserved,
  jsonFormChanged,
  jsonMapChanged,
  jsonMapKeyChanged,
  jsonOneofFieldsMerged,
  jsonOutputNameChanged,
  jsonRepeatedToSingular,
  jsonSingularToRepeated,
  jsonTypeChanged,
  jsonWellKnownChanged,
} from "./json-messages.js";
import {
  describeField,
  jsNumberAdded as jsNumberAddedMessage,
  enumReservedNameReused,
  fieldLeftOneofToImplicit,
  fieldReservedNameReused,
  maxDepthLowered,
  maxMessageBytesLowered,
  presenceExplicitToImplicit,
  reservedNameRemoved,
} from "./messages.js";
import { jsonNameOf, quoted } from "../descriptor/names.js";

/** Which representation saved data crosses: the evaluator's question for binary, JSON, or both. */
export type EvaluationBoundary = "binary" | "json" | "binary+json";

/** Rule ids only the JSON boundary reports (it also reports some binary ids where the problem is the same). */
export type JsonBoundaryRule =
  // incompatibilities
  | "JSON_FIELD_NAME_CHANGED"
  | "JSON_FIELD_NAMES_SWAPPED"
  | "JSON_ENUM_VALUE_NAMES_SWAPPED"
  | "JSON_FIELD_NAME_REUSED"
  | "JSON_FIELD_REMOVED_NOT_RESERVED"
  | "JSON_SINGULAR_TO_REPEATED"
  | "JSON_ENUM_VALUE_RENAMED"
  | "JSON_ENUM_VALUE_REMOVED_NOT_RESERVED"
  | "JSON_FIELD_RESERVED_NAME_REMOVED"
  | "JSON_ENUM_RESERVED_NAME_REMOVED"
  // notes (compatible)
  | "JSON_FIELD_ADDED"
  | "JSON_FIELD_REMOVED"
  | "JSON_FORM_CHANGED"
  | "JSON_OUTPUT_NAME_CHANGED"
  | "JSON_ENUM_VALUE_ADDED"
  | "JSON_ENUM_VALUE_REMOVED";

const BOUNDARIES: readonly string[] = ["binary", "json", "binary+json"];

/** The boundary option, checked (TypeError names the allowed values). */
export function checkBoundary(b: unknown): EvaluationBoundary {
  if (b === undefined) return "binary";
  if (typeof b !== "string" || !BOUNDARIES.includes(b)) {
    throw new TypeError(`evaluateSchemaChange: option boundary must be "binary", "json" or "binary+json", got ${typeof b === "string" ? quoted(b) : String(b)}`);
  }
  return b as EvaluationBoundary;
}

/**
 * The JSON boundary's result, alone ("json") or after the binary findings ("binary+json"): each
 * list keeps the documented order, binary first; a JSON finding with the rule and path of a
 * binary one is the same problem and is not repeated.
 */
export function withJsonBoundary(
  boundary: Exclude<EvaluationBoundary, "binary">,
  binary: EvaluationResult | undefined,
  saved: DescMessage,
  current: DescMessage,
  savedSettings: Settings,
  currentSettings: Settings,
): EvaluationResult {
  const json = evaluateJson(saved, current, savedSettings, currentSettings);
  if (boundary === "json" || binary === undefined) return json;
  const merge = (a: readonly Finding[], b: readonly Finding[]): readonly Finding[] => {
    if (b.length === 0) return a;
    const seen = new Set(a.map((f) => `${f.rule} ${f.path}`));
    return [...a, ...b.filter((f) => !seen.has(`${f.rule} ${f.path}`))];
  };
  const incompatibilities = merge(binary.incompatibilities, json.incompatibilities);
  return { compatible: incompatibilities.length === 0, incompatibilities, notes: merge(binary.notes, json.notes) };
}

// Paths as the binary walk writes them (`acme.Order.items(2).qty(2)`), so that the same problem
// found by both walks has the same path.
const at = (parent: PathNode, f: DescField): PathNode => new PathNode(parent, `.${f.name}(${f.number})`);

// Scalar families by JSON form and range: a saved value is read with its meaning when the current
// family holds every value of the saved one.
const F_I32 = 1;
const F_U32 = 2;
const F_I64 = 3;
const F_U64 = 4;
const F_FLOAT = 5;
const F_DOUBLE = 6;
const F_BOOL = 7;
const F_STRING = 8;
const F_BYTES = 9;

function family(t: ScalarType): number {
  switch (t) {
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return F_I32;
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return F_U32;
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return F_I64;
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return F_U64;
    case ScalarType.FLOAT:
      return F_FLOAT;
    case ScalarType.DOUBLE:
      return F_DOUBLE;
    case ScalarType.BOOL:
      return F_BOOL;
    case ScalarType.STRING:
      return F_STRING;
    default:
      return F_BYTES;
  }
}

/**
 * Saved → current scalar in JSON: undefined when the current parser reads every saved value with
 * its meaning and current output has the saved form; else what a strict old consumer sees
 * (readable: a note), or why saved JSON is misread or rejected (not readable).
 */
function scalarJson(s: ScalarType, c: ScalarType): { readable: boolean; why: string } | undefined {
  const fs = family(s);
  const fc = family(c);
  if (fs === fc) return undefined;
  const toString64 = "64-bit integers are JSON strings: current output writes this field as a string (\"5\") where a strict old consumer expects a number";
  if ((fs === F_I32 && fc === F_I64) || (fs === F_U32 && (fc === F_U64 || fc === F_I64))) return { readable: true, why: toString64 };
  if ((fs === F_I32 || fs === F_U32) && fc === F_DOUBLE) {
    return { readable: true, why: "current output may hold fractions and values beyond the 32-bit range, which a strict old consumer rejects" };
  }
  if (fs === F_FLOAT && fc === F_DOUBLE) {
    return { readable: true, why: "current output may hold doubles beyond float's range and precision, which an old consumer rejects or rounds" };
  }
  const names = ["", "a 32-bit signed integer", "a 32-bit unsigned integer", "a 64-bit signed integer (a string)", "a 64-bit unsigned integer (a string)", "a float", "a double", "true or false", "a string", "base64 text"];
  let why = `saved JSON holds ${names[fs]}, which the current parser `;
  if (fs === F_STRING && fc === F_BYTES) why += "decodes as base64: text that is not base64 is rejected, and text that is reads as other bytes";
  else if (fs === F_BYTES && fc === F_STRING) why += "reads as the base64 text itself, not the saved bytes";
  else if ((fs === F_I32 && fc === F_U32) || (fs === F_I64 && fc === F_U64)) why += "rejects when negative";
  else if ((fs === F_U32 && fc === F_I32) || (fs === F_U64 && fc === F_I64)) why += "rejects above the signed range";
  else if ((fs === F_I64 || fs === F_U64) && (fc === F_I32 || fc === F_U32)) why += "rejects outside the 32-bit range";
  else if ((fs === F_I64 || fs === F_U64 || fs === F_I32 || fs === F_U32) && fc === F_FLOAT) why += "rounds to a float";
  else if ((fs === F_I64 || fs === F_U64) && fc === F_DOUBLE) why += "rounds beyond 2^53";
  else if (fs === F_DOUBLE && fc === F_FLOAT) why += "rejects beyond float's range and rounds to float precision";
  else why += `does not read as ${names[fc]}`;
  return { readable: false, why };
}

const NULL_VALUE = "google.protobuf.NullValue";
const CUSTOM_FORM = new Set([
  "google.protobuf.Any",
  "google.protobuf.Timestamp",
  "google.protobuf.Duration",
  "google.protobuf.FieldMask",
  "google.protobuf.Struct",
  "google.protobuf.Value",
  "google.protobuf.ListValue",
  "google.protobuf.DoubleValue",
  "google.protobuf.FloatValue",
  "google.protobuf.Int64Value",
  "google.protobuf.UInt64Value",
  "google.protobuf.Int32Value",
  "google.protobuf.UInt32Value",
  "google.protobuf.BoolValue",
  "google.protobuf.StringValue",
  "google.protobuf.BytesValue",
]);

interface MessageFacts {
  /** JSON name and proto name → field. */
  readonly byProperty: ReadonlyMap<string, DescField>;
  readonly byNumber: ReadonlyMap<number, DescField>;
  readonly reserved: ReadonlySet<string>;
  readonly sorted: readonly DescField[];
}

const factsCache = new WeakMap<DescMessage, MessageFacts>();

/**
 * For data stored as binary and served as JSON ("binary+json"): the saved field (other than `sf`,
 * its pair by number) that a JSON parser of the saved schema maps a property of current field
 * `cf` to (its JSON name, or its proto name with useProtoFieldName), and that property.
 */
export function servedAsOther(saved: DescMessage, sf: DescField, cf: DescField): { property: string; other: DescField } | undefined {
  const byProperty = facts(saved).byProperty;
  for (const property of [jsonNameOf(cf), cf.name]) {
    const other = byProperty.get(property);
    if (other !== undefined && other !== sf) return { property, other };
  }
  return undefined;
}

function facts(desc: DescMessage): MessageFacts {
  let f = factsCache.get(desc);
  if (f === undefined) {
    const sorted = [...desc.fields].sort((a, b) => a.number - b.number);
    const byProperty = new Map<string, DescField>();
    for (const x of sorted) byProperty.set(jsonNameOf(x), x);
    for (const x of sorted) byProperty.set(x.name, x);
    f = { byProperty, byNumber: new Map(sorted.map((x) => [x.number, x])), reserved: new Set(desc.proto.reservedName), sorted };
    factsCache.set(desc, f);
  }
  return f;
}

const IMPLICIT = 2;
const explicit = (f: DescField): boolean => f.oneof !== undefined || f.presence !== IMPLICIT;

/** One step of a message pair, ordered by field number like the binary walk's findings. */
interface Step {
  readonly number: number;
  /** A saved field and the current field its properties name (undefined: none). */
  readonly sf: DescField | undefined;
  readonly cf: DescField | undefined;
  /** Saved property names the current parser does not map to `cf`. */
  readonly lost: readonly string[];
  /** Another saved field reads into `cf` too, or the saved names split over two fields. */
  readonly reused: boolean;
  /** For a current field: a saved field of another oneof group it now shares a oneof with. */
  readonly mergedWith: DescField | undefined;
}

interface Frame {
  readonly saved: DescMessage;
  readonly current: DescMessage;
  readonly path: PathNode;
  readonly steps: readonly Step[];
  i: number;
}

function evaluateJson(saved: DescMessage, current: DescMessage, savedSettings: Settings, currentSettings: Settings): EvaluationResult {
  const incompatibilities: Finding[] = [];
  const notes: Finding[] = [];
  const bad = (rule: Finding["rule"], path: PathNode, message: string): void => void incompatibilities.push({ rule, path: path.toString(), message });
  const note = (rule: Finding["rule"], path: PathNode, message: string): void => void notes.push({ rule, path: path.toString(), message });
  const root = new PathNode(undefined, current.typeName);
  if (currentSettings.maxMessageBytes < savedSettings.maxMessageBytes) {
    bad("MAX_MESSAGE_BYTES_LOWERED", root, maxMessageBytesLowered(savedSettings.maxMessageBytes, currentSettings.maxMessageBytes));
  }
  if (currentSettings.maxDepth < savedSettings.maxDepth) bad("MAX_DEPTH_LOWERED", root, maxDepthLowered(savedSettings.maxDepth, currentSettings.maxDepth));

  const visited = new Map<DescMessage, Set<DescMessage>>();
  const visitedEnums = new Map<DescEnum, Set<DescEnum>>();
  const stack: Frame[] = [];
  let pending: { saved: DescMessage; current: DescMessage; path: PathNode } | undefined;

  const enter = (s: DescMessage, c: DescMessage, path: PathNode): void => {
    if (s === c) return;
    let seen = visited.get(s);
    if (seen === undefined) visited.set(s, (seen = new Set()));
    if (seen.has(c)) return;
    seen.add(c);
    // A name the saved schema reserves that the current one drops: JSON older than the saved
    // schema may carry it, and the next check no longer knows it (evaluate.ts, reservationsKept).
    const dropped = droppedNames(s, c);
    if (dropped.length > 0) bad("JSON_FIELD_RESERVED_NAME_REMOVED", path, reservedNameRemoved(path, s, dropped, true));
    stack.push({ saved: s, current: c, path, steps: pairFields(s, c), i: 0 });
  };

  /**
   * Element (or map value) types: reports what does not read, queues a message pair to compare
   * deeper, and returns whether saved JSON values read.
   */
  const element = (sf: DescField, cf: DescField, path: PathNode, isMapValue: boolean): boolean => {
    const sm = sf.message;
    const cm = cf.message;
    if (sm !== undefined && cm !== undefined) {
      if ((CUSTOM_FORM.has(sm.typeName) || CUSTOM_FORM.has(cm.typeName)) && sm.typeName !== cm.typeName) {
        bad("MESSAGE_NAME_CHANGED", path, jsonWellKnownChanged(path, sm.typeName, cm.typeName));
        return false;
      }
      if (!CUSTOM_FORM.has(sm.typeName)) pending = { saved: sm, current: cm, path };
      return true;
    }
    const se = sf.enum;
    const ce = cf.enum;
    if (se !== undefined && ce !== undefined) {
      if ((se.typeName === NULL_VALUE) !== (ce.typeName === NULL_VALUE)) {
        bad("FIELD_TYPE_CHANGED", path, jsonTypeChanged(path, sf, cf, isMapValue, "google.protobuf.NullValue is JSON null, other enums are value names"));
        return false;
      }
      enumPair(se, ce, path);
      return true;
    }
    if (sf.scalar !== undefined && cf.scalar !== undefined) {
      const change = scalarJson(sf.scalar, cf.scalar);
      if (!isMapValue && (change === undefined || change.readable) && jsNumberAdded(sf, cf)) {
        bad("JSTYPE_NUMBER_ADDED", path, jsNumberAddedMessage(path, sf, cf, true));
      }
      if (change === undefined) return true;
      if (change.readable) note("JSON_FORM_CHANGED", path, jsonFormChanged(path, sf, cf, isMapValue, change.why));
      else bad("FIELD_TYPE_CHANGED", path, jsonTypeChanged(path, sf, cf, isMapValue, change.why));
      return change.readable;
    }
    const form = (f: DescField): string => (f.message !== undefined ? "an object" : f.enum !== undefined ? "an enum value name" : "a scalar");
    bad("FIELD_TYPE_CHANGED", path, jsonTypeChanged(path, sf, cf, isMapValue, `saved JSON holds ${form(sf)}, which the current parser does not read as ${form(cf)}`));
    return false;
  };

  const field = (sf: DescField, cf: DescField, path: PathNode): void => {
    const sk = sf.fieldKind;
    const ck = cf.fieldKind;
    if (sk === "map" || ck === "map") {
      if (sk !== ck) return bad("FIELD_MAP_CHANGED", path, jsonMapChanged(path, describeField(sf), describeField(cf)));
      if (sf.fieldKind === "map" && cf.fieldKind === "map" && sf.mapKey !== cf.mapKey) {
        const k = scalarJson(sf.mapKey, cf.mapKey);
        // Keys are JSON text: a key family that reads every saved key with its value is the same key.
        if (k !== undefined && (!k.readable || family(cf.mapKey) === F_DOUBLE)) {
          bad("MAP_KEY_CHANGED", path, jsonMapKeyChanged(path, ScalarType[sf.mapKey]!.toLowerCase(), ScalarType[cf.mapKey]!.toLowerCase()));
        }
      }
      element(sf, cf, path, true);
      return;
    }
    if (sk === "list" && ck !== "list") return bad("REPEATED_TO_SINGULAR", path, jsonRepeatedToSingular(path, describeField(sf), describeField(cf)));
    if (sk !== "list" && ck === "list") return bad("JSON_SINGULAR_TO_REPEATED", path, jsonSingularToRepeated(path, describeField(sf), describeField(cf)));
    const readable = element(sf, cf, path, false);
    if (readable && sk !== "list" && explicit(sf) && !explicit(cf)) {
      if (sf.oneof !== undefined) bad("FIELD_LEFT_ONEOF_TO_IMPLICIT", path, fieldLeftOneofToImplicit(path, sf.oneof.name));
      else bad("PRESENCE_EXPLICIT_TO_IMPLICIT", path, presenceExplicitToImplicit(path, describeField(sf), describeField(cf)));
    }
  };

  /** A current field whose name the saved schema reserves: retired JSON would read into it. */
  const reusesReserved = (savedType: DescMessage, cf: DescField, path: PathNode): void => {
    const reserved = facts(savedType).reserved;
    for (const name of cf.name === jsonNameOf(cf) ? [cf.name] : [cf.name, jsonNameOf(cf)]) {
      if (reserved.has(name)) bad("FIELD_RESERVED_NAME_REUSED", path, fieldReservedNameReused(path, name, savedType.typeName));
    }
  };

  const step = (f: Frame, s: Step): void => {
    const { sf, cf } = s;
    if (sf === undefined) {
      // A current field no saved property names: new to JSON.
      const path = at(f.path, cf!);
      reusesReserved(f.saved, cf!, path);
      note("JSON_FIELD_ADDED", path, jsonFieldAdded(path, cf!));
      return;
    }
    if (cf === undefined) {
      const renamed = facts(f.current).byNumber.get(sf.number);
      if (renamed !== undefined) {
        const path = at(f.path, renamed);
        bad("JSON_FIELD_NAME_CHANGED", path, jsonFieldNameChanged(path, sf, s.lost, renamed));
        return;
      }
      const path = at(f.path, sf);
      const reserved = facts(f.current).reserved;
      if (reserved.has(sf.name) || reserved.has(jsonNameOf(sf))) note("JSON_FIELD_REMOVED", path, jsonFieldRemoved(path, sf));
      else bad("JSON_FIELD_REMOVED_NOT_RESERVED", path, jsonFieldRemovedNotReserved(path, sf, f.current.typeName));
      return;
    }
    const path = at(f.path, cf);
    if (cf.name !== sf.name) reusesReserved(f.saved, cf, path);
    if (s.reused) {
      // The saved names the current parser reads into cf (it named both when only one moved).
      const byProperty = facts(f.current).byProperty;
      const names = [jsonNameOf(sf), sf.name].filter((n, i, a) => a.indexOf(n) === i && byProperty.get(n) === cf);
      bad("JSON_FIELD_NAME_REUSED", path, jsonFieldNameReused(path, sf, names, cf));
    }
    else if (s.lost.length > 0) bad("JSON_FIELD_NAME_CHANGED", path, jsonFieldNameChanged(path, sf, s.lost, cf));
    else if (jsonNameOf(cf) !== jsonNameOf(sf)) note("JSON_OUTPUT_NAME_CHANGED", path, jsonOutputNameChanged(path, jsonNameOf(sf), jsonNameOf(cf)));
    if (s.mergedWith !== undefined) bad("ONEOF_FIELDS_MERGED", path, jsonOneofFieldsMerged(path, cf.oneof!.name, at(f.path, s.mergedWith)));
    field(sf, cf, path);
  };

  const enumPair = (s: DescEnum, c: DescEnum, path: PathNode): void => {
    if (s === c) return;
    let seen = visitedEnums.get(s);
    if (seen === undefined) visitedEnums.set(s, (seen = new Set()));
    if (seen.has(c)) return;
    seen.add(c);
    const dropped = droppedNames(s, c);
    if (dropped.length > 0) bad("JSON_ENUM_RESERVED_NAME_REMOVED", path, reservedNameRemoved(path, s, dropped, true));
    const currentNames = numbersByName(c);
    const savedNames = new Set(s.values.map((v) => v.name));
    const savedReserved = new Set(s.proto.reservedName);
    const currentReserved = new Set(c.proto.reservedName);
    // By number, as the binary walk orders enum findings; each name is what JSON carries.
    const numbers = [...new Set([...s.values, ...c.values].map((v) => v.number))].sort((a, b) => a - b);
    const byNumber = namesByNumber(c);
    // Every saved name of a number, aliases too: ProtoJSON writers write the first, but the saved
    // parser read each alias, so saved JSON from other producers (or by hand) may carry any of them
    // (as a field's proto name is checked beside its JSON name).
    const savedByNumber = namesByNumber(s);
    for (const n of numbers) {
      const sv = s.value[n];
      const cv = c.value[n];
      // One finding per number, naming every lost name (an enum may have thousands of aliases).
      const lost = (savedByNumber.get(n) ?? []).filter((name) => !currentNames.has(name));
      if (lost.length > 0) {
        const vpath = new PathNode(path, `.${cv?.name ?? lost[0]}(${n})`);
        if (cv !== undefined) bad("JSON_ENUM_VALUE_RENAMED", vpath, jsonEnumValueRenamed(vpath, c.typeName, lost, cv.name));
        else {
          const kept = lost.filter((name) => currentReserved.has(name));
          const open = lost.filter((name) => !currentReserved.has(name));
          if (open.length > 0) bad("JSON_ENUM_VALUE_REMOVED_NOT_RESERVED", vpath, jsonEnumValueRemovedNotReserved(vpath, open, c.typeName));
          else note("JSON_ENUM_VALUE_REMOVED", vpath, jsonEnumValueRemoved(vpath, kept));
        }
      }
      if (cv === undefined) continue;
      const names = byNumber.get(n)!;
      for (let i = 0; i < names.length; i++) {
        const name = names[i]!;
        if (savedNames.has(name)) continue;
        const vpath = new PathNode(path, `.${cv.name}(${n})`);
        // i === 0: the number's primary name (cv.name).
        if (savedReserved.has(name)) bad("ENUM_RESERVED_NAME_REUSED", vpath, enumReservedNameReused(vpath, name, s.typeName));
        else if (i === 0 && sv === undefined) note("JSON_ENUM_VALUE_ADDED", vpath, jsonEnumValueAdded(vpath, name));
        // The number's first name, which ProtoJSON writes, is new while the saved name stays an
        // alias: saved JSON reads, current output carries a name the saved schema does not know.
        else if (i === 0 && sv !== undefined && currentNames.has(sv.name)) {
          note("JSON_OUTPUT_NAME_CHANGED", vpath, jsonEnumValueOutputNameChanged(vpath, sv.name, name));
        }
      }
    }
  };

  if (CUSTOM_FORM.has(saved.typeName) || CUSTOM_FORM.has(current.typeName)) {
    if (saved.typeName !== current.typeName) bad("MESSAGE_NAME_CHANGED", root, jsonWellKnownChanged(root, saved.typeName, current.typeName));
  } else enter(saved, current, root);
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    while (pending === undefined && f.i < f.steps.length) step(f, f.steps[f.i++]!);
    const next = pending as { saved: DescMessage; current: DescMessage; path: PathNode } | undefined;
    if (next === undefined) stack.pop();
    else {
      pending = undefined;
      enter(next.saved, next.current, next.path);
    }
  }
  return { compatible: incompatibilities.length === 0, incompatibilities, notes };
}

/**
 * The steps of a message pair: each saved field with the current field its JSON and proto names
 * lead to, each current field no saved name leads to, and oneof merges; in field-number order.
 */
function pairFields(saved: DescMessage, current: DescMessage): Step[] {
  const c = facts(current);
  const reached = new Map<DescField, DescField>(); // current field → the first saved field read into it
  const twice = new Set<DescField>();
  const pairs: { sf: DescField; cf: DescField | undefined; lost: string[]; split: boolean }[] = [];
  for (const sf of facts(saved).sorted) {
    const names = jsonNameOf(sf) === sf.name ? [jsonNameOf(sf)] : [jsonNameOf(sf), sf.name];
    const targets = names.map((n) => c.byProperty.get(n));
    const cf = targets.find((t) => t !== undefined);
    if (cf !== undefined) {
      if (reached.has(cf)) twice.add(cf);
      else reached.set(cf, sf);
    }
    pairs.push({
      sf,
      cf,
      lost: names.filter((_n, i) => targets[i] !== cf || cf === undefined),
      split: targets.some((t) => t !== undefined && t !== cf),
    });
  }
  // Members of one current oneof whose saved fields were not in one oneof: the later member
  // names the first one it was not grouped with.
  const merged = new Map<DescField, DescField>();
  for (const oneof of current.oneofs) {
    let first: { group: unknown; cf: DescField } | undefined;
    for (const cf of [...oneof.fields].sort((a, b) => a.number - b.number)) {
      const sf = reached.get(cf);
      if (sf === undefined) continue;
      const group = sf.oneof ?? sf;
      if (first === undefined) first = { group, cf };
      else if (group !== first.group) {
        merged.set(cf, first.cf);
        break;
      }
    }
  }
  const steps: Step[] = pairs.map((p) => ({
    number: p.sf.number,
    sf: p.sf,
    cf: p.cf,
    lost: p.lost,
    reused: p.split || (p.cf !== undefined && twice.has(p.cf)),
    mergedWith: p.cf === undefined ? undefined : merged.get(p.cf),
  }));
  // A current field whose number a saved field had, under a name that no longer leads to it, is
  // that field renamed (reported with it), not a new property.
  const renamed = new Set(pairs.filter((p) => p.cf === undefined).map((p) => c.byNumber.get(p.sf.number)));
  for (const cf of c.sorted) {
    if (!reached.has(cf) && !renamed.has(cf)) steps.push({ number: cf.number, sf: undefined, cf, lost: [], reused: false, mergedWith: undefined });
  }
  // A stable sort: of a saved and a current field with one number, the saved one comes first.
  return steps.sort((a, b) => a.number - b.number);
}
