// The decode tape (docs/design.md §13), mirrored in src/wasm/tape.ts. The walker writes one 16-byte
// entry (4 little-endian u32 words, 16-byte aligned) per event, in input order, so JS builds
// nested objects with a single forward walk and never decodes a varint itself.
//
// w0 = op (bits 0-3) | flags (bits 4-7) | slot (bits 8-31; the layout slot of the field)
// op START   1  a message begins (slot 0 for a root). w1 = 0, w2 = body offset from the input
//               start, w3 = body length.
// op END     2  the message ends. w1 = 0. flags: ASCII_SELF, ASCII_TREE, HAS_UNKNOWN.
// op VARINT  3  w2 = low 32 bits, w3 = high 32 bits of the value. sint32/sint64 are already
//               zigzag-decoded, bool is 0 or 1; int32/uint32/enum: read w2 only. The value
//               is also readable as i64/u64 at byte 8 of the entry.
// op FIXED32 4  w2 = the raw 32 bits (f32 readable at byte 8), w3 = 0
// op FIXED64 5  w2 = low, w3 = high 32 bits (f64/i64/u64 readable at byte 8, 8-aligned)
// op BYTES   6  string or bytes: w2 = offset from the input start, w3 = length.
//               flags: ASCII (string fields whose bytes are all ASCII). The bytes of every
//               ASCII entry are also copied to the window's text area, back to back in tape
//               order (CTRL_TEXT bytes in all), so the i-th ASCII string of a window starts
//               where the lengths of the window's ASCII entries before it add up to. A string
//               longer than the whole text area is not flagged (read it from the input).
// op PACKED  7  a packed run: w1 = element count, w2 = absolute address of the elements in
//               linear memory (8-aligned), w3 = element size. Elements: bool u8 (0/1);
//               int32, sint32 (decoded), enum, sfixed32 i32; uint32, fixed32 u32; float f32;
//               int64, sint64 (decoded), sfixed64 i64; uint64, fixed64 u64; double f64.
//               A field may have several runs and unpacked entries mixed; append in order.
// op UNKNOWN 8  an undeclared field: w1 = field number, w2 = offset of its tag from the input
//               start, w3 = length of tag and value. flags = its wire type.
//
// Flags of END: ASCII_SELF = every string field directly in this message is ASCII; ASCII_TREE =
// the same holds for all nested messages too; HAS_UNKNOWN = the message has UNKNOWN entries.
// Nothing is written back into an earlier entry (a START does not know its END), so a window of
// the tape is final once the walker returns it.
//
// The tape is written into a window: entries up from its start, packed arrays down from its end,
// and a text area beside it. When either is full the walker pauses (S_PAUSED) between two fields
// or inside a packed run (which then continues as another PACKED entry of the same field); JS
// reads the window and calls walkResume, and the walk continues into the same window, from its
// start, with an empty text area. Offsets stay those of the input; entry indexes are per window.
export const ENTRY_BYTES: usize = 16;

export const OP_START: u32 = 1;
export const OP_END: u32 = 2;
export const OP_VARINT: u32 = 3;
export const OP_FIXED32: u32 = 4;
export const OP_FIXED64: u32 = 5;
export const OP_BYTES: u32 = 6;
export const OP_PACKED: u32 = 7;
export const OP_UNKNOWN: u32 = 8;

export const F_ASCII_SELF: u32 = 1;
export const F_ASCII_TREE: u32 = 2;
export const F_HAS_UNKNOWN: u32 = 4;
export const F_ASCII: u32 = 1;

export const FLAG_SHIFT: u32 = 4;
export const SLOT_SHIFT: u32 = 8;
