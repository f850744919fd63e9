// `.wasm` imports: tsup (loader ".wasm": "binary") and the vitest plugin give the bytes; the
// workerd entry's import is left to workerd, which gives a compiled WebAssembly.Module.
declare module "*.wasm" {
  const value: Uint8Array;
  export default value;
}
