// Finding messages of the JSON boundary (json-boundary.ts): what changed, what a JSON parser of the
// current schema does with JSON written by the saved one (or a strict old consumer with current
// output), what to do. Lowercase, paths in the `acme.Order.items(4).price(2)` style.
import type { DescField } from "@bufbuild/protobuf";
import { describeField, describeType, nameList } from "./messages.js";
import { jsonNameOf } from "../descriptor/names.js";

interface Path {
  toString(): string;
}

const quote = (names: readonly string[]): string => names.map((n) => `"${n}"`).join(" and ");

export function jsonFieldNameChanged(path: Path, sf: DescField, lost: readonly string[], cf: DescField): string {
  const now = cf.name === jsonNameOf(cf) ? `"${cf.name}"` : `"${jsonNameOf(cf)}" (or "${cf.name}")`;
  return `field ${path} was ${sf.name}${jsonNameOf(sf) !== sf.name ? ` (JSON "${jsonNameOf(sf)}")` : ""} in the saved schema: JSON written with property ${quote(lost)} is rejected by the current parser as unknown (or dropped with ignoreUnknownFields), which now expects ${now}; keep the saved name, or set json_name = "${jsonNameOf(sf)}" and keep accepting the old property until no saved JSON has it`;
}

export function jsonOutputNameChanged(path: Path, from: string, to: string): string {
  return `field ${path} changed its JSON name from "${from}" to "${to}": the current parser still reads "${from}" (it is the proto name), but current output writes "${to}", which a strict old consumer rejects as unknown; update consumers before producers`;
}

export function jsonFieldNameReused(path: Path, sf: DescField, names: readonly string[], cf: DescField): string {
  return `property ${quote(names)} of saved field ${sf.name}(${sf.number}) now names field ${path} (${describeField(cf)}): saved JSON is read into another field than binary data is, or into one field twice; give the fields their saved names or new, never used ones`;
}

export function jsonFieldRemovedNotReserved(path: Path, sf: DescField, currentType: string): string {
  return `field ${path} (${describeField(sf)}) was removed without reserving name "${sf.name}": saved JSON with property "${jsonNameOf(sf)}" is rejected by the current parser as unknown (or dropped with ignoreUnknownFields), and a later field named "${sf.name}" would read it with another meaning; add reserved "${sf.name}" to ${currentType} and parse old JSON with ignoreUnknownFields`;
}

export function jsonFieldRemoved(path: Path, sf: DescField): string {
  return `field ${path} was removed and its name is reserved: saved JSON with property "${jsonNameOf(sf)}" is still rejected by a strict current parser as unknown; parse JSON that may be old with ignoreUnknownFields, which drops the retired property`;
}

export function jsonFieldAdded(path: Path, cf: DescField): string {
  return `field ${path} (${describeField(cf)}) is new: current JSON that sets it is rejected by a strict old consumer as unknown property "${jsonNameOf(cf)}", and one that ignores unknown fields drops it; update consumers before producers write it`;
}

export function jsonTypeChanged(path: Path, sf: DescField, cf: DescField, isMapValue: boolean, reason: string): string {
  const subject = isMapValue ? `the map value of field ${path}` : `field ${path}`;
  return `${subject} changed type from ${describeType(sf)} to ${describeType(cf)}: ${reason}; keep ${describeType(sf)} or add a new field with a new name instead`;
}

export function jsonFormChanged(path: Path, sf: DescField, cf: DescField, isMapValue: boolean, seen: string): string {
  const subject = isMapValue ? `the map value of field ${path}` : `field ${path}`;
  return `${subject} changed from ${describeType(sf)} to ${describeType(cf)}: the current parser reads saved JSON, but ${seen}; update strict consumers first`;
}

export function jsonSingularToRepeated(path: Path, from: string, to: string): string {
  return `field ${path} changed from ${from} to ${to}: binary readers take a saved value as one element, but the current JSON parser expects an array and rejects a saved single value; keep it singular or add a new field with a new name instead`;
}

