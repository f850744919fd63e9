// Per-descriptor facts that DynamicMessage needs on every access: proto-name lookup, value slot
// indexes, presence, 64-bit representation and defaults. Computed once per DescMessage instance.
import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { holdsJsNumber, is64, longMode, L_BIGINT, L_NUMBER, L_STRING } from "../descriptor/long-form.js";
import { jsonNameOf } from "../descriptor/names.js";

export { holdsJsNumber, is64, L_BIGINT, L_NUMBER, L_STRING };

export const K_SCALAR = 0;
export const K_ENUM = 1;
export const K_MESSAGE = 2;
export const K_LIST = 3;
export const K_MAP = 4;

// google.protobuf.FeatureSet.FieldPresence.IMPLICIT
const PRESENCE_IMPLICIT = 2;

export interface FieldInfo {
  readonly field: DescField;
  /** Slot in the values array: the field's position in `desc.fields`. */
  readonly index: number;
  readonly name: string;
  /** The JSON name (jsonNameOf: the descriptor's json_name or protoc's). */
  readonly jsonName: string;
  readonly number: number;
  /** K_SCALAR … K_MAP. */
  readonly kind: number;
  /** Scalar type of a scalar field, list element, or map value; 0 when not a scalar. */
  readonly scalar: ScalarType | 0;
  /** Element kind of a list, value kind of a map (K_SCALAR, K_ENUM, K_MESSAGE); else = kind. */
  readonly elemKind: number;
  /** Map key scalar type; 0 when not a map. */
  readonly mapKey: ScalarType | 0;
  /** L_BIGINT, L_STRING or L_NUMBER for 64-bit scalars (singular and list); L_BIGINT otherwise. */
  readonly long: number;
  /** True when the field tracks presence (proto3 `optional`, message, oneof member). */
  readonly explicit: boolean;
  /** Index into `MessageInfo.oneofs`, or -1. */
  readonly oneof: number;
  /** "acme.Order.id(1)", used in error messages. */
  readonly label: string;
  /** "field acme.Order.id(1)" and "map key of field acme.Order.id(1)": how errors name the field. */
  readonly where: string;
  readonly keyWhere: string;
}

export interface OneofInfo {
  readonly name: string;
  readonly members: readonly FieldInfo[];
}

export interface MessageInfo {
  readonly desc: DescMessage;
  readonly fields: readonly FieldInfo[];
  readonly byName: ReadonlyMap<string, FieldInfo>;
  readonly byField: ReadonlyMap<DescField, FieldInfo>;
  readonly oneofs: readonly OneofInfo[];
  /** Oneof name → index in `oneofs`. */
  readonly oneofByName: ReadonlyMap<string, number>;
  /**
   * The names of the last init object initValues read, in key order, and their fields: objects
   * of one shape then resolve each key by one comparison instead of a Map lookup (span batch
   * encode from plain: fieldByName was ~4% of the time).
   */
  readonly lastKeys: string[];
  readonly lastFields: FieldInfo[];
  /** The fields that make a level below the message: messages (singular, list, map values) and maps. */
  readonly levelFields: readonly FieldInfo[];
}

/**
 * The levels a message value under a field of `kind` is below its parent: a map entry is one of
 * its own (the reader counts it). The writer's and acceptBuilt's heights both count so.
 */
export function levels(f: { readonly kind: number }): number {
  return f.kind === K_MAP ? 2 : 1;
}

const infos = new WeakMap<DescMessage, MessageInfo>();

function kindOf(k: string): number {
  switch (k) {
    case "scalar":
      return K_SCALAR;
    case "enum":
      return K_ENUM;
    case "message":
      return K_MESSAGE;
    case "list":
      return K_LIST;
    default:
      return K_MAP;
  }
}

export function messageInfo(desc: DescMessage): MessageInfo {
  let info = infos.get(desc);
  if (info !== undefined) return info;
  const oneofIndex = new Map(desc.oneofs.map((o, i) => [o, i]));
  const fields: FieldInfo[] = desc.fields.map((f, index) => {
    const kind = kindOf(f.fieldKind);
    let elemKind = kind;
    if (f.fieldKind === "list") elemKind = kindOf(f.listKind);
    else if (f.fieldKind === "map") elemKind = kindOf(f.mapKind);
    return {
      field: f,
      index,
      name: f.name,
      jsonName: jsonNameOf(f),
      number: f.number,
      kind,
      scalar: f.scalar ?? 0,
      elemKind,
      mapKey: f.fieldKind === "map" ? f.mapKey : 0,
      long: longMode(f),
      explicit:
        kind === K_MESSAGE || ((kind === K_SCALAR || kind === K_ENUM) && f.presence !== PRESENCE_IMPLICIT),
      oneof: f.oneof === undefined ? -1 : (oneofIndex.get(f.oneof) ?? -1),
      label: `${desc.typeName}.${f.name}(${f.number})`,
      where: `field ${desc.typeName}.${f.name}(${f.number})`,
      keyWhere: `map key of field ${desc.typeName}.${f.name}(${f.number})`,
    };
  });
  const byField = new Map(fields.map((fi) => [fi.field, fi]));
  // Members through the map: indexOf per member made a K-member oneof cost K² (10,000: seconds).
  const oneofs: OneofInfo[] = desc.oneofs.map((o) => ({
    name: o.name,
    members: o.fields.map((f) => byField.get(f)!),
  }));
  info = {
    desc,
    fields,
    byName: new Map(fields.map((fi) => [fi.name, fi])),
    byField,
    oneofs,
    levelFields: fields.filter((fi) => fi.kind === K_MAP || fi.elemKind === K_MESSAGE),
    oneofByName: new Map(oneofs.map((o, i) => [o.name, i])),
    lastKeys: [],
    lastFields: [],
  };
  infos.set(desc, info);
  return info;
}
