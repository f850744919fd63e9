// Schema inputs in a SharedArrayBuffer that another thread writes while they are read. A
// descriptor set was read three times (its check, its parse, the cache's copy): after one racing
// call, the set cache held a registry under bytes it was not parsed from, and every later call
// with a fresh, unshared copy of those bytes got another schema (even a mix of the two). A
// snapshot's integrity check and the reads after it saw different bytes. Each is now copied once,
// privately, before it is read.
import { createFileRegistry, fromBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { afterEach, expect, test } from "vitest";
import { ProtobufType, readSnapshot, writeSnapshot } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";
import { flipper, type Flipper } from "./support/flipper.js";

// Two sets of one length that differ only in field types.
const A = compileProtoText({ "s.proto": 'syntax = "proto3"; package s; message M { int32 aa = 1; int64 bb = 2; }' });
const B = compileProtoText({ "s.proto": 'syntax = "proto3"; package s; message M { int64 aa = 1; int32 bb = 2; }' });

/** "aa:<type>,bb:<type>" of a message. */
const shape = (d: DescMessage) => d.fields.map((f) => `${f.name}:${f.scalar}`).join(",");
const shapeOf = (set: Uint8Array) => shape(createFileRegistry(fromBinary(FileDescriptorSetSchema, set)).getMessage("s.M")!);

let running: Flipper | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

test("the two sets are of one length and differ", () => {
  expect(A.length).toBe(B.length);
  expect(shapeOf(A)).not.toBe(shapeOf(B));
});

// The shared memory as a Uint8Array and as a Node Buffer (whose slice() is a view, not a copy).
test.each(["a Uint8Array", "a Node Buffer"])("ProtobufType.of a set in shared memory (%s): the cache keeps each registry under the bytes it was parsed from", async (form) => {
  running = flipper(A, B);
  const shared = running.input;
  const input = form === "a Node Buffer" ? Buffer.from(shared.buffer, shared.byteOffset, shared.length) : shared;
  for (let i = 0; i < 300; i++) {
    try {
      // One copy of racing memory may be a mix of the two (a valid set, or a typed refusal): it is
      // what is parsed, checked and cached, as one.
      ProtobufType.of({ fileDescriptorSet: input, messageName: "s.M" });
    } catch (e) {
      expect(e).toMatchObject({ name: "InvalidDescriptorError" });
    }
    // Unshared bytes of each set still give their own schema.
    expect(shape(ProtobufType.of({ fileDescriptorSet: A.slice(), messageName: "s.M" }).descriptor)).toBe(shapeOf(A));
    expect(shape(ProtobufType.of({ fileDescriptorSet: B.slice(), messageName: "s.M" }).descriptor)).toBe(shapeOf(B));
  }
});

test("readSnapshot of shared memory: a snapshot read is one that was written, or a typed refusal", async () => {
  const snap = (set: Uint8Array) => writeSnapshot(ProtobufType.of({ fileDescriptorSet: set, messageName: "s.M" }).createSerializer().snapshotConfiguration());
  const sa = snap(A);
  const sb = snap(B);
  expect(sa.length).toBe(sb.length);
  running = flipper(sa, sb);
  const shapes = new Set([shapeOf(A), shapeOf(B)]);
  for (let i = 0; i < 2000; i++) {
    let s: ReturnType<typeof readSnapshot>;
    try {
      s = readSnapshot(running.input);
    } catch (e) {
      expect(e).toMatchObject({ name: "SnapshotFormatError" });
      continue;
    }
    const got = shape((s.restoreSerializer() as { type: ProtobufType }).type.descriptor);
    expect(shapes.has(got), got).toBe(true);
  }
});
