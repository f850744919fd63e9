// The `workerd` export condition: workerd refuses to compile WebAssembly from bytes, so this
// entry imports the module file shipped beside it in dist/ (workerd hands over a compiled
// WebAssembly.Module) and does not carry the inline bytes (tsup.config.ts swaps them out).
import wasmModule from "./protokeel.wasm";
import { setWasmSource } from "./wasm/instance.js";

setWasmSource(wasmModule as unknown as WebAssembly.Module);

// This entry is the default entry with another WASM source: the same public names, kept in
// one list in src/index.ts.
export * from "./index.js";
