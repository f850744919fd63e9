// Per-descriptor facts ProtoJSON needs on every message: fields in number order with their JSON
// names, the property → field lookup, the well-known kind. Computed once per DescMessage instance.
import type { DescEnum, DescMessage } from "@bufbuild/protobuf";
import { messageInfo, type FieldInfo, type MessageInfo } from "../message/field-info.js";
import { positionsOf } from "../message/values.js";
import { wktKind } from "./wkt.js";
import { keySegment } from "../descriptor/names.js";

export interface JsonInfo {
  readonly info: MessageInfo;
  /** Fields by number: ProtoJSON writes them in that order. */
  readonly byNumber: readonly FieldInfo[];
  /** Both the JSON name and the proto name of every field (a Map: `__proto__` is an ordinary key). */
  readonly byProperty: ReadonlyMap<string, FieldInfo>;
  /** W_* of ./wkt.ts. */
  readonly wkt: number;
  /** A wide type's slot → position in `byNumber` (see message/values.ts); undefined for others. */
  readonly positions: Int32Array | undefined;
}

const infos = new WeakMap<DescMessage, JsonInfo>();

export function jsonInfo(desc: DescMessage): JsonInfo {
  let j = infos.get(desc);
  if (j !== undefined) return j;
  const info = messageInfo(desc);
  const byNumber = [...info.fields].sort((a, b) => a.number - b.number);
  const byProperty = new Map<string, FieldInfo>();
  for (const fi of byNumber) byProperty.set(fi.jsonName, fi);
  // Proto names after JSON names: when a proto name equals another field's JSON name (a schema
  // protoc rejects, but a hand-built descriptor can have), the proto name wins, as in protobuf-es.
  for (const fi of byNumber) byProperty.set(fi.name, fi);
  j = { info, byNumber, byProperty, wkt: wktKind(desc), positions: positionsOf(byNumber) };
  infos.set(desc, j);
  return j;
}

/** The name ProtoJSON writes for an enum number: the first declared value of that number. */
export function enumName(e: DescEnum, n: number): string | undefined {
  return e.value[n]?.name;
}

export const NULL_VALUE = "google.protobuf.NullValue";
export const VALUE = "google.protobuf.Value";

/**
 * `acme.Order.items(2)[0]`: a linked path, made into text only for an error or a finding. A step
 * is a field (with an element index or map key) or a ready segment; a field's text is built only
 * when the path is (a string per element measured as most of toJson's time on long lists).
 */
export class JsonPath {
  constructor(
    readonly parent: JsonPath | undefined,
    private readonly step: string | FieldInfo,
    private readonly key?: unknown,
  ) {}

  toString(): string {
    const parts: string[] = [];
    for (let p: JsonPath | undefined = this; p !== undefined; p = p.parent) parts.push(typeof p.step === "string" ? p.step : fieldSegment(p.step, p.key));
    return parts.reverse().join("");
  }
}

/** The segment of a field, with an element index or map key: `.items(2)[0]`, `.labels(4)["k"]`. */
export function fieldSegment(fi: FieldInfo, key?: unknown): string {
  return `.${fi.name}(${fi.number})${keySegment(key)}`;
}
