// Setup for the "dataview-int64" test project: 64-bit integers go through DataView, the way taken
// on JavaScriptCore (src/int64-access.ts), and every decode through the core's tape (where the
// reads of 64-bit values are; the TypeScript reader of small messages builds them from halves).
import { setSmallDecodeThreshold } from "../../src/codec/reader.js";
import { setInt64ViaDataView } from "../../src/int64-access.js";

setInt64ViaDataView(true);
setSmallDecodeThreshold(0);
