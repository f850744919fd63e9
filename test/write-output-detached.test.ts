// Outputs of up to 4 KiB are views of a shared arena slab, and a write in progress writes into
// the same slab. Application code that a write runs (a getter of the value) and that transfers
// the buffer of an earlier output detaches the slab under the write: the bytes written so far are
// gone, and the write threw the engine's TypeError ("Cannot perform Construct on a detached
// ArrayBuffer") from wherever it next made a view. It is a CodecError OUTPUT_DETACHED now, on both
// kinds, and the next write takes a new slab.
import { create, createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { expect, test } from "vitest";
import { CodecError, ProtobufType } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";
import { thrown } from "./support/thrown.js";

const reg = createFileRegistry(
  fromBinary(FileDescriptorSetSchema, compileProtoText({ "d.proto": 'syntax = "proto3"; package d; message M { string name = 1; repeated string more = 2; int32 n = 3; }' })),
);
const M = reg.getMessage("d.M")!;
const dynamic = ProtobufType.of(M).createSerializer();
const generated = ProtobufType.ofGenerated(M).createSerializer();

/** A value whose `name` getter detaches the buffer of an earlier small output, then `more` makes the write grow or not. */
function detaching(grow: boolean): Record<string, unknown> {
  const earlier = dynamic.toBinary({ n: 1 });
  return {
    get name() {
      if (earlier.buffer.byteLength > 0) structuredClone(earlier.buffer, { transfer: [earlier.buffer] });
      return "hello";
    },
    more: grow ? Array.from({ length: 300 }, () => "x".repeat(40)) : ["a"],
    n: 5,
  };
}

/** The same as a protobuf-es message object: the getter stays a getter. */
function esDetaching(grow: boolean): ReturnType<typeof create<typeof M>> {
  return Object.defineProperties(create(M), Object.getOwnPropertyDescriptors(detaching(grow)));
}

const MESSAGE =
  "cannot write d.M: the output buffer was detached while the value was written (code the write ran transferred the .buffer of an earlier protokeel output, which shares it); copy outputs (slice()) before transferring them";

test.each([
  ["dynamic toBinary, small", () => dynamic.toBinary(detaching(false))],
  ["dynamic toBinary, growing past the slab", () => dynamic.toBinary(detaching(true))],
  ["dynamic encode", () => dynamic.encode(detaching(false))],
  ["dynamic encodeAll", () => dynamic.encodeAll([{ n: 1 }, detaching(false)])],
  ["generated toBinary, small", () => generated.toBinary(esDetaching(false))],
  ["generated toBinary, growing past the slab", () => generated.toBinary(esDetaching(true))],
  ["generated encode", () => generated.encode(esDetaching(false))],
])("%s: OUTPUT_DETACHED, and the next write is right", (_name, write) => {
  const error = thrown(write);
  expect(error).toBeInstanceOf(CodecError);
  expect(error).toMatchObject({ code: "OUTPUT_DETACHED", message: MESSAGE, path: "d.M" });
  expect(dynamic.toBinary({ name: "ok", n: 2 })).toEqual(Uint8Array.of(0x0a, 0x02, 0x6f, 0x6b, 0x18, 0x02));
  expect(generated.toBinary(create(M, { name: "ok", n: 2 }))).toEqual(Uint8Array.of(0x0a, 0x02, 0x6f, 0x6b, 0x18, 0x02));
});
