// Bytes fields cut from a decoded value's store are views of the store's buffer, made through a
// memo of the last store's buffer (src/codec/read-plan.ts, cutView). A store may be a view of a
// much larger buffer (protokeel/pool packs the bodies of a chunk of items into one buffer and
// hands out lazy values over views of it): the memo must not keep such a buffer alive once every
// value cut from it is gone. Found by a helper's attack pass: a 200 MiB packed buffer stayed
// alive after its only value was dropped, until pieces were cut from another store.
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { fullGc } from "./support/heap.js";
import { messageFromDir } from "./support/buf.js";

const All = messageFromDir("fixtures/all-types", "alltypes.AllTypes");
const ser = ProtobufType.of(All).createSerializer();
const body = ser.toBinary(DynamicMessage.create(All, { f_bytes: new Uint8Array(64).fill(9), f_string: "x" }));

/** Reads a bytes field of a lazy value over a view of a `bufferBytes` buffer; returns a WeakRef to that buffer. */
function readFromPacked(bufferBytes: number): WeakRef<ArrayBuffer> {
  const packed = new Uint8Array(bufferBytes);
  packed.set(body, 0);
  const [v] = ser._lazyBodies(packed.subarray(0, body.length), [0, body.length]);
  expect((v!.get("f_bytes") as Uint8Array).length).toBe(64);
  return new WeakRef(packed.buffer);
}

describe("the buffer a bytes field was cut from is not kept alive by the reader", () => {
  test.each([
    ["a buffer over 256 KiB (never memoized)", 8 * 1024 * 1024],
    ["a buffer of 64 KiB (memoized until another store is cut from)", 64 * 1024],
  ])("%s", async (_, size) => {
    const ref = readFromPacked(size);
    // A WeakRef's target lives until the job that made it ends.
    await new Promise((r) => setTimeout(r, 0));
    if (size > 256 * 1024) {
      fullGc();
      expect(ref.deref()).toBeUndefined();
    } else {
      // A decode that cuts a piece from its own store replaces the memo.
      expect((ser.fromBinary(body).get("f_bytes") as Uint8Array).length).toBe(64);
      fullGc();
      expect(ref.deref()).toBeUndefined();
    }
  });
});
