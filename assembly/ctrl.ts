// The control block: a fixed 64-byte region where exports leave results beside their status
// (JS reads it through its cached Int32Array view instead of paying for multi-value returns).
// The offsets below count bytes from CTRL; src/wasm/ctrl.ts mirrors them as word indexes
// (CTRL_*_WORD = CTRL_*_BYTE / 4), and test/core-constants.test.ts checks that they agree.

/** Address of the control block (16 words). */
export const CTRL: usize = memory.data(64, 16);

/** Word 0: status of the last call (also returned). */
export const CTRL_STATUS_BYTE: usize = 0;
/** Word 1: error offset (bytes from the input start); framing and S_NEED_INPUT: the offset to continue from. */
export const CTRL_OFFSET_BYTE: usize = 4;
/** Word 2: field number involved in the error (0 when none). */
export const CTRL_FIELD_BYTE: usize = 8;
/** Word 3: valid entries on the walker's stack at the error (levels above the current one). */
export const CTRL_DEPTH_BYTE: usize = 12;
/** Word 4: table word offset of the message type being read at the error. */
export const CTRL_TYPE_BYTE: usize = 16;
/** Word 5: tape entries written to the window (walker), frames found (framing, validateFrames), nesting height (validate). */
export const CTRL_COUNT_BYTE: usize = 20;
/** Word 6: lowest address used by packed arrays in the window (walker). */
export const CTRL_PACKED_BYTE: usize = 24;
/** Word 7: wire type involved in the error. */
export const CTRL_WIRE_BYTE: usize = 28;
/** Words 8-9: a decoded 64-bit value (readVarint); E_FRAME_TOO_LARGE: the size the frame announces. */
export const CTRL_VALUE_BYTE: usize = 32;
/** Word 10: bytes written to the window's text area (walker). */
export const CTRL_TEXT_BYTE: usize = 40;
/** Word 11: S_NEED_INPUT: the input must be copied in at least up to this offset (0 = a segment will do). */
export const CTRL_NEED_BYTE: usize = 44;

@inline export function ctrlSet(at: usize, v: u32): void {
  store<u32>(CTRL + at, v);
}
