// Finding messages of the evaluator: what changed, why it matters for saved data, what to do.
// Lowercase, no trailing period, paths in the `acme.Order.items(4).price(2)` style.
import { ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { jsonNameOf } from "../descriptor/names.js";

interface Path {
  toString(): string;
}

const NEW_FIELD = "add a new field with a new number instead (and reserve this one)";

function scalarName(t: ScalarType): string {
  return ScalarType[t]!.toLowerCase();
}

/** At most this many names are listed in one message (an enum value may have 100,000 aliases). */
const NAMES_SHOWN = 8;

/** `A, B, C`, or the first NAMES_SHOWN and "and N more"; each in quotes when `quote`. */
export function nameList(names: readonly string[], quote = false): string {
  const list = names.slice(0, NAMES_SHOWN).map((n) => (quote ? `"${n}"` : n)).join(", ");
  return names.length > NAMES_SHOWN ? `${list} and ${names.length - NAMES_SHOWN} more` : list;
}

/** The element (or map value) type as written in a .proto file. */
export function describeType(f: DescField): string {
  if (f.message !== undefined) return f.message.typeName;
  if (f.enum !== undefined) return f.enum.typeName;
  return scalarName(f.scalar!);
}

/** The whole field type as written in a .proto file, e.g. `optional int32`, `map<string, acme.Item>`. */
export function describeField(f: DescField): string {
  if (f.fieldKind === "map") return `map<${scalarName(f.mapKey)}, ${describeType(f)}>`;
  if (f.fieldKind === "list") return `repeated ${describeType(f)}`;
  if (f.oneof !== undefined) return `${describeType(f)} in oneof ${f.oneof.name}`;
  return f.proto.proto3Optional ? `optional ${describeType(f)}` : describeType(f);
}

type Wire = "varint" | "64-bit" | "32-bit" | "length-delimited" | "group";

function wireOf(f: DescField): Wire {
  if (f.message !== undefined) return (f as { delimitedEncoding?: boolean }).delimitedEncoding ? "group" : "length-delimited";
  if (f.enum !== undefined) return "varint";
  switch (f.scalar!) {
    case ScalarType.DOUBLE:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return "64-bit";
    case ScalarType.FLOAT:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return "32-bit";
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return "length-delimited";
    default:
      return "varint";
  }
}

const WIDE = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64]);
const NARROW = new Set([ScalarType.INT32, ScalarType.UINT32, ScalarType.SINT32]);
const ZIGZAG = new Set([ScalarType.SINT32, ScalarType.SINT64]);
const UNSIGNED = new Set([ScalarType.UINT32, ScalarType.UINT64, ScalarType.FIXED32, ScalarType.FIXED64]);
const SIGNED = new Set([
  ScalarType.INT32,
  ScalarType.INT64,
  ScalarType.SINT32,
  ScalarType.SINT64,
  ScalarType.SFIXED32,
  ScalarType.SFIXED64,
]);

function typeChangeReason(sf: DescField, cf: DescField): string {
  const ws = wireOf(sf);
  const wc = wireOf(cf);
  if (ws !== wc) {
    return `saved values use the ${ws} wire type and ${describeType(cf)} reads ${wc}, so they fail to parse or are misread`;
  }
  const same = `both use the ${ws} wire type, so saved values parse`;
  const s = sf.scalar;
  const c = cf.scalar;
  if (cf.enum !== undefined) {
    return `${same}, but numbers now take the meaning of ${cf.enum.typeName} values, and numbers it does not declare have no name`;
  }
  if (s !== undefined && c !== undefined) {
    if (s === ScalarType.BOOL || c === ScalarType.BOOL) {
      return `${same}, but bool and integers do not map onto each other (every non-zero number reads as true)`;
    }
    if (ZIGZAG.has(s) !== ZIGZAG.has(c) && ws === "varint") {
      return `${same}, but sint types are zigzag-encoded, so every saved value reads as a different number`;
    }
    if (WIDE.has(s) && NARROW.has(c)) return `${same}, but values outside the 32-bit range are truncated`;
    if ((SIGNED.has(s) && UNSIGNED.has(c)) || (UNSIGNED.has(s) && SIGNED.has(c))) {
      return `${same}, but the sign changes meaning (a negative value reads as a large unsigned number)`;
    }
    if (s === ScalarType.BYTES && c === ScalarType.STRING) {
      return `${same}, but saved bytes that are not valid UTF-8 fail to decode as string`;
    }
    if (s === ScalarType.FLOAT || s === ScalarType.DOUBLE || c === ScalarType.FLOAT || c === ScalarType.DOUBLE) {
      return `${same}, but the same bits read as a different number`;
    }
  }
  if (sf.message !== undefined || cf.message !== undefined) {
    return `${same}, but message encodings and ${sf.message !== undefined ? describeType(cf) : describeType(sf)} values are different data`;
  }
  return `${same}, but they are read with a different meaning`;
}

