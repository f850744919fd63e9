// A bare message of 4 KiB or more is validated (assembly/validate.ts) and decoded lazily; the
// validate walk's nesting height becomes the value's height memo, which decides whether a
// serializer relays it as a copy (writer.ts relayable: height <= maxDepth). validate counts the
// levels it opened from stack frames stamped 0xffffffff at word +8 (openedLevels) and trusts that
// no frame it did not push holds that stamp; but the stack region (src/wasm/ops.ts place) is
// scratch memory that an earlier call with a smaller maxDepth (or before the layout table grew)
// used for its tape, text area or input copy, and walk never writes word +8. A tape entry whose
// payload's low word is 0xffffffff (a fixed64 of -1) left there reads as a stamp: a lazily
// decoded value of height 3 got height 33 after a maxDepth-1 serializer decoded 30 such values,
// and a maxDepth-3 serializer then materialized and re-checked it instead of relaying it.
// The value's height must not depend on what ran before: the stamp is now a new value per call
// (gOpened; found by a helper's attack pass).
import { describe, expect, test } from "vitest";
import { ProtobufType, type DynamicMessage } from "../../src/index.js";
import { typeOf } from "./support.js";

const base = typeOf("message M { repeated sfixed64 x = 1 [packed = false]; bytes b = 2; M child = 3; }", "M");
const desc = base.descriptor;
const withDepth = (d: number) => ProtobufType.newBuilder(desc).maxDepth(d).build().createSerializer();
const internals = (v: DynamicMessage) => v as unknown as { _height: number; _isLazy: boolean };

// Earlier reads that leave 0xffffffff words where a deeper stack's frames lie: a core walk
// (300 B: over the small reader's 256, under the lazy 4 KiB) by serializers of small maxDepth,
// and a validate of the same bytes.
const POISON = withDepth(1).toBinary({ x: Array.from({ length: 30 }, () => -1n) });
const POISONERS: [string, () => void][] = [
  ["fromBinary, maxDepth 1", () => withDepth(1).fromBinary(POISON)],
  ["fromBinary, maxDepth 2", () => withDepth(2).fromBinary(POISON)],
  ["decodeAll, maxDepth 1", () => withDepth(1).decodeAll(withDepth(1).encodeAll([withDepth(1).fromBinary(POISON)]))],
];

// Lazily decoded messages (over 4 KiB) of heights 1 to 4.
const chain = (h: number): Record<string, unknown> => (h === 1 ? { b: new Uint8Array([1]) } : { child: chain(h - 1) });
const LAZY: [number, Uint8Array][] = [1, 2, 3, 4].map((h) => [h, withDepth(100).toBinary({ b: new Uint8Array(5000), ...(h > 1 ? { child: chain(h - 1) } : {}) })]);

describe.each(POISONERS)("after %s", (_name, poison) => {
  test.each(LAZY)("a lazily decoded value of height %i keeps that height and is relayed as a copy", (h, bytes) => {
    const deep = withDepth(100);
    poison();
    const v = deep.fromBinary(bytes);
    expect(internals(v)._isLazy).toBe(true);
    // Fails now for heights 2 and more (33 after 30 poisoned entries).
    expect(internals(v)._height).toBe(h);
    // A serializer whose maxDepth is the value's height relays it without materializing it.
    expect(withDepth(h).toBinary(v)).toEqual(bytes);
    expect(internals(v)._isLazy).toBe(true);
  });
});
