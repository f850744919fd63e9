// A FrameReader's input whose buffer is transferred or shrunk while it is read: the usual loop
// `while (reader.hasMore())` ended at once with no error (the rest of the input silently dropped)
// and `remaining` went negative, or a read called the data truncated. Now the next read says what
// happened (NOT_BYTES, as decodeStream does for a chunk detached mid-frame), and hasMore and
// remaining describe the input as it was given.
import { expect, test } from "vitest";
import { CodecError, FrameReader, ProtobufType } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";
import { thrown } from "./support/thrown.js";

const ser = ProtobufType.of({ fileDescriptorSet: compileProtoText({ "f.proto": 'syntax = "proto3"; package f; message M { string s = 1; }' }), messageName: "f.M" }).createSerializer();

test.each([
  ["transferred", (b: Uint8Array) => void structuredClone(b.buffer, { transfer: [b.buffer] })],
  ["shrunk (a resizable buffer)", (b: Uint8Array) => (b.buffer as ArrayBuffer & { resize(n: number): void }).resize(3)],
])("an input %s after the first frame: the next read is NOT_BYTES, nothing is dropped silently", (_how, change) => {
  const frames = ser.encodeAll([{ s: "one" }, { s: "two" }, { s: "three" }, { s: "four" }]);
  const buffer = new (ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => ArrayBuffer)(frames.length, { maxByteLength: frames.length });
  const input = new Uint8Array(buffer);
  input.set(frames);
  const reader = new FrameReader(input);
  expect(ser.deserialize(reader).get("s")).toBe("one");
  const at = reader.position;
  change(input);
  expect(reader.hasMore()).toBe(true);
  expect(reader.remaining).toBe(frames.length - at);
  const error = thrown(() => ser.deserialize(reader));
  expect(error).toBeInstanceOf(CodecError);
  expect(error).toMatchObject({ code: "NOT_BYTES", offset: at });
  expect((error as Error).message).toBe(
    `cannot decode f.M: the FrameReader's input was detached or resized before byte ${at} (it had ${frames.length} bytes, it has ${input.length}); keep the input unchanged until the reader is done`,
  );
  // The position stays: after a reset on good input, reading goes on.
  reader.reset(frames);
  expect([...Array(4)].map(() => ser.deserialize(reader).get("s"))).toEqual(["one", "two", "three", "four"]);
});

// At the exact end it said "the frame at byte N ends after the input does; the data is truncated".
test("a read at the end of the input says no frame is left", () => {
  const reader = new FrameReader(ser.encodeAll([{ s: "one" }]));
  ser.deserialize(reader);
  expect(reader.hasMore()).toBe(false);
  expect(thrown(() => ser.deserialize(reader))).toMatchObject({
    code: "FRAME_TRUNCATED",
    offset: 6,
    message: "cannot decode f.M: no frame is left at byte 6, where the input ends; read while reader.hasMore()",
  });
});

// Given already detached (postMessage(b, [b.buffer]) or a pool call with transfer: true, then the
// same array to a FrameReader): it read as empty, so the loop read nothing and said nothing, where
// decodeAll of the same array throws NOT_BYTES.
test.each([
  ["new FrameReader(detached)", (b: Uint8Array) => new FrameReader(b)],
  ["reader.reset(detached)", (b: Uint8Array) => new FrameReader(ser.encodeAll([{ s: "kept" }])).reset(b)],
])("%s is NOT_BYTES", (_how, give) => {
  const frames = ser.encodeAll([{ s: "one" }]).slice();
  structuredClone(frames.buffer, { transfer: [frames.buffer] });
  expect(thrown(() => ser.decodeAll(frames))).toMatchObject({ code: "NOT_BYTES" });
  const error = thrown(() => give(frames));
  expect(error).toBeInstanceOf(CodecError);
  expect(error).toMatchObject({
    code: "NOT_BYTES",
    message:
      "cannot read frames: the FrameReader's input is detached (its buffer was transferred, to a worker or by a pool call with transfer: true, or a resizable buffer shrank below it); pass bytes that are not transferred, or a copy made before the transfer",
  });
});

test("a reset refused for a detached input leaves the reader on its previous input", () => {
  const reader = new FrameReader(ser.encodeAll([{ s: "kept" }]));
  const gone = new Uint8Array(4);
  structuredClone(gone.buffer, { transfer: [gone.buffer] });
  expect(() => reader.reset(gone)).toThrow(CodecError);
  expect(ser.deserialize(reader).get("s")).toBe("kept");
});

test("an empty input that is not detached is read as no frames", () => {
  expect(new FrameReader(new Uint8Array(0)).hasMore()).toBe(false);
  expect(new FrameReader().hasMore()).toBe(false);
});
