// Status codes of the core (assembly/status.ts) and their CodecError codes and messages.
import { CodecError } from "../errors.js";
import { MAX_FIELD_NUMBER } from "../bytes.js";
import { shortPath } from "../descriptor/names.js";

export const OK = 0;
export const E_TRUNCATED = -1;
export const E_VARINT_TOO_LONG = -2;
export const E_VARINT_OVERFLOW = -3;
export const E_FIELD_NUMBER_ZERO = -4;
export const E_FIELD_NUMBER_TOO_LARGE = -5;
export const E_INVALID_WIRE_TYPE = -6;
export const E_WIRE_TYPE_MISMATCH = -7;
export const E_LENGTH_PAST_END = -8;
export const E_DEPTH_EXCEEDED = -9;
export const E_MESSAGE_TOO_LARGE = -10;
export const E_INVALID_UTF8 = -11;
export const E_FRAME_TRUNCATED = -12;
export const E_FRAME_TOO_LARGE = -13;
export const E_PACKED_LENGTH = -15;
export const E_COLLISION = -16;
export const E_BAD_TABLE = -17;
export const E_UNSAFE_INTEGER = -18;
export const S_MORE = 1;
export const S_PAUSED = 2;
export const S_NEED_INPUT = 3;

/** The stable CodecError code of each status. */
export const STATUS_CODES: Readonly<Record<number, string>> = {
  [E_TRUNCATED]: "TRUNCATED",
  [E_VARINT_TOO_LONG]: "VARINT_TOO_LONG",
  [E_VARINT_OVERFLOW]: "VARINT_OVERFLOW",
  [E_FIELD_NUMBER_ZERO]: "FIELD_NUMBER_ZERO",
  [E_FIELD_NUMBER_TOO_LARGE]: "FIELD_NUMBER_TOO_LARGE",
  [E_INVALID_WIRE_TYPE]: "INVALID_WIRE_TYPE",
  [E_WIRE_TYPE_MISMATCH]: "WIRE_TYPE_MISMATCH",
  [E_LENGTH_PAST_END]: "LENGTH_PAST_END",
  [E_DEPTH_EXCEEDED]: "DEPTH_LIMIT_EXCEEDED",
  [E_MESSAGE_TOO_LARGE]: "MESSAGE_TOO_LARGE",
  [E_INVALID_UTF8]: "INVALID_UTF8",
  [E_FRAME_TRUNCATED]: "FRAME_TRUNCATED",
  [E_FRAME_TOO_LARGE]: "FRAME_TOO_LARGE",
  [E_PACKED_LENGTH]: "PACKED_LENGTH_INVALID",
  [E_COLLISION]: "UNKNOWN_FIELD_COLLISION",
  [E_BAD_TABLE]: "LAYOUT_INVALID",
  [E_UNSAFE_INTEGER]: "UNSAFE_INTEGER",
};

/** Where and in what a status happened, as the core reported it, resolved to names. */
export interface StatusContext {
  /** "decode" or "encode". */
  readonly verb: string;
  /** Full name of the root type (or the type scanned). */
  readonly rootName: string;
  /** Byte offset from the start of the input. */
  readonly offset: number;
  /** Path to the message being read, e.g. `acme.Order.items(4)`. */
  readonly messagePath: string;
  /** Full name of the message type being read. */
  readonly typeName: string;
  /** The field number involved (0 = none) and, when declared, its name and kind. */
  readonly fieldNumber: number;
  readonly fieldName?: string;
  readonly fieldKind?: string;
  readonly wireType: number;
  /** Settings involved in limit errors. */
  readonly maxMessageBytes?: number;
  readonly maxDepth?: number;
  /** Frame length announced (frame errors; a bigint above 2^53) or input length (size errors). */
  readonly size?: number | bigint;
}

const WIRE_NAMES = ["varint", "fixed64", "length-delimited", "group start", "group end", "fixed32", "wire type 6", "wire type 7"];

function fieldPath(c: StatusContext): string {
  if (c.fieldNumber === 0) return c.messagePath;
  return `${c.messagePath}.${c.fieldName ?? "unknown"}(${c.fieldNumber})`;
}

