// The core's memory after one large input, in a process whose later traffic is small messages.
// The automatic release (16 calls in a row each needing under a quarter of the memory) counted
// only calls that reached the core: bare messages under the small-decode threshold are read by
// the TypeScript reader, so a server that decoded one 40 MB message and then only small ones kept
// the 40 MB for good. And the last walked input stayed referenced after its walk ended (a whole
// batch, after its values were dropped), releaseMemory() or not.
import { expect, test } from "vitest";
import { ProtobufType, releaseMemory, wasmMemoryBytes } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";
import { fullGc } from "./support/heap.js";

const type = ProtobufType.of({
  fileDescriptorSet: compileProtoText({ "r.proto": 'syntax = "proto3"; package r; message M { string s = 1; repeated int32 n = 2; }' }),
  messageName: "r.M",
});
const ser = type.createSerializer();
const large = ser.toBinary({ s: "x".repeat(40 * 1024 * 1024) });
const small = ser.toBinary({ s: "small", n: [1, 2, 3] });
const smallFrame = ser.encode({ s: "small" });

test.each([
  ["fromBinary of a small bare message", () => ser.fromBinary(small)],
  ["decode of a small frame", () => ser.decode(smallFrame)],
  ["generated fromBinary of a small bare message", () => generated.fromBinary(small)],
])("after one large input, %s counts toward the automatic release", (_name, call) => {
  releaseMemory();
  ser.validate(large);
  expect(wasmMemoryBytes()).toBeGreaterThan(40 * 1024 * 1024);
  for (let i = 0; i < 17; i++) call();
  expect(wasmMemoryBytes()).toBeLessThan(4 * 1024 * 1024);
});

const generated = ProtobufType.ofGenerated(type.descriptor).createSerializer();

test("a walk's input is not held after the walk ends, or after it fails", async () => {
  const refs = (() => {
    const frames = ser.encodeAll(Array.from({ length: 1000 }, (_, i) => ({ s: "v" + i })));
    expect(ser.decodeAll(frames).map((m) => m.get("s"))).toHaveLength(1000);
    const bad = ser.toBinary({ s: "y".repeat(1000) }).slice(0, -1);
    expect(() => ser.fromBinary(bad)).toThrow(/truncated|ends/);
    return [new WeakRef(frames), new WeakRef(bad)];
  })();
  // WeakRef targets stay alive until the job that made the refs ends.
  await new Promise((r) => setTimeout(r, 0));
  fullGc();
  expect(refs.map((r) => r.deref() === undefined)).toEqual([true, true]);
});

// One large input every 20 small decodes: each round released the memory (after 16 quiet calls)
// and grew it back on the next large input, ~5x the cost of a round. A release whose memory is
// needed again soon doubles the calls the next one waits for.
test("traffic of one large input every 20 small decodes stops releasing after the first round", () => {
  releaseMemory();
  const sizes: number[] = [];
  for (let round = 0; round < 6; round++) {
    ser.validate(large);
    for (let i = 0; i < 20; i++) ser.fromBinary(small);
    sizes.push(wasmMemoryBytes());
  }
  // Released after the first round; from the second on it waits for 32 quiet calls and more.
  expect(sizes[0]!).toBeLessThan(4 * 1024 * 1024);
  expect(sizes.slice(1).every((n) => n > 40 * 1024 * 1024)).toBe(true);
  // An application's release is no sign of the traffic: the rule starts over after it.
  releaseMemory();
  ser.validate(large);
  for (let i = 0; i < 17; i++) ser.fromBinary(small);
  expect(wasmMemoryBytes()).toBeLessThan(4 * 1024 * 1024);
});
