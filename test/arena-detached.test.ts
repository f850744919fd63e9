// Outputs and decoded bytes are views into shared chunks, and the README asks not to transfer or
// detach their `.buffer`. One that is transferred anyway (postMessage with a transfer list,
// structuredClone with `transfer`) must cost only the values that shared that chunk: every later
// encode and decode in the process threw "Cannot perform Construct on a detached ArrayBuffer".
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { pbjsType } from "./adversarial/support.js";

const type = ProtobufType.of(pbjsType("message M { string s = 1; bytes b = 2; int32 n = 3; }", "M"));
const M = type.descriptor;
const ser = type.createSerializer();

function transfer(bytes: Uint8Array): void {
  structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
  expect(bytes.buffer.byteLength).toBe(0);
}

/** Every write and read path once, checked against values made before the transfer. */
function expectWorking(size: number): void {
  const init = { s: "x".repeat(size), b: new Uint8Array(size).fill(7), n: 5 };
  const built = DynamicMessage.create(M, init);
  const bare = ser.toBinary(built);
  expect(ser.toBinary(init)).toEqual(bare);
  const frame = ser.encode(init);
  expect(frame.subarray(frame.length - bare.length)).toEqual(bare);
  expect(ser.encodeAll([built, init])).toEqual(new Uint8Array([...frame, ...frame]));
  const back = ser.fromBinary(bare);
  expect(back.equals(built)).toBe(true);
  expect(ser.decodeAll(frame)[0]!.equals(built)).toBe(true);
  expect(ser.decode(frame).get("b")).toEqual(init.b);
}

// Sizes whose outputs and bytes fields come from the small (up to 4 KiB) and the middle (4-32 KiB)
// chunks.
describe.each([3, 1_000, 10_000])("pieces of about %i bytes", (size) => {
  test("an encode output's buffer transferred", () => {
    const out = ser.encode({ s: "y".repeat(size), n: 1 });
    expect(out.buffer.byteLength).toBeGreaterThan(out.length);
    transfer(out);
    expectWorking(size);
    expectWorking(size);
  });

  test("a decoded bytes field's buffer transferred", () => {
    const v = ser.fromBinary(ser.toBinary({ b: new Uint8Array(size).fill(1), n: 2 }));
    const b = v.get("b") as Uint8Array;
    expect(b.buffer.byteLength).toBeGreaterThan(b.length);
    transfer(b);
    expectWorking(size);
    expectWorking(size);
  });
});
