// Owns the one WebAssembly instance. It is created synchronously on first use (never at module
// top level: a top-level compile from bytes takes a whole workerd worker down), from the module
// or bytes handed to initWasm, else from the bytes inlined into the default entry.
import { CodecError } from "../errors.js";
import { inlineWasm } from "./inline.js";

/** The core's exports (assembly/index.ts), one line each. Pointers are u32 passed as numbers. */
export interface CoreExports {
  readonly memory: WebAssembly.Memory;
  /** First free 16-aligned address after static data. */
  heapBase(): number;
  /** Address of the 64-byte control block (assembly/ctrl.ts). */
  ctrl(): number;
  /** Status; CTRL_VALUE = value, CTRL_COUNT = bytes read. */
  readVarintAt(p: number, len: number): number;
  /** Bytes written. */
  writeVarintAt(p: number, v: bigint): number;
  varintSize64(v: bigint): number;
  /** Status; CTRL_FIELD, CTRL_WIRE, CTRL_COUNT. */
  readTagAt(p: number, len: number): number;
  writeTagAt(p: number, fieldNumber: number, wireType: number): number;
  /** 1 = ASCII, 2 = non-ASCII UTF-8, negative = E_INVALID_UTF8 (CTRL_OFFSET). */
  checkUtf8At(p: number, len: number): number;
  /** 1 = [p, p + len) is certainly a well-formed packed varint run, 0 = look closer. */
  varintRunAt(p: number, len: number): number;
  zigzag32(v: number): number;
  unzigzag32(v: number): number;
  zigzag64(v: bigint): bigint;
  unzigzag64(v: bigint): bigint;
  /** Status (OK, S_MORE, S_NEED_INPUT or an error) over the input segment [from, to) at base + offset; (offset, length) pairs at out; CTRL_COUNT, CTRL_OFFSET, CTRL_NEED. */
  scanFrames(base: number, from: number, to: number, more: number, maxFrame: number, out: number, outCap: number): number;
  /** Status (OK, S_PAUSED or an error); tape window [tape, tapeEnd), its ASCII strings' bytes at [text, textEnd); CTRL_COUNT entries, CTRL_PACKED, CTRL_TEXT. */
  walk(tbl: number, tableWords: number, rootType: number, base: number, len: number, maxBytes: number, maxDepth: number, stack: number, tape: number, tapeEnd: number, text: number, textEnd: number): number;
  /** walk over the frames of the input segment [from, to) at base + offset (more bytes after it); also S_NEED_INPUT (CTRL_OFFSET, CTRL_NEED). */
  walkFrames(tbl: number, tableWords: number, rootType: number, base: number, from: number, to: number, more: number, maxBytes: number, maxDepth: number, stack: number, tape: number, tapeEnd: number, text: number, textEnd: number): number;
  /** Continues a walk that returned S_PAUSED into the same window, from its start; same results. */
  walkResume(): number;
  /** Status; walk's checks and failure details, no tape (assembly/validate.ts). */
  validate(tbl: number, tableWords: number, rootType: number, base: number, len: number, maxBytes: number, maxDepth: number, stack: number): number;
  /** validate over the frames of an input segment, as walkFrames; CTRL_COUNT = frames checked. */
  validateFrames(tbl: number, tableWords: number, rootType: number, base: number, from: number, to: number, more: number, maxBytes: number, maxDepth: number, stack: number): number;
  /** Status (E_COLLISION with CTRL_FIELD/CTRL_OFFSET); ranges = (offset, length) pairs. */
  scanUnknown(tbl: number, tableWords: number, typeOff: number, base: number, ranges: number, count: number): number;
  /** Bytes of the packed payload of count elements at src. */
  packedSize(kind: number, src: number, count: number): number;
  /** Writes the packed payload; returns bytes written. */
  writePacked(kind: number, src: number, count: number, dst: number): number;
}

// Each export's parameter count (a WebAssembly function's `length`), as CoreExports declares it.
// A module that instantiates but lacks one of these, or takes other parameters, is not this
// version's core: without this check it was accepted, and the first call threw a TypeError and
// left the memory state half set up (the next call then never returned).
const CORE_FUNCTIONS: Readonly<Record<Exclude<keyof CoreExports, "memory">, number>> = {
  heapBase: 0, ctrl: 0, readVarintAt: 2, writeVarintAt: 2, varintSize64: 1, readTagAt: 2, writeTagAt: 3,
  checkUtf8At: 2, varintRunAt: 2, zigzag32: 1, unzigzag32: 1, zigzag64: 1, unzigzag64: 1, scanFrames: 7,
  walk: 12, walkFrames: 14, walkResume: 0, validate: 8, validateFrames: 10, scanUnknown: 6, packedSize: 3,
  writePacked: 4,
};

