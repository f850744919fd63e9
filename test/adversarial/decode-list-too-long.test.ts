// A repeated field with more elements than one JavaScript array takes safely: V8 aborts the
// process ("Fatal JavaScript invalid size error"), it does not throw, when an array grows past
// ~134 million elements, and a packed bool field of 150 MB (which a raised maxMessageBytes lets
// in) killed the process from fromBinary. A list is refused past MAX_LIST_ELEMENTS (2^26) with
// LIST_TOO_LONG, before its array is made; one at the limit is read.
import { describe, expect, test } from "vitest";
import { CodecError, ProtobufType } from "../../src/index.js";
import { MAX_LIST_ELEMENTS } from "../../src/codec/read-plan.js";
import { typeOf } from "./support.js";

const base = typeOf("message M { repeated bool b = 1; repeated int32 n = 2; }", "M");
const type = ProtobufType.newBuilder(base.descriptor).maxMessageBytes(2 ** 31 - 1).build();
const generated = ProtobufType.newGeneratedBuilder(base.descriptor).maxMessageBytes(2 ** 31 - 1).build().createSerializer();

/** Field 1 as a packed run of `n` true values. */
function packedBools(n: number): Uint8Array {
  const len: number[] = [];
  for (let x = n; ; x = Math.floor(x / 128)) {
    if (x < 0x80) {
      len.push(x);
      break;
    }
    len.push((x & 0x7f) | 0x80);
  }
  const out = new Uint8Array(1 + len.length + n);
  out[0] = 0x0a;
  out.set(len, 1);
  out.fill(1, 1 + len.length);
  return out;
}

const MESSAGE = `cannot decode M: a repeated field of it holds more than 67,108,864 elements, more than protokeel reads into one JavaScript array (V8 aborts the process past ~134 million); split the list over several messages or frames`;

describe("a packed run past the list limit", { timeout: 120_000 }, () => {
  const over = packedBools(MAX_LIST_ELEMENTS + 1);
  test.each<[string, (b: Uint8Array) => unknown]>([
    ["fromBinary", (b) => type.createSerializer().fromBinary(b)],
    ["the generated kind's fromBinary", (b) => generated.fromBinary(b)],
    // validate answers as fromBinary does (the core alone accepts it).
    ["validate", (b) => type.createSerializer().validate(b)],
    ["the generated kind's validate", (b) => generated.validate(b)],
  ])("%s: LIST_TOO_LONG", (_name, read) => {
    let e: unknown;
    try {
      read(over);
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(CodecError);
    expect(e).toMatchObject({ code: "LIST_TOO_LONG", path: "M", message: MESSAGE });
  });

  test("decodeAll and validateAll of it as a frame: LIST_TOO_LONG", () => {
    const ser = type.createSerializer();
    const framed = new Uint8Array(5 + over.length);
    let n = over.length;
    let k = 0;
    while (n >= 0x80) {
      framed[k++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    framed[k++] = n;
    framed.set(over, k);
    const frames = framed.subarray(0, k + over.length);
    for (const read of [() => ser.decodeAll(frames), () => ser.validateAll(frames), () => generated.validateAll(frames)]) {
      expect(read).toThrow(expect.objectContaining({ code: "LIST_TOO_LONG", message: MESSAGE }));
    }
  });

  test("two runs of one field that together pass it: LIST_TOO_LONG", () => {
    const half = packedBools(MAX_LIST_ELEMENTS / 2 + 1);
    const both = new Uint8Array(2 * half.length);
    both.set(half);
    both.set(half, half.length);
    expect(() => type.createSerializer().fromBinary(both)).toThrow(expect.objectContaining({ code: "LIST_TOO_LONG" }));
  });

  test("a run at the limit is read, and the serializer goes on", () => {
    const ser = type.createSerializer();
    expect((ser.fromBinary(packedBools(MAX_LIST_ELEMENTS)).get("b") as boolean[]).length).toBe(MAX_LIST_ELEMENTS);
    expect(ser.fromBinary(Uint8Array.of(0x10, 0x05)).get("n")).toEqual([5]);
  });
});
