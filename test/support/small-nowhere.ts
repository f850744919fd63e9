// Setup for the "core-decode" test project: no input is read by the TypeScript reader of small
// messages (src/codec/small-reader.ts); every decode goes through the WASM core's tape.
import { setSmallDecodeThreshold } from "../../src/codec/reader.js";

setSmallDecodeThreshold(0);
