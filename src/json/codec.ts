// The serializer's ProtoJSON methods: options checked, the binary writer's checks applied, Any
// content read and written by serializers of its type, errors with paths.
import type { DescMessage } from "@bufbuild/protobuf";
import { CodecError, isProtokeelError } from "../errors.js";
import { isDynamicMessage, type DynamicInit, type DynamicMessage } from "../message/dynamic-message.js";
import type { ProtobufSerializer } from "../serializer.js";
import { ProtobufType } from "../type.js";
import { messageFromJson } from "./from-json.js";
import type { JsonPath } from "./info.js";
import { flag, typeResolver, type JsonReadOptions, type JsonValue, type JsonWriteOptions, type JsonWriteStringOptions } from "./options.js";
import { JsonSyntaxError, JsonTooDeep, parseJsonText } from "./parse.js";
import { MAX_JSON_TEXT, stringifyJson } from "./stringify.js";
import { FOREIGN_VALUE, messageToJson, type JsonStats, type ToJsonContext } from "./to-json.js";

// Serializers of Any content types, per descriptor instance and settings (the outer serializer's).
const contentSerializers = new WeakMap<DescMessage, Map<string, ProtobufSerializer>>();

/** "cannot write acme.Order to JSON" / "cannot read acme.Order from JSON". */
function head(ser: ProtobufSerializer, writing: boolean): string {
  return writing ? `cannot write ${ser.type.fullName} to JSON` : `cannot read ${ser.type.fullName} from JSON`;
}

function contentSerializer(desc: DescMessage, outer: ProtobufSerializer, path: JsonPath, writing: boolean): ProtobufSerializer {
  // The outer serializer's deterministic setting too: Any content it packs is written by this one
  // (map entries inside an Any kept the JSON text's key order under deterministic).
  const { maxMessageBytes, maxDepth, deterministic } = outer.type.settings;
  const key = `${maxMessageBytes}/${maxDepth}/${deterministic}`;
  let byLimits = contentSerializers.get(desc);
  let ser = byLimits?.get(key);
  if (ser === undefined) {
    try {
      ser = ProtobufType.newBuilder(desc).maxMessageBytes(maxMessageBytes).maxDepth(maxDepth).deterministic(deterministic).build().createSerializer();
    } catch (e) {
      if (!isProtokeelError(e)) throw e;
      throw new CodecError(
        "JSON_ANY_TYPE_INVALID",
        `${head(outer, writing)}: ${path.toString()} is a google.protobuf.Any of type ${desc.typeName}, whose schema protokeel cannot use: ${e.message}`,
        { path: path.toString(), cause: e },
      );
    }
    if (byLimits === undefined) contentSerializers.set(desc, (byLimits = new Map()));
    byLimits.set(key, ser);
  }
  return ser;
}

function writeContext(ser: ProtobufSerializer, options: JsonWriteOptions | undefined, api: string): ToJsonContext {
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${api}: options must be an object`);
  return {
    rootName: ser.type.fullName,
    emitDefaults: flag(options, "emitDefaultValues", api),
    enumAsInteger: flag(options, "enumAsInteger", api),
    protoNames: flag(options, "useProtoFieldName", api),
    discardUnknown: flag(options, "discardUnknownFields", api),
    maxDepth: ser.type.settings.maxDepth,
    sortMapKeys: ser.type.settings.deterministic,
    paired: true,
    root: ser.type.descriptor,
    resolve: typeResolver(options?.registry, api),
    unpack: (desc, bytes, path) => rethrowAt(() => contentSerializer(desc, ser, path, true).fromBinary(bytes), path, ser, true),
    api: `${api.split("(", 1)[0]}(value, { … })`,
  };
}

/**
 * An error of an Any's content names the Any's path. The path is made into text only then: text
 * per Any made reading and writing Any nested in Any quadratic in the depth (the path of level k
 * is k segments long; 4,000 levels spent 30% of fromJsonString's time joining paths).
 */
function rethrowAt<T>(run: () => T, at: JsonPath, ser: ProtobufSerializer, writing: boolean): T {
  try {
    return run();
  } catch (e) {
    if (!(e instanceof CodecError) || e.code.startsWith("JSON_")) throw e;
    const path = at.toString();
    throw new CodecError(e.code, `${head(ser, writing)}: the content of google.protobuf.Any at ${path}: ${e.message}`, {
      path: e.path === undefined ? path : `${path}/${e.path}`,
      offset: e.offset,
      cause: e,
    });
  }
}

/**
 * The ProtoJSON value of a value this serializer could encode: the same checks as `encode`
 * (acceptance, unknown-field collisions, limits) run first, and a value of another descriptor
 * instance is read back with this serializer's schema, so property names are always its own.
 */
export function toJsonOf(
  ser: ProtobufSerializer,
  value: DynamicMessage | DynamicInit,
  options: JsonWriteOptions | undefined,
  api = "serializer.toJson",
  stats?: JsonStats,
): JsonValue {
  const ctx = { ...writeContext(ser, options, api), stats };
  const bytes = ser.toBinary(value);
  if (stats !== undefined) stats.bytes = bytes.length;
  const msg = isDynamicMessage(value) ? value : ser.fromBinary(bytes);
  try {
    return messageToJson(msg, ctx);
  } catch (e) {
    if (e !== FOREIGN_VALUE) throw e;
  }
  return messageToJson(ser.fromBinary(bytes), ctx);
}

export function toJsonStringOf(ser: ProtobufSerializer, value: DynamicMessage | DynamicInit, options: JsonWriteStringOptions | undefined): string {
  const spaces = options?.prettySpaces === undefined ? 0 : options.prettySpaces;
  if (typeof spaces !== "number" || !Number.isInteger(spaces) || spaces < 0 || spaces > 10) {
    throw new RangeError(`serializer.toJsonString: option prettySpaces must be an integer in 0..10, got ${String(spaces)}`);
  }
  const stats: JsonStats = { depth: 0, negativeZero: false, bytes: 0 };
  const json = toJsonOf(ser, value, options, "serializer.toJsonString", stats);
  // JSON.stringify is faster, but recurses (RangeError some thousands of levels down) and writes
  // -0 as 0: it writes what is shallow and has no -0, the explicit-stack writer the rest. A
  // message level is at most two JSON levels (a list, then its element).
  if (stats.depth <= STRINGIFY_SAFE_DEPTH && !stats.negativeZero && indentEstimate(stats, spaces) <= MAX_JSON_TEXT) {
    try {
      return JSON.stringify(json, null, spaces);
    } catch (e) {
      // Past the longest string V8 holds, JSON.stringify throws a bare RangeError: the writer
      // below counts and says which limit it met.
      if (!(e instanceof RangeError)) throw e;
    }
  }
  // It counts, strings' escapes included, and builds no string past the limit: a RangeError from
  // it is the engine's stack overflow (called with the stack nearly full), not JSON_TEXT_TOO_LONG.
  const text = stringifyJson(json, spaces);
  if (text !== undefined) return text;
  throw new CodecError(
    "JSON_TEXT_TOO_LONG",
    `${head(ser, true)}: its JSON text${spaces > 0 ? ` indented by ${spaces}` : ""} is longer than ${MAX_JSON_TEXT.toLocaleString("en-US")} characters, the longest string JavaScript runtimes hold (V8's limit); write it as binary, use toJson for the value${spaces > 0 ? ", or indent less (each line repeats its depth times prettySpaces)" : ""}`,
    { path: ser.type.fullName },
  );
}