/** Builds the CodecError for a failed core call. */
export function statusError(status: number, c: StatusContext): CodecError {
  const code = STATUS_CODES[status] ?? "CORE_STATUS_UNKNOWN";
  const head = `cannot ${c.verb} ${c.rootName}`;
  const at = `at byte ${c.offset}`;
  const path = fieldPath(c);
  const corrupt = `the input is corrupt or is not an encoded ${c.rootName}`;
  let message: string;
  switch (status) {
    case E_TRUNCATED:
      message = `${head}: the input ends inside ${c.fieldNumber === 0 ? `a tag of ${path}` : `field ${path}`} ${at}; the message is truncated, pass it complete`;
      break;
    case E_VARINT_TOO_LONG:
      message = `${head}: varint ${at} in ${path} is longer than 10 bytes; ${corrupt}`;
      break;
    case E_VARINT_OVERFLOW:
      message = `${head}: varint ${at} in ${path} does not fit in 64 bits; ${corrupt}`;
      break;
    case E_FIELD_NUMBER_ZERO:
      message = `${head}: tag ${at} in ${path} has field number 0, which is never valid; ${corrupt}`;
      break;
    case E_FIELD_NUMBER_TOO_LARGE:
      message = `${head}: tag ${at} in ${path} has a field number above ${MAX_FIELD_NUMBER}; ${corrupt}`;
      break;
    case E_INVALID_WIRE_TYPE:
      message =
        c.wireType === 3 || c.wireType === 4
          ? `${head}: field ${path} ${at} has wire type ${c.wireType} (${WIRE_NAMES[c.wireType]}); groups are not supported in proto3, ${corrupt}`
          : `${head}: field ${path} ${at} has wire type ${c.wireType}, which does not exist; ${corrupt}`;
      break;
    case E_WIRE_TYPE_MISMATCH:
      message = `${head}: field ${path} ${at} has wire type ${c.wireType} (${WIRE_NAMES[c.wireType]}) but is declared ${c.fieldKind ?? "differently"}; the bytes were written with an incompatible schema or are corrupt`;
      break;
    case E_LENGTH_PAST_END:
      message = `${head}: field ${path} ${at} has a length past the end of its message; the input is truncated or corrupt`;
      break;
    case E_DEPTH_EXCEEDED:
      message = `${head}: field ${shortPath(path, c.rootName)} ${at} nests deeper than maxDepth ${c.maxDepth ?? "?"}; raise maxDepth or reject the input`;
      break;
    case E_MESSAGE_TOO_LARGE:
      message = `${head}: the message has ${c.size ?? "?"} bytes, above maxMessageBytes ${c.maxMessageBytes ?? "?"}; raise maxMessageBytes or split the data`;
      break;
    case E_INVALID_UTF8:
      message = `${head}: string field ${path} has invalid UTF-8 ${at}; string fields must hold valid UTF-8, declare the field as bytes for binary data`;
      break;
    case E_FRAME_TRUNCATED:
      message = `${head}: the frame ${at} ends after the input does; the data is truncated, pass complete frames`;
      break;
    case E_FRAME_TOO_LARGE:
      message = `${head}: the frame ${at} announces ${c.size ?? "more"} bytes, above maxMessageBytes ${c.maxMessageBytes ?? "?"}; raise maxMessageBytes or reject the input`;
      break;
    case E_PACKED_LENGTH:
      message = `${head}: packed field ${path} ${at} has a length that is not a multiple of its ${c.fieldKind ?? "fixed-width"} element size; ${corrupt}`;
      break;
    case E_COLLISION:
      message = `${head}: unknown field ${c.fieldNumber} ${at} collides with declared field ${path} of ${c.typeName}; remove the unknown field or write it as the declared field`;
      break;
    case E_UNSAFE_INTEGER:
      message = `${head}: field ${path} ${at} holds ${c.fieldKind === undefined ? "a 64-bit" : c.fieldKind !== "" && "aeiou".includes(c.fieldKind.charAt(0)) ? `an ${c.fieldKind}` : `a ${c.fieldKind}`} value beyond ±(2^53 − 1), which the field's jstype = JS_NUMBER cannot hold exactly; remove jstype = JS_NUMBER (or use JS_STRING) to read such values, or have the writer keep the field within Number.MAX_SAFE_INTEGER`;
      break;
    case E_BAD_TABLE:
      message = `${head}: the layout table does not hold this type; this is a protokeel bug, please report it`;
      break;
    default:
      message = `${head}: the core returned status ${status} ${at}; this is a protokeel bug, please report it`;
  }
  return new CodecError(code, message, { path, offset: c.offset });
}

