// The default entry carries the core inline: no runtime has to resolve a path or fetch a file.
// The workerd build replaces this module with one that exports undefined (see tsup.config.ts).
import bytes from "../../build/protokeel.wasm";

export const inlineWasm: Uint8Array | undefined = bytes;