const STRINGIFY_SAFE_DEPTH = 400;

/**
 * About how many characters indentation adds: a line per value or closing bracket, each at least
 * about a byte of binary (a packed bool, half an empty message), at up to two JSON levels per
 * message level. JSON.stringify builds text up to V8's limit before it throws (300 KB of packed ints
 * 150 levels deep at prettySpaces 10: 4.4 s and 970 MB, measured), while stringifyJson counts
 * and stops (45 ms, 8 MB): text this estimate puts past the limit goes to stringifyJson. An
 * estimate only (emitDefaultValues adds lines no byte stands for): either writer is correct.
 */
function indentEstimate(stats: JsonStats, spaces: number): number {
  return (stats.bytes + 2) * 2 * stats.depth * spaces;
}

function readOptions(options: JsonReadOptions | undefined, api: string): { ignoreUnknown: boolean; resolve: ((n: string) => DescMessage | undefined) | undefined } {
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${api}: options must be an object`);
  return { ignoreUnknown: flag(options, "ignoreUnknownFields", api), resolve: typeResolver(options?.registry, api) };
}

/** A value of this serializer's descriptor from ProtoJSON; it must encode within the limits. */
export function fromJsonOf(ser: ProtobufSerializer, json: unknown, options: JsonReadOptions | undefined, api = "serializer.fromJson"): DynamicMessage {
  const { ignoreUnknown, resolve } = readOptions(options, api);
  const root = ser.type.descriptor;
  const value = messageFromJson(root, json, {
    rootName: ser.type.fullName,
    ignoreUnknown,
    maxDepth: ser.type.settings.maxDepth,
    resolve,
    pack: (desc, content, path) => rethrowAt(() => contentSerializer(desc, ser, path, false).toBinary(content), path, ser, false),
    api: `${api}(json, { … })`,
  });
  // The writer's checks (size above all): a value fromJson returns is one encode accepts.
  try {
    ser.toBinary(value);
  } catch (e) {
    if (e instanceof CodecError && e.code === "MESSAGE_TOO_LARGE") {
      throw new CodecError(
        e.code,
        `cannot read ${ser.type.fullName} from JSON: ${writeReason(e.message)}`,
        { path: e.path, cause: e },
      );
    }
    throw e;
  }
  return value;
}

/** A write error's message after "cannot write <what>: ", as the message's (a prefix test: no regular expression on a read's path). */
function writeReason(message: string): string {
  const colon = message.indexOf(":");
  return message.startsWith("cannot write ") && message.startsWith(": ", colon) ? `the message's ${message.slice(colon + 2)}` : message;
}

export function fromJsonStringOf(ser: ProtobufSerializer, text: string, options: JsonReadOptions | undefined): DynamicMessage {
  const api = "serializer.fromJsonString";
  const name = ser.type.fullName;
  if (typeof text !== "string") {
    throw new CodecError("NOT_JSON_TEXT", `cannot read ${name} from JSON: ${api} expects a string, got ${text === null ? "null" : typeof text}; pass parsed JSON to serializer.fromJson`, { path: name });
  }
  readOptions(options, api);
  const { maxDepth } = ser.type.settings;
  let json: unknown;
  try {
    // A message maxDepth deep nests JSON at most 2 levels per message (a list, then its element).
    json = parseJsonText(text, 2 * maxDepth + 2);
  } catch (e) {
    if (e instanceof JsonSyntaxError) {
      throw new CodecError("JSON_SYNTAX", `cannot read ${name} from JSON: the text is not valid JSON: ${e.message}; pass one JSON object`, { path: name, offset: e.index });
    }
    if (e instanceof JsonTooDeep) {
      throw new CodecError(
        "DEPTH_LIMIT_EXCEEDED",
        `cannot read ${name} from JSON: the JSON nests deeper than a message within maxDepth ${maxDepth} can, at character ${e.index}; raise maxDepth or reject the input`,
        { path: name, offset: e.index },
      );
    }
    throw e;
  }
  return fromJsonOf(ser, json, options, api);
}
