// src/wasm: the only code that touches WebAssembly or linear memory.
//
// How the codec uses it (decode):
//   const layout = layoutOf(desc);                       // src/codec/layout.ts, cached per instance
//   const t = walkMessage(layout.typeOffset, bytes, { maxMessageBytes, maxDepth });
//   // or walkFrames(...) for a framing-v1 buffer: one START..END run per frame, back to back
//   for (;;) {                                          // one window of the tape at a time
//     const { u32, i32, f32, f64, i64, u64 } = views;    // read views AFTER each call (memory may grow)
//     for (let k = 0, e = t.start; k < t.count; k++, e += 4) {
//       const w0 = u32[e]; op = w0 & 15; flags = (w0 >>> 4) & 15; slot = w0 >>> 8;
//       // field = layout.fields[slot] of the message currently open (START pushes
//       // layout.fields[slot].message, END pops); payload words u32[e+1..e+3];
//       // 64-bit payloads: f64/i64/u64[(e >>> 1) + 1]; float: f32[e + 2]
//     }
//     if (t.done) break;
//     resumeWalk(t);                                      // the next window, same memory
//   }
// BYTES/START/UNKNOWN offsets index `bytes` itself (views for aliasThreshold); tapeText(t) is
// the window's ASCII string entries' text back to back in tape order (substring each by its
// length). PACKED w2 is an address in views.buffer: copy it out (slice) before the next core call.
// The tape lives in scratch memory that resumeWalk and the next core call overwrite.
// validateMessage/validateFrames take the same arguments, run the same checks and throw the
// same CodecError, but write no tape (the validate-only read).
// Errors arrive as CodecError (codes in status.ts STATUS_CODES) with offset and path.
//
// Encode side: scanUnknownFields(layout.typeOffset, bytes, [offset, length, ...]) before
// writing retained unknown fields (collision and well-formedness), and packedSize/writePacked
// for packed runs of numerics in the tape's PACKED element formats.
export { initWasm, core, type CoreExports } from "./instance.js";
export { views, ready, ensureMemory, memoryGrowCount, releaseMemory, wasmMemoryBytes, type MemoryViews } from "./memory.js";
export {
  walkMessage, walkFrames, resumeWalk, tapeText, validateMessage, validateFrames, scanFrames, scanUnknownFields, packedSize,
  writePacked, setWindowSizes, type TapeResult, type FrameList, type ReadLimits, type WindowSizes,
} from "./ops.js";
export { STATUS_CODES, statusError } from "./status.js";
export * as tapeFormat from "./tape.js";
export * as tableFormat from "./table.js";
