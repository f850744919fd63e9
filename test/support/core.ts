// Direct access to the WASM core for unit tests of the core: put bytes into scratch memory and
// read the control block.
import { ready, views, ensureMemory, scratchAddress, ctrlIndex } from "../../src/wasm/memory.js";
import type { CoreExports } from "../../src/wasm/instance.js";
import {
  CTRL_COUNT_WORD, CTRL_DEPTH_WORD, CTRL_FIELD_WORD, CTRL_OFFSET_WORD, CTRL_PACKED_WORD, CTRL_STATUS_WORD,
  CTRL_TYPE_WORD, CTRL_VALUE_WORD, CTRL_WIRE_WORD,
} from "../../src/wasm/ctrl.js";

export const C = {
  STATUS: CTRL_STATUS_WORD, OFFSET: CTRL_OFFSET_WORD, FIELD: CTRL_FIELD_WORD, DEPTH: CTRL_DEPTH_WORD, TYPE: CTRL_TYPE_WORD,
  COUNT: CTRL_COUNT_WORD, PACKED: CTRL_PACKED_WORD, WIRE: CTRL_WIRE_WORD, VALUE: CTRL_VALUE_WORD,
} as const;

export function coreNow(): CoreExports {
  return ready();
}

/** Copies bytes into scratch memory (plus `extra` bytes of room after them); returns the address. */
export function put(bytes: Uint8Array | number[], extra = 64): number {
  ready();
  const at = scratchAddress();
  const b = bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes);
  ensureMemory(at + b.length + extra);
  views.u8.fill(0xee, at, at + b.length + extra);
  views.u8.set(b, at);
  return at;
}

export function ctrl(k: number): number {
  return views.u32[ctrlIndex(k)]!;
}

export function ctrlU64(): bigint {
  return views.u64[ctrlIndex(C.VALUE) >>> 1]!;
}

export function bytesAt(at: number, n: number): Uint8Array {
  return views.u8.slice(at, at + n);
}
