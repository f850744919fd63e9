// FRAME_TOO_LARGE names the size a length prefix announces exactly, on every read path: a double
// rounds sizes above 2^53, and prefixes of 2^63 and 2^64 - 1 were printed as 9223372036854776000
// and 18446744073709552000, which no prefix announces.
import { describe, expect, test } from "vitest";
import { CodecError, FrameReader, ProtobufType } from "../src/index.js";
import { pbjsType } from "./adversarial/support.js";
import { thrown } from "./support/thrown.js";

const type = ProtobufType.of(pbjsType("message Item { string sku = 1; }", "Item"));
const ser = type.createSerializer();

/** The 10-byte (or shorter) varint of `n`. */
function prefix(n: bigint): Uint8Array {
  const out: number[] = [];
  while (n >= 0x80n) {
    out.push(Number(n & 0x7fn) | 0x80);
    n >>= 7n;
  }
  out.push(Number(n));
  return Uint8Array.from(out);
}

async function streamFailure(chunks: Uint8Array[]): Promise<CodecError> {
  try {
    for await (const _ of ser.decodeStream(chunks)) void _;
  } catch (e) {
    if (e instanceof CodecError) return e;
    throw e;
  }
  throw new Error("expected a CodecError");
}

const SIZES = [2n ** 26n + 1n, 2n ** 53n - 1n, 2n ** 53n + 1n, 2n ** 63n, 2n ** 64n - 1n];

describe.each(SIZES)("a frame announcing %s bytes", (size) => {
  // One valid frame first, so the offset is not 0.
  const input = Uint8Array.from([0x03, 0x0a, 0x01, 0x61, ...prefix(size)]);
  const expected = `cannot decode Item: the frame at byte 4 announces ${size} bytes, above maxMessageBytes 67108864; raise maxMessageBytes or reject the input`;

  test.each<[string, () => unknown]>([
    ["decodeAll", () => ser.decodeAll(input)],
    ["validateAll", () => ser.validateAll(input)],
    [
      "deserialize (FrameReader)",
      () => {
        const r = new FrameReader(input);
        ser.deserialize(r);
        ser.deserialize(r);
      },
    ],
  ])("%s", (_name, run) => {
    const e = thrown<CodecError>(run);
    expect([e.code, e.offset, e.message]).toEqual(["FRAME_TOO_LARGE", 4, expected]);
  });

  test("decode (one frame)", () => {
    const e = thrown<CodecError>(() => ser.decode(input.subarray(4)));
    expect([e.code, e.offset, e.message]).toEqual(["FRAME_TOO_LARGE", 0, expected.replace("byte 4", "byte 0")]);
  });

  test("decodeStream, whole and a byte at a time", async () => {
    for (const chunks of [[input], [...input].map((b) => Uint8Array.of(b))]) {
      const e = await streamFailure(chunks);
      expect([e.code, e.offset, e.message]).toEqual(["FRAME_TOO_LARGE", 4, expected]);
    }
  });

  test("the generated kind's decodeAll", () => {
    const gser = ProtobufType.ofGenerated(type.descriptor).createSerializer();
    const e = thrown<CodecError>(() => gser.decodeAll(input));
    expect([e.code, e.offset, e.message]).toEqual(["FRAME_TOO_LARGE", 4, expected]);
  });
});
