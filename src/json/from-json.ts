// ProtoJSON value → DynamicMessage. Values are immutable and built bottom-up, so the walk has two
// passes over an explicit work list: the first reads every JSON object top-down, converts scalars
// and leaves a placeholder where a nested message goes; the second builds the messages in reverse
// (children before parents) and puts each into its placeholder. No JS recursion at any depth.
// Size: one walk with one work list; the well-known types' readers share its context and
// path building, so they stay beside it.
import { ScalarType, type DescMessage } from "@bufbuild/protobuf";
import { CodecError } from "../errors.js";
import {
  FLOAT_MAX,
  floatOverflows,
  INT32_MAX,
  INT32_MIN,
  INT64_MAX,
  INT64_MIN,
  JS_NUMBER_RANGE,
  UINT32_MAX,
  UINT64_MAX,
  decimalBigInt,
  describeValue,
  isDecimal,
  isImplicitZero,
  isWellFormed,
  namesOf,
  roundsAsNumber,
} from "../message/coerce.js";
import { DynamicMessage } from "../message/dynamic-message.js";
import { K_ENUM, K_LIST, K_MAP, K_MESSAGE, L_NUMBER, L_STRING, is64, messageInfo, type FieldInfo } from "../message/field-info.js";
import { newValues } from "../message/values.js";
import { decodeBase64 } from "./base64.js";
import { JsonPath, NULL_VALUE, VALUE, jsonInfo } from "./info.js";
import { isJsonNumber, JsonBigInteger } from "./parse.js";
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
  parseDuration,
  parseTimestamp,
  snake,
} from "./wkt.js";
import { quoted, shortName, shortPath } from "../descriptor/names.js";

export interface FromJsonContext {
  readonly rootName: string;
  readonly ignoreUnknown: boolean;
  readonly maxDepth: number;
  readonly resolve: ((typeName: string) => DescMessage | undefined) | undefined;
  /** The binary form of an Any's content (checked by a serializer of its type); errors name `path`. */
  readonly pack: (desc: DescMessage, value: DynamicMessage, path: JsonPath) => Uint8Array;
  /** How the caller passes options, for error hints: "serializer.fromJson(json, { … })". */
  readonly api: string;
}

type Container = unknown[] | Map<unknown, unknown>;

/** A message read in the first pass and built in the second. */
interface Node {
  readonly desc: DescMessage;
  readonly wkt: number;
  readonly json: unknown;
  readonly depth: number;
  readonly path: JsonPath;
  readonly values: unknown[];
  /** Where the built message goes: a values array, a list or a map, at `at`. */
  readonly into: Container;
  readonly at: unknown;
  /** An Any's content, built into slot 0. */
  inner: unknown[] | undefined;
  /** Set on an Any's content that is an ordinary message: its "@type" is not a field. */
  readonly skipType: boolean;
  /** The member set so far of each oneof, when the message has oneofs. */
  oneofs: (FieldInfo | undefined)[] | undefined;
}

/** Returned by an enum read that skips an unknown name (ignoreUnknownFields). */
const SKIP = Symbol("skip");

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof JsonBigInteger) && !(v instanceof Uint8Array);
}

/** A value an error describes in words: a string with a lone surrogate is not quoted (it cannot be printed as it is). */
class Described {
  constructor(readonly text: string) {}
}
const LONE_STRING = new Described("a string with a lone surrogate");
const LONE_KEY = new Described("a key with a lone surrogate");

function describeJson(v: unknown): string {
  if (v instanceof Described) return v.text;
  if (v instanceof JsonBigInteger) return v.scaled ? describeValue(v.value) : `number ${shortName(v.text)}`;
  if (isObject(v)) return "an object";
  return describeValue(v);
}

function place(into: Container, at: unknown, v: unknown): void {
  if (into instanceof Map) into.set(at, v);
  else into[at as number] = v;
}