export function fieldTypeChanged(path: Path, sf: DescField, cf: DescField, isMapValue: boolean): string {
  const subject = isMapValue ? `the map value of field ${path}` : `field ${path}`;
  const from = describeType(sf);
  const to = describeType(cf);
  const change = from === to ? `changed encoding of ${from}` : `changed type from ${from} to ${to}`;
  return `${subject} ${change}: ${typeChangeReason(sf, cf)}; keep ${from} or ${NEW_FIELD}`;
}

export function jsNumberAdded(path: Path, sf: DescField, cf: DescField, json: boolean): string {
  const refusal = json
    ? "the current parser rejects saved JSON values beyond that (JSON_INVALID_VALUE)"
    : "the current reader refuses saved values beyond that (UNSAFE_INTEGER) and does not write values of the saved schema that hold one";
  return `field ${path} (${describeField(cf)}) has jstype = JS_NUMBER, which the saved ${describeField(sf)} did not: its values are JS numbers, exact only within ±(2^53 − 1), and ${refusal}; remove jstype = JS_NUMBER (or use JS_STRING)`;
}

export function rootNameChanged(from: string, to: string): string {
  return `message ${to} was ${from} in the saved schema: a different full name is a different type, so saved ${from} data is not read as ${to}; keep the name ${from} or migrate the saved data`;
}

export function messageNameChanged(path: Path, from: string, to: string, isMapValue: boolean): string {
  const subject = isMapValue ? `the map value of field ${path}` : `field ${path}`;
  return `${subject} has message type ${to}, saved ${from}: a different full name is a different type (moving a message to another scope or package renames it), so saved values are not read as ${to}; keep ${from} or ${NEW_FIELD}`;
}

export function enumNameChanged(path: Path, from: string, to: string, isMapValue: boolean): string {
  const subject = isMapValue ? `the map value of field ${path}` : `field ${path}`;
  return `${subject} has enum type ${to}, saved ${from}: a different full name is a different enum (moving an enum to another scope or package renames it), so saved numbers do not take its meaning; keep ${from} or ${NEW_FIELD}`;
}

export function fieldReservedNumberReused(path: Path, n: number, savedType: string): string {
  return `field ${path} reuses number ${n}, which the saved ${savedType} reserves: saved data may still carry field ${n} with its retired meaning, and this field would misread it; use a number that was never used and keep ${n} reserved`;
}

export function fieldReservedNameReused(path: Path, name: string, savedType: string): string {
  return `field ${path} reuses name "${name}", which the saved ${savedType} reserves: JSON and text data with the retired meaning of "${name}" would be read into this field; use a name that was never used and keep "${name}" reserved`;
}

/** `holder`: the current field that has the removed field's name now (renumbered), which cannot be reserved. */
export function fieldRemovedNotReserved(path: Path, sf: DescField, currentType: string, holder: DescField | undefined): string {
  const advice = holder === undefined ? `add reserved ${sf.number} and reserved "${sf.name}" to ${currentType}` : `add reserved ${sf.number} to ${currentType} (the name "${sf.name}" is field ${holder.number}'s now)`;
  return `field ${path} (${describeField(sf)}) was removed without reserving number ${sf.number}: saved data still carries field ${sf.number}, and a later field that reuses the number would misread it; ${advice}`;
}


/** `2`, `2 to 5`, `1000 to max`: ranges as a .proto file's reserved statement writes them. */
export function rangeList(ranges: ReadonlyArray<readonly [number, number]>, max: number): string {
  const shown = ranges.slice(0, NAMES_SHOWN).map(([a, b]) => (a === b ? `${a}` : `${a} to ${b === max ? "max" : b}`)).join(", ");
  const more = ranges.length - NAMES_SHOWN;
  return more > 0 ? `${shown} and ${more} more range${more === 1 ? "" : "s"}` : shown;
}

const FIELD_MAX = 536_870_911;
const ENUM_MAX = 2_147_483_647;

