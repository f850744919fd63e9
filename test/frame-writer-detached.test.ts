// A FrameWriter whose buffer was detached: view() is a view of its own buffer (no copy), and
// transferring that view's .buffer (postMessage(v, [v.buffer])) detached the writer. Its growth
// doubled a length of 0 forever: every later serialize hung, reset() or not. Now a write or a read
// of it is CodecError OUTPUT_DETACHED, and reset() starts over on a fresh buffer.
import { expect, test } from "vitest";
import { CodecError, FrameReader, FrameWriter, ProtobufType } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";
import { thrown } from "./support/thrown.js";

const ser = ProtobufType.of({ fileDescriptorSet: compileProtoText({ "w.proto": 'syntax = "proto3"; package w; message M { string s = 1; }' }), messageName: "w.M" }).createSerializer();

test("a detached FrameWriter refuses writes and reads with OUTPUT_DETACHED until reset()", () => {
  const fw = new FrameWriter();
  ser.serialize({ s: "one" }, fw);
  const v = fw.view();
  structuredClone(v.buffer, { transfer: [v.buffer] });
  for (const use of [() => ser.serialize({ s: "two" }, fw), () => fw.toUint8Array(), () => fw.view()]) {
    const e = thrown(use);
    expect(e).toBeInstanceOf(CodecError);
    expect(e).toMatchObject({
      code: "OUTPUT_DETACHED",
      message: "cannot use the FrameWriter: its buffer was detached (the .buffer of view() was transferred) and the 6 bytes written are gone; call reset() to start over, and transfer toUint8Array() copies instead",
    });
  }
  fw.reset();
  ser.serialize({ s: "two" }, fw);
  ser.serialize({ s: "three" }, fw);
  const reader = new FrameReader(fw.toUint8Array());
  expect([ser.deserialize(reader).get("s"), ser.deserialize(reader).get("s")]).toEqual(["two", "three"]);
});
