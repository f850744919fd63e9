// The control block of the core (assembly/ctrl.ts), as word indexes from its address (the core
// names byte offsets: CTRL_X_WORD = CTRL_X_BYTE / 4, checked by test/core-constants.test.ts).

/** Status of the last call. */
export const CTRL_STATUS_WORD = 0;
/** Error offset; framing and S_NEED_INPUT: the offset to continue from. */
export const CTRL_OFFSET_WORD = 1;
/** Field number involved in the error. */
export const CTRL_FIELD_WORD = 2;
/** Levels on the walker's stack at the error. */
export const CTRL_DEPTH_WORD = 3;
/** Table word offset of the type being read at the error. */
export const CTRL_TYPE_WORD = 4;
/** Entries in the tape window (walker), frames (framing, validateFrames), nesting height (validate). */
export const CTRL_COUNT_WORD = 5;
/** Lowest address of the window's packed arrays (walker). */
export const CTRL_PACKED_WORD = 6;
/** Wire type involved in the error. */
export const CTRL_WIRE_WORD = 7;
/** Words 8-9: a 64-bit value (readVarint; the size a too large frame announces). */
export const CTRL_VALUE_WORD = 8;
/** Bytes in the window's text area (walker). */
export const CTRL_TEXT_WORD = 10;
/** S_NEED_INPUT: the input must be copied in at least up to this offset (0 = a segment will do). */
export const CTRL_NEED_WORD = 11;
