// A release (releaseMemory(), or the automatic one after a large input) makes a fresh instance
// while the old one is still held. Where the engine cannot allocate it (a process short of
// address space: V8 reserves ~10 GiB per WebAssembly memory), the current instance stays in use:
// every call goes on, releaseMemory() returns false, and a later release that can, does. (A failed
// automatic release was retried by every later call, each failing with WASM_INSTANTIATION_FAILED.)
// The engine's failure is simulated: WebAssembly.Instance throws its RangeError.
import { afterEach, expect, test } from "vitest";
import { CodecError, initWasm, ProtobufType, releaseMemory, wasmMemoryBytes } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { thrown } from "./support/thrown.js";

const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const RealInstance = WebAssembly.Instance;
const OOM = "WebAssembly.Instance(): Out of memory: Cannot allocate Wasm memory for new instance";

function failInstances(): void {
  (WebAssembly as { Instance: unknown }).Instance = function () {
    throw new RangeError(OOM);
  };
}
afterEach(() => {
  (WebAssembly as { Instance: unknown }).Instance = RealInstance;
});

const bad = Uint8Array.of(0x4a, 0x01, 0xff); // f_string: one byte of invalid UTF-8
const good = ser.toBinary({ f_int32: 7, f_string: "ok" } as never);
const big = ser.toBinary({ f_bytes: new Uint8Array(24 * 2 ** 20) } as never);

function stillCorrect(): void {
  expect(thrown<CodecError>(() => ser.validate(bad)).code).toBe("INVALID_UTF8");
  expect(ser.fromBinary(good).get("f_string")).toBe("ok");
  ser.validate(big);
}

test("releaseMemory() that cannot make a fresh instance returns false and keeps the current one", () => {
  ser.validate(big);
  const held = wasmMemoryBytes();
  expect(held).toBeGreaterThan(24 * 2 ** 20);
  failInstances();
  expect(releaseMemory()).toBe(false);
  expect(wasmMemoryBytes()).toBe(held);
  stillCorrect();
  (WebAssembly as { Instance: unknown }).Instance = RealInstance;
  expect(releaseMemory()).toBe(true);
  expect(wasmMemoryBytes()).toBeLessThan(2 ** 20);
  stillCorrect();
});

test("the automatic release: calls go on with the current instance, and it releases once it can", () => {
  ser.validate(big);
  failInstances();
  // 16 quiet calls in a row trigger a release attempt; 200 calls try it a dozen times.
  for (let i = 0; i < 200; i++) {
    expect(thrown<CodecError>(() => ser.validate(bad)).code).toBe("INVALID_UTF8");
    expect(ser.fromBinary(good).get("f_int32")).toBe(7);
  }
  expect(wasmMemoryBytes()).toBeGreaterThan(24 * 2 ** 20);
  (WebAssembly as { Instance: unknown }).Instance = RealInstance;
  for (let i = 0; i < 40; i++) ser.validate(good);
  expect(wasmMemoryBytes()).toBeLessThan(2 ** 20);
});

test("a core that cannot start for want of memory says so: MEMORY_EXHAUSTED, not a wrong module", async () => {
  failInstances();
  const wasm = new Uint8Array((await import("node:fs")).readFileSync(new URL("../dist/protokeel.wasm", import.meta.url)));
  const e = thrown<CodecError>(() => initWasm(wasm));
  expect([e.code, e.message]).toEqual([
    "MEMORY_EXHAUSTED",
    `cannot start the protokeel core: the engine cannot allocate its WebAssembly memory (${OOM}); the process is short of memory or of address space (V8 reserves about 10 GiB of it per WebAssembly memory: a limit such as ulimit -v below that stops it)`,
  ]);
  (WebAssembly as { Instance: unknown }).Instance = RealInstance;
  stillCorrect();
});
