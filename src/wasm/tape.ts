// The decode tape (format documented in assembly/tape.ts, mirrored here). Each entry is 4
// words; read them through the views of src/wasm/memory.ts starting at TapeResult.start.

export const ENTRY_WORDS = 4;

export const OP_MASK = 0xf;
export const OP_START = 1;
export const OP_END = 2;
export const OP_VARINT = 3;
export const OP_FIXED32 = 4;
export const OP_FIXED64 = 5;
export const OP_BYTES = 6;
export const OP_PACKED = 7;
export const OP_UNKNOWN = 8;

export const FLAG_SHIFT = 4;
export const SLOT_SHIFT = 8;
/** START/END: every string field directly in this message is ASCII. */
export const F_ASCII_SELF = 1;
/** START/END: every string field in this message and all nested ones is ASCII. */
export const F_ASCII_TREE = 2;
/** START/END: the message has UNKNOWN entries. */
export const F_HAS_UNKNOWN = 4;
/** BYTES: a string field whose bytes are all ASCII; they are also in the text area, in tape order. */
export const F_ASCII = 1;

export const opOf = (w0: number): number => w0 & OP_MASK;
export const flagsOf = (w0: number): number => (w0 >>> FLAG_SHIFT) & 0xf;
export const slotOf = (w0: number): number => w0 >>> SLOT_SHIFT;
