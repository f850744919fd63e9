// DynamicMessage → ProtoJSON value (https://protobuf.dev/programming-guides/json/). Built top-down
// with an explicit stack, like toObject: a nested message becomes an empty object (or array) now
// and is filled when its task comes, so any depth maxDepth allows works without JS recursion.
import { ScalarType, type DescEnum, type DescMessage } from "@bufbuild/protobuf";
import { keyOrder } from "../codec/map-order.js";
import { CodecError } from "../errors.js";
import { MAX_DEPTH_LIMIT } from "../settings.js";
import type { DynamicMessage } from "../message/dynamic-message.js";
import { K_ENUM, K_LIST, K_MAP, K_MESSAGE, L_STRING, type FieldInfo } from "../message/field-info.js";
import { jsonNameOf } from "../descriptor/names.js";
import { encodeBase64 } from "./base64.js";
import { MAX_JSON_TEXT } from "./stringify.js";
import { JsonPath, NULL_VALUE, enumName, jsonInfo } from "./info.js";
import type { JsonValue } from "./options.js";
import { setPositions } from "../message/values.js";
import {
  W_ANY,
  W_DURATION,
  W_FIELD_MASK,
  W_LIST_VALUE,
  W_NONE,
  W_STRUCT,
  W_TIMESTAMP,
  W_VALUE,
  W_WRAPPER,
  durationText,
  lowerCamel,
  snake,
  timestampText,
} from "./wkt.js";
import { quoted, shortName, shortPath } from "../descriptor/names.js";

type JsonObject = { [key: string]: JsonValue };

export interface ToJsonContext {
  readonly rootName: string;
  readonly emitDefaults: boolean;
  readonly enumAsInteger: boolean;
  readonly protoNames: boolean;
  readonly discardUnknown: boolean;
  readonly maxDepth: number;
  readonly sortMapKeys: boolean;
  /** Stop with FOREIGN_VALUE at the first value whose descriptor is not its declaration's. */
  readonly paired: boolean;
  /** The root's declaration (the serializer's descriptor) when `paired`. */
  readonly root: DescMessage | undefined;
  readonly resolve: ((typeName: string) => DescMessage | undefined) | undefined;
  /** Reads the bytes of an Any whose type resolved; errors name `path`. */
  readonly unpack: (desc: DescMessage, bytes: Uint8Array, path: JsonPath) => DynamicMessage;
  /** How the caller passes options, for error hints: "serializer.toJson(value, { … })". */
  readonly api: string;
  /** Filled in when given: what decides whether JSON.stringify can write the result. */
  readonly stats?: JsonStats;
}

/** The deepest message written, and whether a double's -0 was (JSON.stringify writes it as 0). */
export interface JsonStats {
  depth: number;
  negativeZero: boolean;
  /** The value's binary size (set by toJsonOf): what bounds its number of JSON lines. */
  bytes: number;
}

/**
 * Thrown when `paired` meets a value of another descriptor instance; toJsonOf catches it and reads
 * the value again with the serializer's schema, so it never reaches a caller. One Error object,
 * made once: no stack is captured per value.
 */
export const FOREIGN_VALUE = new Error("protokeel: a value of another descriptor instance (read again with the serializer's schema)");

interface Task {
  readonly msg: DynamicMessage;
  /** The object the message's fields go into (a ListValue's array), or, with `key`, the container its form goes into. */
  readonly out: JsonObject | JsonValue[];
  /** Where the form goes (a deferred `emit`); undefined: fill `out` with the message's fields. */
  readonly key: string | number | undefined;
  readonly declared: DescMessage | undefined;
  readonly depth: number;
  readonly path: JsonPath;
}

