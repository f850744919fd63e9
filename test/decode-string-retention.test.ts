// What one kept decoded string holds alive. ASCII strings are substrings of one string made of
// a tape window's text area, and V8 makes a substring of 13 characters or more a slice that keeps
// that string alive: with a 1 MiB text area, one kept 40-character id out of a large batch held
// ~400 KiB (a cache of ids grew by that per id). The area is 64 KiB now: a kept string holds at
// most that, as a kept bytes value holds at most its 64 KiB slab.
import { afterAll, beforeAll, expect, test } from "vitest";
import { setSmallDecodeThreshold } from "../src/codec/reader.js";
import { ProtobufType } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";
import { retainedBy } from "./support/heap.js";

const desc = ProtobufType.of({
  fileDescriptorSet: compileProtoText({ "k.proto": 'syntax = "proto3"; package k; message Item { string id = 1; } message Batch { repeated Item items = 1; }' }),
  messageName: "k.Batch",
}).descriptor;
const dynamic = ProtobufType.of(desc).createSerializer();
// The tape path (the "small-decode" project reads every input with the TypeScript reader, whose
// strings are slices of the input's own text: the inputs it reads in production are under 256 bytes).
let threshold = 0;
beforeAll(() => void (threshold = setSmallDecodeThreshold(0)));
afterAll(() => void setSmallDecodeThreshold(threshold));
const generated = ProtobufType.ofGenerated(desc).createSerializer();
// ~440 KB of ASCII text: 10,000 ids of 40 characters.
const input = dynamic.toBinary({ items: Array.from({ length: 10_000 }, (_, i) => ({ id: String(i).padStart(40, "x") })) });
const frames = dynamic.encodeAll(Array.from({ length: 10_000 }, (_, i) => ({ items: [{ id: String(i).padStart(40, "y") }] })));

test.each([
  ["fromBinary", () => (dynamic.fromBinary(input).get("items") as { get(n: string): string }[])[5000]!.get("id")],
  ["generated fromBinary", () => (generated.fromBinary(input) as unknown as { items: { id: string }[] }).items[5000]!.id],
  ["decodeAll", () => (dynamic.decodeAll(frames)[5000]!.get("items") as { get(n: string): string }[])[0]!.get("id")],
])("a 40-character string kept from each of four %s calls holds at most ~64 KiB", (_name, keep) => {
  // Four decodes, one string kept of each: a heap measure has some slack (arena pieces, memos);
  // four windows of 1 MiB held ~1.6 MB. The least of three measures: heapUsed after the full GCs
  // also counts garbage not yet swept, which in a loaded run added up to 60 KB per string (one
  // measure read 12,972 to 133,462 bytes per string over 16 runs of the decode projects); what a
  // kept string holds is in every measure.
  let least = Infinity;
  for (let i = 0; i < 3; i++) {
    const { value, bytes } = retainedBy(() => [keep(), keep(), keep(), keep()]);
    expect(value.map((s) => s.length)).toEqual([40, 40, 40, 40]);
    least = Math.min(least, bytes / 4);
  }
  expect(least).toBeLessThan(128 * 1024);
});