/** The advice of a dropped reservation: a statement to paste back, or (a list cut short) where to find them all. */
function keepReserved(list: string, count: number, what: string, t: string): string {
  return count <= NAMES_SHOWN ? `keep reserved ${list} in ${t}` : `keep every reserved ${what} of the saved ${t} (${count} are missing from the current one)`;
}

export function reservationRemoved(path: Path, saved: DescMessage | DescEnum, ranges: ReadonlyArray<readonly [number, number]>): string {
  const t = saved.typeName;
  const several = ranges.length > 1 || ranges[0]![0] !== ranges[0]![1];
  if (saved.kind === "message") {
    const list = rangeList(ranges, FIELD_MAX);
    return `${path}: the saved ${t} reserves field number${several ? "s" : ""} ${list}, which the current ${t} neither reserves nor uses: saved data may still carry ${several ? "those fields" : "that field"} (a removed field's values, which re-writes keep as unknown fields), and a later schema checked against this one could take ${several ? "one of those numbers" : "that number"} back and misread them; ${keepReserved(list, ranges.length, "range", t)}`;
  }
  const list = rangeList(ranges, ENUM_MAX);
  return `enum ${t} of ${path}: the saved ${t} reserves number${several ? "s" : ""} ${list}, which the current ${t} neither reserves nor uses: saved data may still hold ${several ? "those values" : "that value"}, and a later schema checked against this one could give ${several ? "one of them" : "it"} a new meaning; ${keepReserved(list, ranges.length, "range", t)}`;
}

/** `json`: the JSON boundary's finding (names are what JSON carries). */
export function reservedNameRemoved(path: Path, saved: DescMessage | DescEnum, names: readonly string[], json: boolean): string {
  const t = saved.typeName;
  const list = nameList(names, true);
  const several = names.length > 1;
  const at = saved.kind === "message" ? `${path}` : `enum ${t} of ${path}`;
  const data = json ? "JSON" : "binary data is unaffected, but JSON and text";
  return `${at}: the saved ${t} reserves name${several ? "s" : ""} ${list}, which the current ${t} neither reserves nor uses: ${data} written before the reservation may carry ${several ? "those names" : "that name"}, and a later schema checked against this one could give ${several ? "one of them" : "it"} to a ${saved.kind === "message" ? "field" : "value"} with another meaning; ${keepReserved(list, names.length, "name", t)}`;
}

export function fieldNameNotReserved(path: Path, sf: DescField, currentType: string): string {
  return `field ${path} was removed and number ${sf.number} is reserved, but name "${sf.name}" is not: a later field named "${sf.name}" would take over its JSON name; add reserved "${sf.name}" to ${currentType}`;
}

export function messageToBytesWithoutPresence(path: Path, from: string): string {
  return `field ${path} changed from message ${from} to bytes with implicit presence: an empty saved ${from} is zero bytes long, which an implicit-presence bytes field reads as absent and drops on re-write; declare it optional bytes`;
}

export function repeatedToSingular(path: Path, from: string, to: string): string {
  return `field ${path} changed from ${from} to ${to}: saved data may hold several elements, and a singular field keeps only the last one; keep it repeated or ${NEW_FIELD}`;
}

export function fieldMapChanged(path: Path, from: string, to: string): string {
  return `field ${path} changed from ${from} to ${to}: a map and a non-map field hold different values (map keys are unique, entries unordered), so saved data changes meaning; keep ${from} or ${NEW_FIELD}`;
}

export function mapKeyChanged(path: Path, fromKey: ScalarType, toKey: ScalarType): string {
  const from = scalarName(fromKey);
  return `field ${path} changed its map key from ${from} to ${scalarName(toKey)}: entries are identified and ordered by key, and a key of another type changes which saved entries are equal and how they sort; keep the ${from} key or ${NEW_FIELD}`;
}

export function presenceExplicitToImplicit(path: Path, from: string, to: string): string {
  return `field ${path} changed from ${from} to ${to} and lost explicit presence: a saved value explicitly set to its default (0, "", false) reads as absent and is dropped on re-write; keep it optional`;
}

export function fieldLeftOneofToImplicit(path: Path, oneof: string): string {
  return `field ${path} left oneof ${oneof} into implicit presence: a saved member set to its default (0, "", false) reads as absent and is dropped on re-write, so the saved choice is lost; declare it optional or keep it in the oneof`;
}

export function oneofFieldsMerged(path: Path, oneof: string, other: Path): string {
  return `field ${path} is now in oneof ${oneof} together with field ${other}, which the saved schema did not keep in one oneof: saved data may set both, and the current reader keeps only the last one; keep them in separate oneofs or ${NEW_FIELD}`;
}

