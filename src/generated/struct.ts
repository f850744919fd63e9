// google.protobuf.Struct as protobuf-es holds it in fields (a JsonObject), to and from its message
// form, exactly as protobuf-es converts (its private wktStructToLocal / wktStructToReflect): NaN
// and infinite numbers are kept, a Value without kind is null, unknown fields of Struct, Value and
// ListValue are not kept in the JSON form.

type Obj = Record<string, unknown>;

/** Sets an own property, also for the key `__proto__` (maps and Struct keys are data). */
export function setOwn(obj: Obj, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

export function structToLocal(struct: Obj): Obj {
  const json: Obj = {};
  const fields = struct.fields as Obj;
  for (const k of Object.keys(fields)) setOwn(json, k, valueToLocal(fields[k] as Obj));
  return json;
}

function valueToLocal(val: Obj): unknown {
  const kind = val.kind as { case: string | undefined; value?: unknown };
  switch (kind.case) {
    case "structValue":
      return structToLocal(kind.value as Obj);
    case "listValue":
      return ((kind.value as Obj).values as Obj[]).map(valueToLocal);
    case "nullValue":
    case undefined:
      return null;
    default:
      return kind.value;
  }
}

export function structToMessage(json: unknown): Obj {
  const fields: Obj = {};
  if (json !== null && typeof json === "object" && !Array.isArray(json)) {
    for (const k of Object.keys(json)) setOwn(fields, k, valueToMessage((json as Obj)[k]));
  }
  return { $typeName: "google.protobuf.Struct", fields };
}

function valueToMessage(json: unknown): Obj {
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
      else if (Array.isArray(json)) kind = { case: "listValue", value: { $typeName: "google.protobuf.ListValue", values: json.map(valueToMessage) } };
      else kind = { case: "structValue", value: structToMessage(json) };
      break;
  }
  return { $typeName: "google.protobuf.Value", kind };
}
