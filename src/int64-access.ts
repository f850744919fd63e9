// How 64-bit integers move between bigint and memory: through BigInt64Array/BigUint64Array
// elements, or through DataView's getBigInt64/setBigInt64. The faster one depends on the engine,
// in opposite directions (1,000 elements of mixed magnitude, ns per element, one machine):
//
//                                  Node 20 (V8 11.3)   Deno 2.9 (V8 14)   Bun 1.4 (JavaScriptCore)
//   read, BigInt64Array element          5.3                4.3                 20.5
//   read, DataView.getBigInt64          16.6                4.3                  5.0
//   write, BigInt64Array element         1.4                1.2                 10.5
//   write, DataView.setBigInt64         10.4                1.2                  1.7
//
// V8 inlines typed-array element access and calls out for DataView's bigint methods;
// JavaScriptCore the reverse. Bun's numeric cases were 0.60-0.92x of protobufjs where Node's are
// 1.8-3.1x. The choice is made once, from what the engine is, never from a timing: a value's
// bytes are the same either way (test/int64-access.test.ts runs both on every 64-bit kind, and
// the "dataview-int64" test project runs the codec suites with the DataView way).

/**
 * True on JavaScriptCore (Bun, Safari and every iOS browser): its Error objects carry `line` and
 * `sourceURL` own properties, which V8 (Node, Deno, workerd, Chromium) and SpiderMonkey do not
 * give. A wrong answer costs speed only.
 */
function javaScriptCore(): boolean {
  try {
    const e = new Error() as Error & { line?: unknown; sourceURL?: unknown };
    return typeof e.line === "number" && typeof e.sourceURL === "string";
  } catch {
    return false;
  }
}

/** True while 64-bit integers go through DataView (read from linear memory, written to scratch). */
export let int64ViaDataView = javaScriptCore();

/**
 * @internal For tests that run the codec both ways: sets whether 64-bit integers go through
 * DataView (true) or 64-bit typed-array elements (false). Returns the previous setting.
 */
export function setInt64ViaDataView(on: boolean): boolean {
  const prev = int64ViaDataView;
  int64ViaDataView = on;
  return prev;
}
