// google.protobuf.Struct as protobuf-es holds it in fields (a JsonObject), to and from its message
// form, exactly as protobuf-es converts (its private wktStructToLocal / wktStructToReflect): NaN
// and infinite numbers are kept, a Value without kind is null, unknown fields of Struct, Value and
// ListValue are not kept in the JSON form.
//
// Both directions use an explicit stack, never recursion: a decoded Struct may nest as deep as
// maxDepth allows (10,000 levels: ~3,300 JSON levels, which recursion overflowed on a smaller
// stack), and an application's JSON object may be cyclic or deeper than any write accepts, which
// recursion turned into a RangeError instead of the writer's DEPTH_LIMIT_EXCEEDED.

type Obj = Record<string, unknown>;

const STRUCT = "google.protobuf.Struct";
const VALUE = "google.protobuf.Value";
const LIST_VALUE = "google.protobuf.ListValue";

/** Sets an own property, also for the key `__proto__` (maps and Struct keys are data). */
export function setOwn(obj: Obj, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** The JsonObject of a google.protobuf.Struct message. */
export function structToLocal(struct: Obj): Obj {
  const json: Obj = {};
  // Pending conversions: a Struct's fields into a JsonObject, or a ListValue's values into an array.
  const todo: [Obj, Obj | unknown[]][] = [[struct, json]];
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    const [msg, out] = next;
    if (Array.isArray(out)) {
      for (const v of msg.values as Obj[]) out.push(valueToLocal(v, todo));
      continue;
    }
    const fields = msg.fields as Obj;
    for (const k of Object.keys(fields)) setOwn(out, k, valueToLocal(fields[k] as Obj, todo));
  }
  return json;
}

/** The JSON value of a google.protobuf.Value message; a nested Struct or list is filled later (`todo`). */
function valueToLocal(val: Obj, todo: [Obj, Obj | unknown[]][]): unknown {
  const kind = val.kind as { case: string | undefined; value?: unknown };
  switch (kind.case) {
    case "structValue": {
      const out: Obj = {};
      todo.push([kind.value as Obj, out]);
      return out;
    }
    case "listValue": {
      const out: unknown[] = [];
      todo.push([kind.value as Obj, out]);
      return out;
    }
    case "nullValue":
    case undefined:
      return null;
    default:
      return kind.value;
  }
}

/** Thrown by structToMessage for a JSON value nested deeper than it was allowed to convert. */
export class StructTooDeep extends Error {
  constructor(readonly levels: number) {
    super(`a google.protobuf.Struct nests more than ${levels} JSON objects and arrays deep`);
  }
}

/**
 * The google.protobuf.Struct message of a JsonObject (anything else: an empty Struct), for a
 * Struct at protobuf nesting `depth` under `maxDepth`. Objects and arrays nested past maxDepth
 * throw StructTooDeep: each is at least one level of protobuf nesting (the Struct itself is the
 * first), so a writer would refuse them at its depth limit, and a cyclic object is infinitely deep.
 */
export function structToMessage(json: unknown, depth: number, maxDepth: number): Obj {
  const levels = maxDepth - depth + 1;
  const fields: Obj = {};
  const todo: [Obj | unknown[], Obj | unknown[], number][] = [];
  if (json !== null && typeof json === "object" && !Array.isArray(json)) todo.push([json as Obj, fields, 1]);
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    const [src, out, depth] = next;
    if (depth > levels) throw new StructTooDeep(levels);
    if (Array.isArray(out)) {
      for (const v of src as unknown[]) out.push(valueToMessage(v, todo, depth));
      continue;
    }
    for (const k of Object.keys(src)) setOwn(out, k, valueToMessage((src as Obj)[k], todo, depth));
  }
  return { $typeName: STRUCT, fields };
}

/** The google.protobuf.Value message of a JSON value inside a container at `depth`. */
function valueToMessage(json: unknown, todo: [Obj | unknown[], Obj | unknown[], number][], depth: number): Obj {
  let kind: Obj = { case: undefined };
  switch (typeof json) {
    case "number":
      kind = { case: "numberValue", value: json };
      break;
    case "string":
      kind = { case: "stringValue", value: json };
      break;
    case "boolean":
      kind = { case: "boolValue", value: json };
      break;
    case "object":
      if (json === null) kind = { case: "nullValue", value: 0 };
      else if (Array.isArray(json)) {
        const values: Obj[] = [];
        todo.push([json, values, depth + 1]);
        kind = { case: "listValue", value: { $typeName: LIST_VALUE, values } };
      } else {
        const fields: Obj = {};
        todo.push([json as Obj, fields, depth + 1]);
        kind = { case: "structValue", value: { $typeName: STRUCT, fields } };
      }
      break;
  }
  return { $typeName: VALUE, kind };
}