export function jsonRepeatedToSingular(path: Path, from: string, to: string): string {
  return `field ${path} changed from ${from} to ${to}: saved JSON holds an array, which the current parser rejects for a singular field; keep it repeated or add a new field with a new name instead`;
}

export function jsonMapChanged(path: Path, from: string, to: string): string {
  return `field ${path} changed from ${from} to ${to}: saved JSON holds ${from.startsWith("map<") ? "an object" : "no object"} where the current parser expects ${to.startsWith("map<") ? "an object of entries" : "something else"}, so it is rejected; keep ${from} or add a new field with a new name instead`;
}

export function jsonMapKeyChanged(path: Path, from: string, to: string): string {
  return `field ${path} changed its map key from ${from} to ${to}: saved JSON keys are ${from} text, which the current parser does not read as ${to} keys with the same values; keep the ${from} key or add a new field with a new name instead`;
}

export function jsonOneofFieldsMerged(path: Path, oneof: string, other: Path): string {
  return `field ${path} is now in oneof ${oneof} together with field ${other}, which the saved schema did not keep in one oneof: saved JSON may set both, and the current parser rejects a oneof set twice; keep them in separate oneofs`;
}

export function jsonWellKnownChanged(path: Path, from: string, to: string): string {
  return `field ${path} has message type ${to}, saved ${from}: ${from.startsWith("google.protobuf.") ? from : to} has a JSON form of its own (a string, a number or any JSON), so saved JSON does not read as the other type; keep ${from} or add a new field with a new name instead`;
}

// `from` and `names` are the saved names of one number that the current enum lacks (aliases too).

export function jsonEnumValueRenamed(path: Path, enumName: string, from: readonly string[], to: string): string {
  return `enum value ${path} of ${enumName} was renamed from ${nameList(from)} to ${to}: enum values travel by name in JSON, so saved JSON with ${nameList(from, true)} is rejected by the current parser, and current JSON with "${to}" by a strict old one; keep ${nameList(from)} (an alias with allow_alias accepts both names)`;
}

export function jsonEnumValueRemovedNotReserved(path: Path, names: readonly string[], currentEnum: string): string {
  const list = nameList(names, true);
  return `enum value ${path} was removed from ${currentEnum} without reserving name ${list}: saved JSON with ${list} is rejected by the current parser, and a later value named ${list} would read it with another meaning; add reserved ${list} to ${currentEnum}`;
}

export function jsonEnumValueRemoved(path: Path, names: readonly string[]): string {
  const list = nameList(names, true);
  return `enum value ${path} was removed and name ${list} is reserved: saved JSON with ${list} is still rejected by a strict current parser; parse JSON that may be old with ignoreUnknownFields, which drops the value`;
}

export function jsonEnumValueAdded(path: Path, name: string): string {
  return `enum value ${path} is new: current JSON with "${name}" is rejected by a strict old consumer (one that ignores unknown fields drops it); update consumers before producers write it`;
}

export function jsonEnumValueOutputNameChanged(path: Path, from: string, to: string): string {
  return `enum value ${path} is now written as "${to}", saved "${from}": the current parser still reads "${from}" (an alias of the same number), but a strict consumer of the saved schema rejects "${to}" (one that ignores unknown fields drops the value); declare ${from} first to keep the saved output, or update consumers before producers write "${to}"`;
}

export function jsonFieldNamesSwapped(path: Path, sf: DescField, cf: DescField, property: string, other: Path): string {
  return `field ${path} was ${sf.name} in the saved schema, and its current JSON property "${property}" names saved field ${other}: data stored as binary is read by number and served under that property, so a JSON consumer of the saved schema reads this field's values as ${other}'s; keep the saved names, or rename to a name the saved schema never used`;
}

export function jsonEnumValueNamesSwapped(path: Path, enumName: string, from: string, to: string, otherNumber: number): string {
  return `enum value ${path} of ${enumName} was ${from} in the saved schema, and its current name ${to} was the saved name of number ${otherNumber}: data stored as binary is read by number and served as "${to}", which a JSON consumer of the saved schema reads as ${otherNumber}; keep the saved names, or rename to a name the saved enum never used`;
}