function setOwn(o: JsonObject, key: string, value: JsonValue): void {
  if (key === "__proto__") Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

function put(out: JsonObject | JsonValue[], key: string | number, value: JsonValue): void {
  if (typeof key === "number") (out as JsonValue[])[key] = value;
  else setOwn(out as JsonObject, key, value);
}

const DEPTH_HINT = "(a map entry counts as a level); raise maxDepth or flatten the value";


/** Unknown field numbers a JSON_UNKNOWN_FIELDS message lists before "and N more". */
const LISTED_UNKNOWN = 10;
export function messageToJson(root: DynamicMessage, ctx: ToJsonContext): JsonValue {
  const stack: Task[] = [];

  const fail = (code: string, path: JsonPath, what: string): never => {
    const p = path.toString();
    throw new CodecError(code, `cannot write ${ctx.rootName} to JSON: ${what.replace("{path}", () => shortPath(p, ctx.rootName))}`, { path: p });
  };

  const checkMessage = (msg: DynamicMessage, declared: DescMessage | undefined, depth: number, path: JsonPath): void => {
    if (ctx.paired && declared !== undefined && msg.descriptor !== declared) throw FOREIGN_VALUE;
    if (depth > ctx.maxDepth) fail("DEPTH_LIMIT_EXCEEDED", path, `nesting depth ${depth} at {path} exceeds maxDepth ${ctx.maxDepth} ${DEPTH_HINT}`);
    const unknown = msg._unknown;
    if (unknown.length > 0 && !ctx.discardUnknown) {
      // The first numbers and how many more: a value may hold 100,000 distinct ones (692 KB of
      // message when all were listed).
      const distinct = [...new Set(unknown.map((u) => u.number))];
      const numbers = distinct.length <= LISTED_UNKNOWN ? distinct.join(", ") : `${distinct.slice(0, LISTED_UNKNOWN).join(", ")} and ${distinct.length - LISTED_UNKNOWN} more`;
      fail(
        "JSON_UNKNOWN_FIELDS",
        path,
        `{path} (${msg.descriptor.typeName}) holds unknown field${unknown.length === 1 ? "" : "s"} ${numbers}, which ProtoJSON cannot represent (it names fields, and these have no name in this schema); write binary to keep them, read with the schema that declares them, or pass discardUnknownFields: true to ${ctx.api} to drop them (data loss)`,
      );
    }
  };

  /**
   * Puts the JSON form of message value `msg` (declared as `declared`) at out[key]. Objects and
   * arrays are put empty and filled by a later task; a form that is another message's form (a
   * Value's struct_value, an Any's well-known content) is put by a later task, so nothing recurses.
   */
  const stats = ctx.stats;
  const emit = (out: JsonObject | JsonValue[], key: string | number, msg: DynamicMessage, declared: DescMessage | undefined, depth: number, path: JsonPath): void => {
    checkMessage(msg, declared, depth, path);
    if (stats !== undefined && depth > stats.depth) stats.depth = depth;
    const desc = msg.descriptor;
    const j = jsonInfo(desc);
    const values = msg._values;
    switch (j.wkt) {
      case W_NONE:
      case W_STRUCT: {
        const o: JsonObject = {};
        put(out, key, o);
        stack.push({ msg, out: o, key: undefined, declared, depth, path });
        return;
      }
      case W_LIST_VALUE: {
        const a: JsonValue[] = [];
        put(out, key, a);
        stack.push({ msg, out: a, key: undefined, declared, depth, path });
        return;
      }
      case W_TIMESTAMP:
      case W_DURATION: {
        const seconds = Number((values[j.info.byName.get("seconds")!.index] as bigint | undefined) ?? 0);
        const nanos = (values[j.info.byName.get("nanos")!.index] as number | undefined) ?? 0;
        const text = j.wkt === W_TIMESTAMP ? timestampText(seconds, nanos) : durationText(seconds, nanos);
        if (typeof text !== "string") return fail("JSON_NOT_REPRESENTABLE", path, `{path} is a ${desc.typeName} that ProtoJSON cannot write: ${text.error}`);
        put(out, key, text);
        return;
      }
      case W_FIELD_MASK: {
        const paths = (values[0] as string[] | undefined) ?? [];
        const camel: string[] = [];
        for (const p of paths) {
          const c = lowerCamel(p);
          // A path with a comma, or an empty one, does not survive the comma-joined form either.
          if (p === "" || p.includes(",")) {
            fail("JSON_NOT_REPRESENTABLE", path, `{path} is a google.protobuf.FieldMask with path ${quoted(p)}, which the comma-separated form cannot hold; remove ${p === "" ? "the empty path" : "the comma"}`);
          }
          if (snake(c) !== p) {
            fail("JSON_NOT_REPRESENTABLE", path, `{path} is a google.protobuf.FieldMask with path ${quoted(p)}, whose lowerCamelCase form does not read back as the same path; use lower_snake_case field names`);
          }
          camel.push(c);
        }
        put(out, key, camel.join(","));
        return;
      }
      case W_WRAPPER: {
        const fi = j.info.fields[0]!;
        const v = values[0];
        put(out, key, v === undefined ? defaultJson(fi) : scalarJson(fi, v));
        return;
      }
      case W_VALUE: {
        for (const fi of j.byNumber) {
          const v = values[fi.index];
          if (v === undefined) continue;
          switch (fi.number) {
            case 1:
              put(out, key, null);
              return;
            case 2:
              if (!Number.isFinite(v)) {
                fail("JSON_NOT_REPRESENTABLE", path, `{path} is a google.protobuf.Value holding number ${String(v)}, which JSON has no number for; hold it as string_value`);
              }
              // The -0 a double carries is written "-0" (see scalarJson): tell the text writer.
              if (v === 0 && stats !== undefined && Object.is(v, -0)) stats.negativeZero = true;
              put(out, key, v as number);
              return;
            case 3:
            case 4:
              put(out, key, v as string | boolean);
              return;
            default:
              // A placeholder keeps the key's place among its siblings.
              put(out, key, null);
              stack.push({ msg: v as DynamicMessage, out, key, declared: fi.field.message, depth: depth + 1, path: new JsonPath(path, fi) });
              return;
          }
        }
        fail("JSON_NOT_REPRESENTABLE", path, "{path} is a google.protobuf.Value with no kind set, which ProtoJSON cannot write (null is null_value); set one of its fields");
        return;
      }
      default:
        put(out, key, anyJson(msg, depth, path));
    }
  };

  const anyJson = (msg: DynamicMessage, depth: number, path: JsonPath): JsonValue => {
    const j = jsonInfo(msg.descriptor);
    const url = (msg._values[j.info.byName.get("type_url")!.index] as string | undefined) ?? "";
    const bytes = msg._values[j.info.byName.get("value")!.index] as Uint8Array | undefined;
    if (url === "") {
      if (bytes === undefined || bytes.length === 0) return {};
      return fail("JSON_NOT_REPRESENTABLE", path, `{path} is a google.protobuf.Any with ${bytes.length} value byte${bytes.length === 1 ? "" : "s"} and no type_url; ProtoJSON cannot write bytes of no type: set type_url to the packed message's type, or keep this value in binary`);
    }
    const typeName = url.slice(url.lastIndexOf("/") + 1);
    const desc = ctx.resolve?.(typeName);
    if (desc === undefined) {
      return fail(
        "JSON_ANY_TYPE_UNKNOWN",
        path,
        `{path} is a google.protobuf.Any of type ${quoted(url)}, which ${ctx.resolve === undefined ? "cannot be resolved without a registry" : "the registry does not hold"}; pass a registry that holds ${shortName(typeName) || "the type"} in the options of ${ctx.api}`,
      );
    }
    const inner = ctx.unpack(desc, bytes ?? new Uint8Array(0), path);
    const o: JsonObject = { "@type": url };
    const innerPath = new JsonPath(path, `<${desc.typeName}>`);
    if (jsonInfo(desc).wkt === W_NONE) {
      // An ordinary message's fields go into the Any's own object, after "@type": a field whose
      // JSON name is "@type" (json_name = "@type" is accepted by protoc) would overwrite the URL.
      if (!ctx.protoNames) {
        const clash = desc.fields.find((f) => jsonNameOf(f) === "@type");
        if (clash !== undefined) {
          return fail(
            "JSON_NOT_REPRESENTABLE",
            path,
            `{path} is a google.protobuf.Any holding ${desc.typeName}, whose field ${clash.name} has the JSON name "@type", which the Any's JSON object uses for its type URL; write with proto field names (useProtoFieldName) or rename the field's json_name`,
          );
        }
      }
      checkMessage(inner, desc, depth + 1, innerPath);
      stack.push({ msg: inner, out: o, key: undefined, declared: desc, depth: depth + 1, path: innerPath });
    } else {
      o.value = null;
      stack.push({ msg: inner, out: o, key: "value", declared: desc, depth: depth + 1, path: innerPath });
    }
    return o;
  };

  const scalarJson = (fi: FieldInfo, v: unknown): JsonValue => {
    switch (fi.scalar) {
      case ScalarType.DOUBLE:
      case ScalarType.FLOAT: {
        const n = v as number;
        if (n === 0 && stats !== undefined && Object.is(n, -0)) stats.negativeZero = true;
        return Number.isFinite(n) ? n : Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
      }
      case ScalarType.INT64:
      case ScalarType.UINT64:
      case ScalarType.SINT64:
      case ScalarType.FIXED64:
      case ScalarType.SFIXED64:
        // bigint, a JS_STRING decimal string or a JS_NUMBER number: always a decimal string.
        return typeof v === "string" ? v : String(v);
      case ScalarType.BYTES: {
        const b = v as Uint8Array;
        // Its base64 text past the longest string: encodeBase64's join threw a bare RangeError.
        const chars = 4 * Math.ceil(b.length / 3);
        if (chars > MAX_JSON_TEXT - 2) {
          throw new CodecError(
            "JSON_TEXT_TOO_LONG",
            `cannot write ${ctx.rootName} to JSON: field ${fi.label} holds ${b.length} bytes, whose base64 text of ${chars} characters is longer than ${MAX_JSON_TEXT.toLocaleString("en-US")}, the longest string JavaScript runtimes hold (V8's limit); write it as binary`,
            { path: fi.label },
          );
        }
        return encodeBase64(b);
      }
      default:
        return v as JsonValue;
    }
  };

  const enumJson = (e: DescEnum, n: number): JsonValue => {
    if (e.typeName === NULL_VALUE) return null;
    if (ctx.enumAsInteger) return n;
    return enumName(e, n) ?? n;
  };

  const defaultJson = (fi: FieldInfo): JsonValue => {
    if (fi.kind === K_LIST) return [];
    if (fi.kind === K_MAP) return {};
    if (fi.kind === K_ENUM) return enumJson(fi.field.enum!, fi.field.enum!.values[0]?.number ?? 0);
    switch (fi.scalar) {
      case ScalarType.BOOL:
        return false;
      case ScalarType.STRING:
      case ScalarType.BYTES:
        return "";
      case ScalarType.INT64:
      case ScalarType.UINT64:
      case ScalarType.SINT64:
      case ScalarType.FIXED64:
      case ScalarType.SFIXED64:
        return "0";
      default:
        return 0;
    }
  };

  /** Puts one element of a list or map, or a singular message, of field `fi` at out[at]. */
  const element = (out: JsonObject | JsonValue[], at: string | number, fi: FieldInfo, v: unknown, depth: number, path: JsonPath, key: unknown): void => {
    if (fi.elemKind === K_MESSAGE) emit(out, at, v as DynamicMessage, fi.field.message, depth, new JsonPath(path, fi, key));
    else put(out, at, fi.elemKind === K_ENUM ? enumJson(fi.field.enum!, v as number) : scalarJson(fi, v));
  };

  const mapInto = (o: JsonObject, fi: FieldInfo, m: ReadonlyMap<unknown, unknown>, depth: number, path: JsonPath): void => {
    if (depth + 1 > ctx.maxDepth) {
      fail("DEPTH_LIMIT_EXCEEDED", new JsonPath(path, fi), `nesting depth ${depth + 1} at {path} exceeds maxDepth ${ctx.maxDepth} ${DEPTH_HINT}`);
    }
    for (const k of ctx.sortMapKeys && m.size > 1 ? [...m.keys()].sort(keyOrder) : m.keys()) element(o, String(k), fi, m.get(k), depth + 2, path, k);
  };

  const fill = (t: Task): void => {
    const { msg, depth, path } = t;
    if (t.key !== undefined) {
      emit(t.out, t.key, msg, t.declared, depth, path);
      return;
    }
    const j = jsonInfo(msg.descriptor);
    const values = msg._values;
    if (j.wkt === W_LIST_VALUE) {
      const list = values[0] as DynamicMessage[] | undefined;
      const fi = j.info.fields[0]!;
      if (list !== undefined) for (let i = 0; i < list.length; i++) element(t.out, i, fi, list[i], depth + 1, path, i);
      return;
    }
    const o = t.out as JsonObject;
    if (j.wkt === W_STRUCT) {
      const m = values[0] as Map<string, DynamicMessage> | undefined;
      if (m !== undefined) mapInto(o, j.info.fields[0]!, m, depth, path);
      return;
    }
    // A wide type's absent fields are skipped unseen, unless their defaults are written.
    const order = j.positions === undefined || ctx.emitDefaults ? undefined : setPositions(values, j.positions);
    const n = order === undefined ? j.byNumber.length : order.length;
    for (let k = 0; k < n; k++) {
      const fi = j.byNumber[order === undefined ? k : order[k]!]!;
      const v = values[fi.index];
      const key = ctx.protoNames ? fi.name : fi.jsonName;
      if (v === undefined) {
        // Explicit presence: absent stays absent; implicit fields, lists and maps have a default.
        if (ctx.emitDefaults && !fi.explicit) setOwn(o, key, defaultJson(fi));
        continue;
      }
      switch (fi.kind) {
        case K_LIST: {
          const list = v as readonly unknown[];
          const a: JsonValue[] = new Array(list.length);
          for (let i = 0; i < list.length; i++) element(a, i, fi, list[i], depth + 1, path, i);
          setOwn(o, key, a);
          break;
        }
        case K_MAP: {
          const mo: JsonObject = {};
          setOwn(o, key, mo);
          mapInto(mo, fi, v as ReadonlyMap<unknown, unknown>, depth, path);
          break;
        }
        case K_MESSAGE:
          emit(o, key, v as DynamicMessage, fi.field.message, depth + 1, new JsonPath(path, fi));
          break;
        case K_ENUM:
          setOwn(o, key, enumJson(fi.field.enum!, v as number));
          break;
        default:
          setOwn(o, key, fi.long === L_STRING ? (v as string) : scalarJson(fi, v));
      }
    }
  };

  const holder: JsonValue[] = [null];
  emit(holder, 0, root, ctx.root, 1, new JsonPath(undefined, root.descriptor.typeName));
  while (stack.length > 0) fill(stack.pop()!);
  return holder[0]!;
}

/** `DynamicMessage#toJSON`: no serializer, so no registry, no writer checks, and the largest maxDepth. */
export function plainToJson(msg: DynamicMessage): JsonValue {
  return messageToJson(msg, {
    rootName: msg.descriptor.typeName,
    emitDefaults: false,
    enumAsInteger: false,
    protoNames: false,
    discardUnknown: false,
    maxDepth: MAX_DEPTH_LIMIT,
    sortMapKeys: false,
    paired: false,
    root: undefined,
    resolve: undefined,
    unpack: () => {
      throw new Error("unreachable: no registry");
    },
    api: "serializer.toJson(value, { … })",
  });
}

