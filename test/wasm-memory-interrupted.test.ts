// A growth of the core's memory interrupted half-way (a stack overflow lands between memory.grow
// and the end of rebuilding the cached views, which an attacker who controls recursion depth can
// aim for) must leave the core usable. Before, the views stayed over the detached buffer while the
// recorded size said they fit, and every later decode, validate and decodeAll in the process threw
// a plain TypeError ("Cannot perform %TypedArray%.prototype.set on a detached ArrayBuffer") until
// an input needed even more memory. The interruptions are injected: a grow that throws once it
// has grown, and a view constructor that throws once.
import { afterEach, describe, expect, test } from "vitest";
import { CodecError, ProtobufType, releaseMemory } from "../src/index.js";
import { coreIfStarted } from "../src/wasm/instance.js";
import { registryFromDir } from "./support/buf.js";

const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const mid = ser.toBinary({ f_string: "x".repeat(2000), r_int32: [1, 2, 3], children: [{ f_int32: 5 }] } as never);
const big = ser.toBinary({ f_string: "w".repeat(3_000_000) } as never);
const malformed = mid.subarray(0, mid.length - 1);
const frames = ser.encodeAll(Array.from({ length: 50 }, (_, i) => ({ f_int32: i, f_string: "s".repeat(300) })) as never);

const overflow = (): RangeError => new RangeError("Maximum call stack size exceeded");

/** Every core path works and answers as it should. */
function usable(): void {
  for (let i = 0; i < 20; i++) expect(ser.fromBinary(mid).get("f_string")).toBe("x".repeat(2000));
  expect(() => ser.validate(mid)).not.toThrow();
  expect(() => ser.validate(malformed)).toThrow(CodecError);
  expect(() => ser.fromBinary(malformed)).toThrow(CodecError);
  expect(ser.decodeAll(frames).map((m) => m.get("f_int32"))).toEqual(Array.from({ length: 50 }, (_, i) => i));
  expect((ser.fromBinary(big).get("f_string") as string).length).toBe(3_000_000);
  expect(ser.toBinary(ser.fromBinary(mid))).toEqual(mid);
}

const restore: (() => void)[] = [];
afterEach(() => {
  for (const r of restore.splice(0)) r();
  releaseMemory();
});

/** The first read of the memory's buffer once it has grown past `bytes` throws, `times` times. */
function failBufferAfterGrowth(bytes: number, times: number): () => void {
  const memory = coreIfStarted()!.memory;
  const get = Object.getOwnPropertyDescriptor(WebAssembly.Memory.prototype, "buffer")!.get!;
  let left = times;
  Object.defineProperty(memory, "buffer", {
    configurable: true,
    get(this: WebAssembly.Memory) {
      const b = get.call(this) as ArrayBuffer;
      if (b.byteLength > bytes && left > 0) {
        left--;
        throw overflow();
      }
      return b;
    },
  });
  return () => delete (memory as { buffer?: unknown }).buffer;
}

/** Constructing a `name` view over a buffer larger than `bytes` throws once. */
function failViewOnce(name: "Int32Array" | "Float64Array", bytes: number): () => void {
  const g = globalThis as unknown as Record<string, unknown>;
  const real = g[name] as new (...a: unknown[]) => unknown;
  let once = true;
  g[name] = function (this: unknown, ...args: unknown[]) {
    if (once && args[0] instanceof ArrayBuffer && args[0].byteLength > bytes) {
      once = false;
      throw overflow();
    }
    return Reflect.construct(real, args, new.target ?? real);
  };
  Object.setPrototypeOf(g[name], real);
  (g[name] as { prototype: unknown }).prototype = real.prototype;
  return () => (g[name] = real);
}

describe("an interrupted memory growth", () => {
  test.each([
    ["after memory.grow, before any view is rebuilt", () => failBufferAfterGrowth(2_000_000, 1)],
    ["half-way through rebuilding the views (i32)", () => failViewOnce("Int32Array", 2_000_000)],
    ["half-way through rebuilding the views (f64)", () => failViewOnce("Float64Array", 2_000_000)],
  ] as const)("%s: the next calls work", (_name, inject) => {
    releaseMemory();
    ser.validate(mid);
    restore.push(inject());
    // The interrupted call fails with the interruption itself.
    expect(() => ser.validate(big)).toThrow(RangeError);
    for (const r of restore.splice(0)) r();
    usable();
  });

  test("interrupted twice in a row, then a small call first", () => {
    releaseMemory();
    ser.validate(mid);
    restore.push(failBufferAfterGrowth(2_000_000, 2));
    expect(() => ser.validate(big)).toThrow(RangeError);
    expect(() => ser.fromBinary(big)).toThrow(RangeError);
    for (const r of restore.splice(0)) r();
    expect(ser.fromBinary(mid).get("r_int32")).toEqual([1, 2, 3]);
    usable();
  });
});
