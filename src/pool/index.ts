// protokeel/pool (Node only): decode, encode, validate and evaluate batches of one type on worker
// threads. The core package never imports this.
export { createCodecPool, CodecPool } from "./pool.js";
export type { CodecPoolOptions, PoolDecodeOptions, PoolDecodeResult, PoolEncodeOptions, PoolEvaluateOptions, PoolValidateOptions } from "./pool.js";
export type { ResultForm } from "./protocol.js";
export { PoolError, CodecError } from "../index.js";
