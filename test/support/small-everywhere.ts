// Setup for the "small-decode" test project: every bare message and single frame is read by the
// TypeScript reader (src/codec/small-reader.ts), whatever its size; inputs it gives up on still
// go through the core. With "core-decode" (none of them), the decode tests run on both paths.
import { setSmallDecodeThreshold } from "../../src/codec/reader.js";

setSmallDecodeThreshold(Infinity);
