// Bare messages and frames mixed up (issue 12, item 10): a frame passed to fromBinary reads its
// length prefix as a tag, so the error spoke of wire types and "an incompatible schema". When the
// input is valid in the other form, the error (same code, offset and path) says so and names the
// method to call. Inputs valid in neither form keep their plain error.
import { describe, expect, test } from "vitest";
import { CodecError, ProtobufType } from "../src/index.js";
import { typeOf } from "./adversarial/support.js";

const type: ProtobufType = typeOf(`message Order { string sku = 1; int64 qty = 2; }`, "Order");
const ser = type.createSerializer();
const bare = ser.toBinary({ sku: "abc", qty: 3n });
const frame = ser.encode({ sku: "abc", qty: 3n });

function failure(f: () => unknown): CodecError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    return e as CodecError;
  }
  throw new Error("expected a CodecError");
}

const FRAME_HINT = ". Note: the input is one length-prefixed frame (framing v1) holding a valid Order: read it with serializer.decode(bytes), or pass the message without its length prefix";
const BARE_HINT = ". Note: the input is a valid bare Order without a length prefix: read it with serializer.fromBinary(bytes), or frame it with serializer.encode";

describe("a frame where a bare message is expected", () => {
  test.each([
    ["fromBinary", () => ser.fromBinary(frame)],
    ["validate", () => ser.validate(frame)],
  ])("%s names decode", (_name, read) => {
    const e = failure(read);
    // The prefix 0x07 reads as field 0 wire type 7.
    expect(e.code).toBe("FIELD_NUMBER_ZERO");
    expect(e.offset).toBe(0);
    expect(e.message).toBe(`cannot decode Order: tag at byte 0 in Order has field number 0, which is never valid; the input is corrupt or is not an encoded Order${FRAME_HINT}`);
  });

  test("the same error without the hint when the body is not a valid message", () => {
    const broken = Uint8Array.of(frame[0]!, ...frame.subarray(1, -1), 0x80);
    expect(failure(() => ser.fromBinary(broken)).message).not.toContain("Note:");
  });
});

describe("a bare message where frames are expected", () => {
  test.each([
    ["decode", () => ser.decode(bare)],
    ["decodeAll", () => ser.decodeAll(bare)],
    ["validateAll", () => ser.validateAll(bare)],
  ])("%s names fromBinary", (_name, read) => {
    const e = failure(read);
    // The tag 0x0a reads as a 10-byte frame, longer than the 8 bytes that follow.
    expect(e.code).toBe("FRAME_TRUNCATED");
    expect(e.message.endsWith(BARE_HINT)).toBe(true);
  });

  test("a valid input of the expected form is read as before, and neither form keeps the plain error", () => {
    expect(ser.decode(frame).equals(ser.fromBinary(bare))).toBe(true);
    const neither = Uint8Array.of(0x80);
    expect(failure(() => ser.decode(neither)).message).not.toContain("Note:");
    expect(failure(() => ser.fromBinary(neither)).message).not.toContain("Note:");
  });
});

test("inputs over 64 KiB are not checked again (no second copy of a large input), so they get the plain error", () => {
  const big = ser.toBinary({ sku: "x".repeat(70_000), qty: 1n });
  const e = failure(() => ser.decode(big));
  expect(e.code).toBe("FRAME_TRUNCATED");
  expect(e.message).not.toContain("Note:");
});