/**
 * `names`: the removed number's names (aliases included); `inUse`: those a current value has
 * (renumbered), which cannot be reserved.
 */
export function enumValueRemoved(path: Path, names: readonly string[], number: number, currentEnum: string, inUse: ReadonlySet<string>): string {
  const free = names.filter((n) => !inUse.has(n));
  const taken = names.filter((n) => inUse.has(n));
  const reserve = free.length === 0 ? `add reserved ${number}` : `add reserved ${number} and reserved ${nameList(free, true)}`;
  const why = taken.length === 0 ? "" : taken.length === 1 ? ` (the name "${taken[0]}" is another value's now)` : ` (the names ${nameList(taken, true)} are other values' now)`;
  return `enum value ${path} was removed from ${currentEnum} without reserving number ${number}: saved data may still hold ${number}, which now has no name, and a later value that reuses ${number} would change its meaning; ${reserve} to ${currentEnum}${why}`;
}

export function enumValueNameNotReserved(path: Path, names: readonly string[], currentEnum: string): string {
  const list = nameList(names, true);
  return `enum value ${path} was removed and its number is reserved, but name ${list} is not: a later value with that name would take over its JSON and text form; add reserved ${list} to ${currentEnum}`;
}

export function enumReservedNumberReused(path: Path, number: number, savedEnum: string): string {
  return `enum value ${path} reuses number ${number}, which the saved ${savedEnum} reserves: saved data may still hold ${number} with its retired meaning; use a number that was never used and keep ${number} reserved`;
}

export function enumReservedNameReused(path: Path, name: string, savedEnum: string): string {
  return `enum value ${path} reuses name "${name}", which the saved ${savedEnum} reserves: JSON and text data with the retired meaning of "${name}" would be read as this value; use a name that was never used and keep "${name}" reserved`;
}

export function maxMessageBytesLowered(saved: number, current: number): string {
  return `setting maxMessageBytes is ${current}, saved ${saved}: saved messages larger than ${current} bytes cannot be read; set maxMessageBytes to at least ${saved}`;
}

export function maxDepthLowered(saved: number, current: number): string {
  return `setting maxDepth is ${current}, saved ${saved}: saved messages nested deeper than ${current} levels cannot be read; set maxDepth to at least ${saved}`;
}

// notes

export function fieldRenamed(path: Path, sf: DescField, cf: DescField, holder: DescField | undefined): string {
  const json = jsonNameOf(sf) === jsonNameOf(cf) ? `its JSON name stays "${jsonNameOf(cf)}"` : `its JSON name changes from "${jsonNameOf(sf)}" to "${jsonNameOf(cf)}"`;
  const advice = holder === undefined ? `update name-based readers and reserve "${sf.name}" if it should not come back` : `update name-based readers ("${sf.name}" is field ${holder.number}'s name now)`;
  return `field ${path} was renamed from ${sf.name}: binary data is unaffected, but code that reads it by name changes and ${json}; ${advice}`;
}

export function jsonNameChanged(path: Path, from: string, to: string): string {
  return `field ${path} changed its JSON name from "${from}" to "${to}": binary data is unaffected, but JSON written with "${from}" no longer maps to this field; update JSON producers and consumers`;
}

export function packedChanged(path: Path, from: boolean, to: boolean): string {
  const name = (p: boolean): string => (p ? "packed" : "unpacked");
  // Unpacked, each element takes its own tag: a run of 1-byte varints doubles (a found attack: saved
  // data that read back was refused as MESSAGE_TOO_LARGE by a deterministic re-write).
  const grows = to ? "" : `, and unpacked ones are larger (a tag per element: a run of 1-byte values doubles), so a saved message near maxMessageBytes may be refused (MESSAGE_TOO_LARGE) when re-written; raise maxMessageBytes if it must be`;
  return `field ${path} changed from ${name(from)} to ${name(to)} encoding: readers accept both, so saved data reads unchanged, but re-written bytes differ from the saved bytes${grows}`;
}

export function oneofRenamed(path: Path, from: string, to: string): string {
  return `oneof ${from} containing field ${path} was renamed to ${to}: binary and JSON data are unaffected; code that reads the oneof by name changes`;
}

export function enumValueRenamed(path: Path, enumName: string, from: readonly string[], to: readonly string[]): string {
  return `enum value ${path} of ${enumName} was renamed from ${nameList(from)} to ${nameList(to)}: binary data is unaffected, but JSON and text written with ${nameList(from)} no longer parse; accept the old name where JSON is read`;
}
