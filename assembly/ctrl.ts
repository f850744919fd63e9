// The control block: a fixed 64-byte region where exports leave results beside their status
// (JS reads it through its cached Int32Array view instead of paying for multi-value returns).

/** Address of the control block (16 words). */
export const CTRL: usize = memory.data(64, 16);

/** word 0: status of the last call (also returned). */
export const CTRL_STATUS: usize = 0;
/** word 1: error offset (bytes from the input start); framing: offset to resume at. */
export const CTRL_OFFSET: usize = 4;
/** word 2: field number involved in the error (0 when none). */
export const CTRL_FIELD: usize = 8;
/** word 3: valid entries on the walker's stack at the error (levels above the current one). */
export const CTRL_DEPTH: usize = 12;
/** word 4: table word offset of the message type being read at the error. */
export const CTRL_TYPE: usize = 16;
/** word 5: success: tape entries written (walker), frames found (framing), nesting height (validate). */
export const CTRL_COUNT: usize = 20;
/** word 6: success: lowest address used by packed arrays (walker). */
export const CTRL_PACKED: usize = 24;
/** word 7: wire type involved in the error. */
export const CTRL_WIRE: usize = 28;
/** words 8-9: a decoded 64-bit value (readVarint). */
export const CTRL_VALUE: usize = 32;
/** word 10: success: bytes written to the text area (walker); 0xffffffff: E_NEED_SPACE was the text area's. */
export const CTRL_TEXT: usize = 40;

@inline export function ctrlSet(at: usize, v: u32): void {
  store<u32>(CTRL + at, v);
}
