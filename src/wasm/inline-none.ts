// Stands in for inline.ts in the workerd build: workerd gets the module from its own import.
export const inlineWasm: Uint8Array | undefined = undefined;
