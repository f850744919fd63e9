// Setup for the "lazy-decode" test project: every bare message is decoded lazily (validated,
// materialized on first access), so the codec tests run on both read paths (docs/design.md §13).
import { setAdaptiveLazy, setLazyDecodeThreshold } from "../../src/codec/reader.js";

setLazyDecodeThreshold(0);
// Lazy whatever a serializer's values are used for (the watch would turn decodes whose values
// are all read eager).
setAdaptiveLazy(false);
