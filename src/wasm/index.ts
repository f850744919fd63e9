// src/wasm: the only code that touches WebAssembly or linear memory.
export { initWasm, core, type CoreExports } from "./instance.js";
export { views, ready, ensureMemory, memoryGrowCount, type MemoryViews } from "./memory.js";
export {
  walkMessage, walkFrames, scanFrames, scanUnknownFields, packedSize, writePacked,
  type TapeResult, type FrameList, type ReadLimits,
} from "./ops.js";
export { STATUS_CODES, statusError } from "./status.js";