export function messageFromJson(root: DescMessage, json: unknown, ctx: FromJsonContext): DynamicMessage {
  const nodes: Node[] = [];
  const todo: Node[] = [];

  const fail = (code: string, path: JsonPath | string, what: string, hint: string): never => {
    const p = path.toString();
    throw new CodecError(code, `cannot read ${ctx.rootName} from JSON: ${what.replace("{path}", () => shortPath(p, ctx.rootName))}; ${hint}`, { path: p });
  };
  const invalid = (path: JsonPath | string, expects: string, v: unknown, why = ""): never =>
    fail("JSON_INVALID_VALUE", path, `{path} expects ${expects}, got ${describeJson(v)}${why}`, "fix the value or read with the schema that wrote it");
  const tooDeep = (path: JsonPath, depth: number): never =>
    fail("DEPTH_LIMIT_EXCEEDED", path, `nesting depth ${depth} at {path} exceeds maxDepth ${ctx.maxDepth} (a map entry counts as a level)`, "raise maxDepth or reject the input");

  /** Starts the message of type `desc` read from `json`, to be put at into[at]. */
  const child = (desc: DescMessage, v: unknown, depth: number, path: JsonPath, into: Container, at: unknown, skipType = false): void => {
    if (depth > ctx.maxDepth) tooDeep(path, depth);
    const wkt = jsonInfo(desc).wkt;
    switch (wkt) {
      case W_TIMESTAMP:
      case W_DURATION:
      case W_FIELD_MASK:
      case W_WRAPPER:
        place(into, at, leaf(desc, wkt, v, path));
        return;
    }
    const node: Node = {
      desc,
      wkt,
      json: v,
      depth,
      path,
      values: newValues(messageInfo(desc).fields.length),
      into,
      at,
      inner: undefined,
      skipType,
      oneofs: undefined,
    };
    nodes.push(node);
    todo.push(node);
    place(into, at, undefined);
  };

  /** A well-known type whose JSON form is a string or a scalar, built at once. */
  const leaf = (desc: DescMessage, wkt: number, v: unknown, path: JsonPath): DynamicMessage => {
    const info = messageInfo(desc);
    const values = newValues(info.fields.length);
    if (wkt === W_WRAPPER) {
      const fi = info.fields[0]!;
      // A wrapper's null (inside an Any or a list) is its default; a null field is skipped before.
      if (v !== null) values[0] = storedScalar(fi, scalar(fi, v, path), !fi.explicit);
    } else if (wkt === W_FIELD_MASK) {
      if (typeof v !== "string") invalid(path, "a google.protobuf.FieldMask as a string of comma-separated lowerCamelCase paths", v);
      const text = v as string;
      if (!isWellFormed(text)) invalid(path, "a well-formed string, with no lone surrogate", LONE_STRING);
      if (text !== "") {
        values[0] = text.split(",").map((p) => {
          if (p.includes("_")) invalid(path, "lowerCamelCase paths (no _) in a google.protobuf.FieldMask", v);
          // As Go's protojson: "a,,b" names no field between its commas (and the writer cannot
          // write an empty path back).
          if (p === "") invalid(path, "comma-separated non-empty paths in a google.protobuf.FieldMask", v);
          return snake(p);
        });
      }
    } else {
      const parsed = typeof v === "string" ? (wkt === W_TIMESTAMP ? parseTimestamp(v) : parseDuration(v)) : undefined;
      if (parsed === undefined) {
        invalid(
          path,
          wkt === W_TIMESTAMP
            ? "a google.protobuf.Timestamp as an RFC 3339 string from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z"
            : "a google.protobuf.Duration as a string of seconds with up to 9 decimals and an s (\"1.5s\"), within ±315576000000s",
          v,
        );
      }
      const [seconds, nanos] = parsed!;
      if (seconds !== 0) values[info.byName.get("seconds")!.index] = BigInt(seconds);
      if (nanos !== 0) values[info.byName.get("nanos")!.index] = nanos;
    }
    return DynamicMessage._fromDecoded(desc, values, undefined, undefined);
  };

  const scalar = (fi: FieldInfo, v: unknown, path: JsonPath): unknown => {
    const t = fi.scalar as ScalarType;
    switch (t) {
      case ScalarType.DOUBLE:
      case ScalarType.FLOAT: {
        let n: number;
        if (typeof v === "number") n = v;
        else if (v instanceof JsonBigInteger) n = v.value;
        else if (v === "NaN") return Number.NaN;
        else if (v === "Infinity") return Number.POSITIVE_INFINITY;
        else if (v === "-Infinity") return Number.NEGATIVE_INFINITY;
        else if (typeof v === "string" && isJsonNumber(v)) n = Number(v);
        else return invalid(path, `${t === ScalarType.FLOAT ? "float" : "double"} (a number, a numeric string, or "NaN", "Infinity", "-Infinity")`, v);
        if (!Number.isFinite(n)) invalid(path, `a finite ${t === ScalarType.FLOAT ? "float" : "double"} (write infinities and NaN as the strings "Infinity", "-Infinity", "NaN")`, v);
        if (t === ScalarType.FLOAT) {
          if (floatOverflows(n)) invalid(path, `float in -${FLOAT_MAX}..${FLOAT_MAX}`, v);
          return Math.fround(n);
        }
        return n;
      }
      case ScalarType.INT32:
      case ScalarType.SINT32:
      case ScalarType.SFIXED32:
      case ScalarType.UINT32:
      case ScalarType.FIXED32: {
        const unsigned = t === ScalarType.UINT32 || t === ScalarType.FIXED32;
        const name = ScalarType[t]!.toLowerCase();
        let n: number;
        if (typeof v === "number") n = v;
        else if (v instanceof JsonBigInteger) n = v.value;
        else if (typeof v === "string" && isJsonNumber(v)) n = Number(v);
        else return invalid(path, `${name} (a number or a numeric string)`, v);
        // 1e400 and 400-digit integers read as Infinity: out of range (below), not fractional. NaN
        // (a parsed value: JSON text has none) fails every comparison, so it is named here: it
        // was stored, and written as a ten-byte varint of 0.
        if (Number.isNaN(n) || (!Number.isInteger(n) && Number.isFinite(n))) invalid(path, `an integer (${name})`, v);
        if (unsigned ? n < 0 || n > UINT32_MAX : n < INT32_MIN || n > INT32_MAX) invalid(path, `${name} in ${unsigned ? `0..${UINT32_MAX}` : `${INT32_MIN}..${INT32_MAX}`}`, v);
        return n === 0 ? 0 : n; // -0 is 0 for integers
      }
      case ScalarType.BOOL:
        if (typeof v !== "boolean") invalid(path, "bool (true or false)", v);
        return v;
      case ScalarType.STRING:
        if (typeof v !== "string") invalid(path, "string", v);
        if (!isWellFormed(v as string)) invalid(path, "a well-formed string (strings are written as UTF-8), with no lone surrogate", LONE_STRING);
        return v;
      case ScalarType.BYTES: {
        if (typeof v !== "string") return invalid(path, "bytes as a base64 string", v);
        const b = decodeBase64(v);
        if (typeof b === "string") invalid(path, "bytes as base64 (standard or URL-safe alphabet, padding optional)", v, `: ${b}`);
        return b;
      }
      default: {
        const b = int64(t, v, path);
        // jstype = JS_NUMBER holds a JS number, which rounds beyond 2^53 (map values stay bigint).
        if (fi.long === L_NUMBER && fi.kind !== K_MAP && roundsAsNumber(b)) {
          invalid(path, `${ScalarType[t]!.toLowerCase()} ${JS_NUMBER_RANGE}`, v);
        }
        return b;
      }
    }
  };

  const int64 = (t: ScalarType, v: unknown, path: JsonPath): bigint => {
    const name = ScalarType[t]!.toLowerCase();
    let b: bigint;
    if (typeof v === "string" && isDecimal(v)) b = decimalBigInt(v);
    else if (v instanceof JsonBigInteger) b = decimalBigInt(v.text);
    else if (typeof v === "number" && Number.isInteger(v)) {
      // Beyond 2^53 a parsed JSON number was already rounded: the value is not the writer's.
      if (!Number.isSafeInteger(v)) {
        // fromJsonString keeps the digits of every integral literal, so a rounded number reaching
        // here from it was written with a non-zero fraction (12345678901234567890.5).
        if (ctx.api.startsWith("serializer.fromJsonString")) return invalid(path, `${name} (an integer)`, v, " (shown rounded; the text has a non-zero fraction)");
        return invalid(path, `${name} as a decimal string (a number beyond 2^53 was already rounded when the JSON was parsed; read the text with fromJsonString, which keeps its digits)`, v);
      }
      b = BigInt(v);
    } else return invalid(path, `${name} (a decimal string or an integer number)`, v);
    const unsigned = t === ScalarType.UINT64 || t === ScalarType.FIXED64;
    if (unsigned ? b < 0n || b > UINT64_MAX : b < INT64_MIN || b > INT64_MAX) {
      invalid(path, `${name} in ${unsigned ? `0..${UINT64_MAX}` : `${INT64_MIN}..${INT64_MAX}`}`, v);
    }
    return b;
  };

  /** The stored form of a scalar: 64-bit per jstype (map values always bigint), implicit zero absent. */
  const storedScalar = (fi: FieldInfo, v: unknown, implicit: boolean): unknown => {
    if (typeof v === "bigint" && fi.kind !== K_MAP) {
      if (fi.long === L_STRING) v = v.toString();
      else if (fi.long === L_NUMBER) v = Number(v);
    }
    return implicit && isImplicitZero(fi.scalar, v) ? undefined : v;
  };

  const enumValue = (fi: FieldInfo, v: unknown, path: JsonPath): number | typeof SKIP => {
    const e = fi.field.enum!;
    if (v === null) return 0;
    if (typeof v === "string") {
      const n = namesOf(e).get(v);
      if (n !== undefined) return n;
      if (ctx.ignoreUnknown) return SKIP;
      return fail(
        "JSON_INVALID_VALUE",
        path,
        `{path} expects a value name of enum ${e.typeName}, got ${describeJson(v)}, which it does not declare`,
        `use a declared name or a number, or pass ignoreUnknownFields: true to ${ctx.api} to skip unknown names (data loss)`,
      );
    }
    if (typeof v === "number" && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX) return v === 0 ? 0 : v;
    return invalid(path, `enum ${e.typeName} (a value name or an int32 number)`, v);
  };

  /** Reads JSON `v` as an element (list item, map value, or singular value) of `fi`; SKIP drops it. */
  const elementValue = (fi: FieldInfo, v: unknown, path: JsonPath): unknown => (fi.elemKind === K_ENUM ? enumValue(fi, v, path) : scalar(fi, v, path));

  /** Values that may be JSON null inside a list or map: google.protobuf.Value and NullValue. */
  const nullable = (fi: FieldInfo): boolean =>
    fi.elemKind === K_MESSAGE ? fi.field.message!.typeName === VALUE : fi.elemKind === K_ENUM && fi.field.enum!.typeName === NULL_VALUE;

  const oneofMember = (node: Node, fi: FieldInfo): void => {
    if (fi.oneof < 0) return;
    const set = (node.oneofs ??= newValues(messageInfo(node.desc).oneofs.length) as (FieldInfo | undefined)[]);
    const other = set[fi.oneof];
    if (other !== undefined && other !== fi) {
      fail(
        "JSON_ONEOF_SET_TWICE",
        node.path,
        `{path} sets oneof ${messageInfo(node.desc).oneofs[fi.oneof]!.name} twice, by properties of ${other.name} and ${fi.name}`,
        "set at most one member of a oneof",
      );
    }
    set[fi.oneof] = fi;
  };

  const field = (node: Node, fi: FieldInfo, v: unknown): void => {
    const path = new JsonPath(node.path, fi);
    switch (fi.kind) {
      case K_LIST: {
        if (v === null) return;
        if (!Array.isArray(v)) return invalid(path, "an array (the field is repeated)", v);
        const list: unknown[] = [];
        for (let i = 0; i < v.length; i++) {
          const e = v[i];
          const at = new JsonPath(node.path, fi, i);
          if (e === null && !nullable(fi)) return invalid(at, "a value (list elements cannot be null)", e);
          if (fi.elemKind === K_MESSAGE) child(fi.field.message!, e, node.depth + 1, at, list, list.length);
          else {
            const s = elementValue(fi, e, at);
            if (s !== SKIP) list.push(storedScalar(fi, s, false));
          }
        }
        if (list.length > 0) node.values[fi.index] = list;
        return;
      }
      case K_MAP: {
        if (v === null) return;
        if (!isObject(v)) return invalid(path, "an object (the field is a map)", v);
        const keys = Object.keys(v);
        if (keys.length === 0) return;
        if (node.depth + 1 > ctx.maxDepth) tooDeep(path, node.depth + 1);
        const map = new Map<unknown, unknown>();
        for (const k of keys) {
          const key = mapKey(fi, k, path);
          const at = new JsonPath(node.path, fi, key);
          if (map.has(key)) fail("JSON_DUPLICATE_KEY", at, `{path}: map key ${quoted(k)} repeats a key of the same value`, "give each map key once");
          const e = v[k];
          if (e === null && !nullable(fi)) return invalid(at, "a value (map values cannot be null)", e);
          if (fi.elemKind === K_MESSAGE) child(fi.field.message!, e, node.depth + 2, at, map, key);
          else {
            const s = elementValue(fi, e, at);
            if (s !== SKIP) map.set(key, storedScalar(fi, s, false));
          }
        }
        if (map.size > 0) node.values[fi.index] = map;
        return;
      }
      case K_MESSAGE:
        if (v === null && fi.field.message!.typeName !== VALUE) {
          // Null means "not set"; a oneof member given as null still claims its oneof, as in protobuf-es.
          oneofMember(node, fi);
          return;
        }
        oneofMember(node, fi);
        child(fi.field.message!, v, node.depth + 1, path, node.values, fi.index);
        return;
      case K_ENUM: {
        if (v === null && fi.field.enum!.typeName !== NULL_VALUE) {
          oneofMember(node, fi);
          return;
        }
        oneofMember(node, fi);
        const n = enumValue(fi, v, path);
        if (n === SKIP) return;
        node.values[fi.index] = !fi.explicit && n === 0 ? undefined : n;
        return;
      }
      default:
        // A null oneof scalar is skipped before it claims the oneof (protobuf-es, conformance).
        if (v === null) return;
        oneofMember(node, fi);
        node.values[fi.index] = storedScalar(fi, scalar(fi, v, path), !fi.explicit);
    }
  };

  const mapKey = (fi: FieldInfo, k: string, path: JsonPath): unknown => {
    const t = fi.mapKey as ScalarType;
    switch (t) {
      case ScalarType.STRING:
        if (!isWellFormed(k)) invalid(path, "map keys that are well-formed strings", LONE_KEY);
        return k;
      case ScalarType.BOOL:
        if (k === "true") return true;
        if (k === "false") return false;
        return invalid(path, 'map keys "true" or "false"', k);
      default: {
        if (!isDecimal(k)) invalid(path, `map keys that are decimal ${ScalarType[t]!.toLowerCase()} numbers`, k);
        if (is64(t)) return int64(t, k, path);
        const n = scalar({ ...fi, scalar: t } as FieldInfo, k, path) as number;
        return n;
      }
    }
  };

  const unknownProperty = (node: Node, key: string): void => {
    if (ctx.ignoreUnknown) return;
    const reserved = node.desc.proto.reservedName.includes(key) ? ` (a name ${node.desc.typeName} reserves: the field was retired)` : "";
    fail(
      "JSON_UNKNOWN_FIELD",
      node.path,
      `{path} has property ${quoted(key)}, which names no field of ${node.desc.typeName}${reserved}`,
      `read with the schema that declares it, or pass ignoreUnknownFields: true to ${ctx.api} to skip unknown properties (data loss: they are not kept or forwarded)`,
    );
  };

  const message = (node: Node): void => {
    const json = node.json;
    if (!isObject(json)) return void invalid(node.path, `a JSON object for ${node.desc.typeName}`, json);
    const j = jsonInfo(node.desc);
    for (const key of Object.keys(json)) {
      if (node.skipType && key === "@type") continue;
      const fi = j.byProperty.get(key);
      if (fi === undefined) {
        unknownProperty(node, key);
        continue;
      }
      const other = key === fi.name ? fi.jsonName : fi.name;
      // `other` counts only when it names this field too (a proto name can be another field's JSON
      // name); in an Any's content, "@type" is the type URL, never a field's JSON name.
      if (other !== key && Object.hasOwn(json, other) && j.byProperty.get(other) === fi && !(node.skipType && other === "@type")) {
        fail("JSON_FIELD_SET_TWICE", node.path, `{path} sets field ${fi.name} twice, as ${JSON.stringify(fi.name)} and as ${JSON.stringify(fi.jsonName)}`, "give each field once");
      }
      field(node, fi, json[key]);
    }
  };

  const any = (node: Node): void => {
    const json = node.json;
    if (!isObject(json)) return void invalid(node.path, "a JSON object for google.protobuf.Any", json);
    const keys = Object.keys(json);
    if (keys.length === 0) return;
    // An own "@type" only: one inherited from a polluted Object.prototype is no property of the JSON.
    const url = Object.hasOwn(json, "@type") ? json["@type"] : undefined;
    if (typeof url !== "string" || url === "" || url.endsWith("/")) {
      return void invalid(node.path, 'a google.protobuf.Any with "@type", a type URL such as "type.googleapis.com/acme.Order"', url);
    }
    if (!isWellFormed(url)) return void invalid(node.path, 'a well-formed "@type", with no lone surrogate', LONE_STRING);
    const typeName = url.slice(url.lastIndexOf("/") + 1);
    const desc = ctx.resolve?.(typeName);
    if (desc === undefined) {
      fail(
        "JSON_ANY_TYPE_UNKNOWN",
        node.path,
        `{path} is a google.protobuf.Any of type ${quoted(url)}, which ${ctx.resolve === undefined ? "cannot be resolved without a registry" : "the registry does not hold"}`,
        `pass a registry that holds ${shortName(typeName)} in the options of ${ctx.api}`,
      );
    }
    const info = messageInfo(node.desc);
    node.values[info.byName.get("type_url")!.index] = url;
    node.inner = [undefined];
    const innerPath = new JsonPath(node.path, `<${desc!.typeName}>`);
    if (jsonInfo(desc!).wkt === W_NONE) {
      child(desc!, json, node.depth + 1, innerPath, node.inner, 0, true);
      return;
    }
    for (const k of keys) if (k !== "@type" && k !== "value") unknownProperty(node, k);
    if (!Object.hasOwn(json, "value")) {
      return void invalid(node.path, `a "value" property: an Any holding ${desc!.typeName} writes its content as {"@type": …, "value": …}`, json);
    }
    child(desc!, json.value, node.depth + 1, innerPath, node.inner, 0);
  };

  const read = (node: Node): void => {
    const { json, values } = node;
    const info = messageInfo(node.desc);
    switch (node.wkt) {
      case W_NONE:
        return message(node);
      case W_ANY:
        return any(node);
      case W_STRUCT: {
        if (!isObject(json)) return void invalid(node.path, "a JSON object for google.protobuf.Struct", json);
        const keys = Object.keys(json);
        if (keys.length === 0) return;
        const fi = info.fields[0]!;
        if (node.depth + 1 > ctx.maxDepth) tooDeep(new JsonPath(node.path, fi), node.depth + 1);
        const map = new Map<unknown, unknown>();
        for (const k of keys) {
          if (!isWellFormed(k)) invalid(node.path, "keys that are well-formed strings", LONE_KEY);
          child(fi.field.message!, json[k], node.depth + 2, new JsonPath(node.path, fi, k), map, k);
        }
        values[0] = map;
        return;
      }
      case W_LIST_VALUE: {
        if (!Array.isArray(json)) return void invalid(node.path, "a JSON array for google.protobuf.ListValue", json);
        if (json.length === 0) return;
        const fi = info.fields[0]!;
        const list: unknown[] = [];
        for (let i = 0; i < json.length; i++) child(fi.field.message!, json[i], node.depth + 1, new JsonPath(node.path, fi, i), list, i);
        values[0] = list;
        return;
      }
      default: {
        // google.protobuf.Value: exactly one member of its oneof is set.
        const slot = (name: string): FieldInfo => info.byName.get(name)!;
        if (json === null) values[slot("null_value").index] = 0;
        else if (typeof json === "number") {
          if (!Number.isFinite(json)) invalid(node.path, "a finite number in a google.protobuf.Value (JSON has no NaN or infinities)", json);
          values[slot("number_value").index] = json;
        } else if (json instanceof JsonBigInteger) {
          // 400 digits round to Infinity, which the finite check above refuses for 1e400.
          if (!Number.isFinite(json.value)) invalid(node.path, "a finite number in a google.protobuf.Value (JSON has no NaN or infinities)", json);
          values[slot("number_value").index] = json.value;
        }
        else if (typeof json === "string") {
          if (!isWellFormed(json)) invalid(node.path, "a well-formed string, with no lone surrogate", LONE_STRING);
          values[slot("string_value").index] = json;
        } else if (typeof json === "boolean") values[slot("bool_value").index] = json;
        else if (Array.isArray(json)) {
          const fi = slot("list_value");
          child(fi.field.message!, json, node.depth + 1, new JsonPath(node.path, fi), values, fi.index);
        } else if (isObject(json)) {
          const fi = slot("struct_value");
          child(fi.field.message!, json, node.depth + 1, new JsonPath(node.path, fi), values, fi.index);
        } else invalid(node.path, "a JSON value", json);
      }
    }
  };

  const holder: unknown[] = [undefined];
  const rootPath = new JsonPath(undefined, root.typeName);
  child(root, json, 1, rootPath, holder, 0);
  while (todo.length > 0) read(todo.pop()!);
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i]!;
    // Dropped as it is built: its parent holds what it becomes. An Any's content is packed into
    // bytes and then garbage; kept here, every level of Anys nested in Anys held its own copy of
    // all below it until the read returned (8,000 levels, 360 KB of binary: 1.4 GB).
    nodes[i] = undefined!;
    if (node.inner !== undefined) {
      const content = node.inner[0] as DynamicMessage;
      node.inner = undefined;
      const bytes = ctx.pack(content.descriptor, content, node.path);
      if (bytes.length > 0) node.values[messageInfo(node.desc).byName.get("value")!.index] = bytes;
    }
    place(node.into, node.at, DynamicMessage._fromDecoded(node.desc, node.values, undefined, undefined));
  }
  return holder[0] as DynamicMessage;
}
