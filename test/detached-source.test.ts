// Transferring a decoded bytes value's `.buffer` detaches the codec slab it shares (README,
// Reading: a misuse). What else was read from that slab cannot be read again: a lazily decoded
// value's encoding and the unknown fields a value keeps. Reading or relaying them throws
// SOURCE_DETACHED, a CodecError that says why and what to do (it was the engine's untyped
// TypeError); fresh decodes and writes go on. Views made before the detach read as empty, as
// README says of bytes values.
import { describe, expect, test } from "vitest";
import { CodecError, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { thrown } from "./support/thrown.js";

const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
const Leaf = registryFromDir("fixtures/all-types").getMessage("alltypes.Leaf")!;
const ser = ProtobufType.of(All).createSerializer();
const leaves = ProtobufType.of(Leaf).createSerializer();

const GONE =
  "the bytes it was decoded from are gone (they shared a codec slab whose buffer was transferred or detached: a decoded bytes value's or an output's .buffer); decode the input again, and copy a bytes value (slice()) before you transfer its buffer";

/** Detaches the slab of a bytes value decoded now (after the values under test). */
function detachSlab(size: number): void {
  const b = ser.fromBinary(ser.toBinary({ f_bytes: new Uint8Array(size).fill(9) } as never)).get("f_bytes") as Uint8Array;
  structuredClone(b.buffer, { transfer: [b.buffer] });
  expect(b.length).toBe(0);
}

function codecError(run: () => unknown): { code: string; message: string } {
  const e = thrown<CodecError>(run);
  expect(e).toBeInstanceOf(CodecError);
  return { code: e.code, message: e.message };
}

describe("values read from a detached slab", () => {
  // The slab sizes of README's Reading: 4 KiB..32 KiB values share a 256 KiB slab.
  test.each([5000, 20000])("a lazy value of %i bytes: get, toObject and relays throw SOURCE_DETACHED", (n) => {
    const lazy = ser.fromBinary(ser.toBinary({ f_string: "y".repeat(n) } as never));
    detachSlab(6000);
    const want = { code: "SOURCE_DETACHED", message: `cannot read alltypes.AllTypes: ${GONE}` };
    expect(codecError(() => lazy.get("f_string"))).toEqual(want);
    expect(codecError(() => lazy.toObject())).toEqual(want);
    expect(codecError(() => ser.toBinary(lazy))).toEqual(want);
    expect(codecError(() => ser.encode(lazy))).toEqual(want);
    expect(codecError(() => ser.encodeAll([lazy]))).toEqual(want);
    // The codec goes on.
    const fresh = ser.fromBinary(ser.toBinary({ f_string: "z".repeat(n) } as never));
    expect(fresh.get("f_string")).toBe("z".repeat(n));
  });

  test("kept unknown fields: a relay throws SOURCE_DETACHED; so does the first read of unknownFields", () => {
    // A Leaf read of AllTypes bytes keeps everything but fields 1 and 2 as unknown.
    const bytes = ser.toBinary({ f_int32: 7, f_bool: true, f_string: "s".repeat(5000) } as never);
    const leaf = leaves.fromBinary(bytes);
    expect(leaf.get("value")).toBe(0);
    const relay = leaves.fromBinary(bytes);
    // Read: no longer lazy, its unknown fields are kept in the slab.
    expect(relay.get("name")).toBe("");
    detachSlab(6000);
    const det = ProtobufType.newBuilder(Leaf).deterministic(true).build().createSerializer();
    expect(codecError(() => det.toBinary(relay))).toEqual({
      code: "SOURCE_DETACHED",
      message: `cannot read alltypes.Leaf, its unknown field 9: ${GONE}`,
    });
    // The map of views is made on first read: here, after the detach.
    const e = thrown<CodecError>(() => leaf.unknownFields);
    expect([e.code, e.message]).toEqual(["SOURCE_DETACHED", `cannot read unknown field 9: ${GONE}`]);
  });
});