/** Why `exports` is not this version's core, or undefined when it has every export CoreExports names. */
function notCore(exports: WebAssembly.Exports): string | undefined {
  if (!(exports.memory instanceof WebAssembly.Memory)) return "the module exports no memory";
  for (const [name, params] of Object.entries(CORE_FUNCTIONS)) {
    const fn = exports[name];
    if (typeof fn !== "function") return `the module has no export ${name}`;
    if (fn.length !== params) return `its export ${name} takes ${fn.length} parameters, not ${params}`;
  }
  return undefined;
}

let source: WebAssembly.Module | Uint8Array | undefined;
let current: CoreExports | undefined;
/** The module `current` was instantiated from, kept so that a restart does not compile again. */
let compiled: WebAssembly.Module | undefined;
let generation = 0;

/**
 * Hands protokeel its WebAssembly core: a precompiled `WebAssembly.Module` (workerd, strict
 * CSP, or a module compiled once and shared between workers) or the bytes of
 * `protokeel/protokeel.wasm`. Optional in Node, Deno, Bun and browsers, where the default entry
 * carries the bytes inline; without an argument it instantiates that core now instead of on
 * first use. Calling it again replaces the instance.
 */
export function initWasm(moduleOrBytes?: WebAssembly.Module | BufferSource): void {
  let next: WebAssembly.Module | Uint8Array | undefined;
  if (moduleOrBytes === undefined) {
    // No argument: start the core now (from what the entry carries) instead of on first use.
    next = source ?? inlineWasm;
  } else if (moduleOrBytes instanceof WebAssembly.Module) {
    next = moduleOrBytes;
  } else if (ArrayBuffer.isView(moduleOrBytes)) {
    next = new Uint8Array(moduleOrBytes.buffer, moduleOrBytes.byteOffset, moduleOrBytes.byteLength);
  } else if (moduleOrBytes instanceof ArrayBuffer) {
    next = new Uint8Array(moduleOrBytes);
  } else {
    throw new TypeError("initWasm expects a WebAssembly.Module, an ArrayBuffer or a typed array of protokeel.wasm");
  }
  // Only a source that instantiates replaces the current one: a failed call changes nothing.
  current = instantiate(next);
  if (next !== inlineWasm) source = next;
}

/** Used by the workerd entry: registers its module without instantiating it yet. */
export function setWasmSource(module: WebAssembly.Module): void {
  if (source === undefined) source = module;
}

function instantiate(from: WebAssembly.Module | Uint8Array | undefined): CoreExports {
  if (from === undefined) {
    throw new CodecError(
      "WASM_NOT_INITIALIZED",
      "cannot start the protokeel core: no WebAssembly module was given; call initWasm(module) with the compiled protokeel.wasm first",
    );
  }
  let instance: WebAssembly.Instance;
  let module: WebAssembly.Module | undefined;
  try {
    module = from instanceof WebAssembly.Module ? from : new WebAssembly.Module(from as Uint8Array<ArrayBuffer>);
    instance = new WebAssembly.Instance(module, {});
  } catch (cause) {
    // A module that compiles but cannot be instantiated for want of memory: the engine's
    // RangeError (V8 reserves ~10 GiB of address space per WebAssembly memory on 64-bit hosts).
    if (module !== undefined && cause instanceof RangeError) {
      throw new CodecError(
        "MEMORY_EXHAUSTED",
        `cannot start the protokeel core: the engine cannot allocate its WebAssembly memory (${cause.message}); the process is short of memory or of address space (V8 reserves about 10 GiB of it per WebAssembly memory: a limit such as ulimit -v below that stops it)`,
        { cause },
      );
    }
    throw new CodecError(
      "WASM_INSTANTIATION_FAILED",
      `cannot start the protokeel core: ${String((cause as Error)?.message ?? cause)}; pass the protokeel.wasm shipped with this version to initWasm`,
      { cause },
    );
  }
  const wrong = notCore(instance.exports);
  if (wrong !== undefined) {
    throw new CodecError(
      "WASM_INSTANTIATION_FAILED",
      `cannot start the protokeel core: the WebAssembly module is not protokeel's core (${wrong}); pass the protokeel.wasm shipped with this version to initWasm`,
    );
  }
  compiled = module;
  generation++;
  return instance.exports as unknown as CoreExports;
}

/** The instance, created on first use. */
export function core(): CoreExports {
  return current ?? (current = instantiate(source ?? inlineWasm));
}

/** The instance if one has started, without starting one. */
export function coreIfStarted(): CoreExports | undefined {
  return current;
}

/**
 * Replaces the instance by a fresh one of the same compiled module, whose memory starts at its
 * initial size (WebAssembly memory never shrinks; a new instance is the only way to give it
 * back). Does nothing before the first instance.
 */
export function restartCore(): void {
  if (current !== undefined) current = instantiate(compiled);
}

/** Changes whenever a new instance replaces the old one (its memory starts empty). */
export function coreGeneration(): number {
  return generation;
}
