// Status codes returned by every export instead of throwing: an AssemblyScript abort would leave
// the instance unusable, and `--noAssert` strips assertions, so input errors are plain values.
// src/wasm/status.ts mirrors these numbers and maps each to a CodecError code.

export const OK: i32 = 0;
/** The input ends inside a tag, a varint, a fixed-width value or a packed element. */
export const E_TRUNCATED: i32 = -1;
/** A varint runs past 10 bytes (the 10th byte still has its continuation bit). */
export const E_VARINT_TOO_LONG: i32 = -2;
/** A 10-byte varint whose last byte is above 1: the value does not fit in 64 bits. */
export const E_VARINT_OVERFLOW: i32 = -3;
/** A tag with field number 0. */
export const E_FIELD_NUMBER_ZERO: i32 = -4;
/** A tag whose field number is above 536,870,911 (the tag does not fit in 32 bits). */
export const E_FIELD_NUMBER_TOO_LARGE: i32 = -5;
/** Wire type 3 or 4 (groups, not supported in proto3) or 6 or 7 (undefined). */
export const E_INVALID_WIRE_TYPE: i32 = -6;
/** A declared field arrives with a wire type its kind cannot have. */
export const E_WIRE_TYPE_MISMATCH: i32 = -7;
/** A length-delimited value claims more bytes than its enclosing message has left. */
export const E_LENGTH_PAST_END: i32 = -8;
/** Nesting deeper than the maxDepth setting (the root is depth 1). */
export const E_DEPTH_EXCEEDED: i32 = -9;
/** The message is larger than the maxMessageBytes setting. */
export const E_MESSAGE_TOO_LARGE: i32 = -10;
/** A string field holds bytes that are not valid UTF-8. */
export const E_INVALID_UTF8: i32 = -11;
/** A frame's length prefix or body ends before the buffer does. */
export const E_FRAME_TRUNCATED: i32 = -12;
/** A frame announces more bytes than the maxMessageBytes setting allows. */
export const E_FRAME_TOO_LARGE: i32 = -13;
// -14 was E_NEED_SPACE: the walker now pauses (S_PAUSED) instead of asking for a larger tape.
/** A packed fixed-width field whose length is not a multiple of the element size. */
export const E_PACKED_LENGTH: i32 = -15;
/** An unknown field carries a number that the paired declaration declares. */
export const E_COLLISION: i32 = -16;
/** The layout table handed in is not one that src/codec/layout.ts wrote (a bug, not input). */
export const E_BAD_TABLE: i32 = -17;
/** A 64-bit field held as a JS number (jstype = JS_NUMBER) carries a value beyond ±(2^53 − 1). */
export const E_UNSAFE_INTEGER: i32 = -18;
/** Framing scan stopped because the output region is full; continue from CTRL_OFFSET. */
export const S_MORE: i32 = 1;
/** The tape window is full: read the entries written so far, then call walkResume. */
export const S_PAUSED: i32 = 2;
/**
 * The next frame lies past the bytes copied in: copy the input in again from CTRL_OFFSET (at
 * least up to CTRL_NEED) and call again from there. Entries written so far are to be read first.
 */
export const S_NEED_INPUT: i32 = 3;
