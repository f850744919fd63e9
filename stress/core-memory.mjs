// Shared by the stress/families/core-*.mjs sweeps (hardening item 12): the core's working memory
// for the worst input shapes, read through the public wasmMemoryBytes() after each size's runs,
// each size starting on a fresh core (releaseMemory). The documented bound (README, "Memory"):
// a bare message costs its own copy plus about 2 MiB; frames cost a 1 MiB segment (or the
// largest frame) plus about 2 MiB, whatever their number.
import { pk, typeOf } from "./lib.mjs";

const MiB = 1024 * 1024;
/** What a call may hold beyond the input it copies (window, text area, stack, layout table). */
export const SLACK = 3 * MiB;

export const shapes = typeOf(
  `syntax = "proto3";
   message Empty {}
   message Shapes {
     Empty e = 1;
     map<int32, int32> m = 2;
     int32 i = 3;
     repeated int64 small = 4 [jstype = JS_NUMBER];
     repeated uint64 big = 5 [jstype = JS_STRING];
     repeated string s = 6;
   }`,
  "Shapes",
  { maxMessageBytes: 1 << 30 },
);

/**
 * A family decoding `bytes(n)` (n elements of one shape) with fromBinary and reading `field`
 * (which materializes a lazily decoded value), checked against `limit(inputBytes)`.
 */
export function memoryFamily({ name, bytes, field, decode = "fromBinary", limit = (len) => len + SLACK, type = shapes }) {
  const ser = type.createSerializer();
  const run = (input) => {
    if (decode === "fromBinary") ser.fromBinary(input).get(field);
    else if (decode === "decodeAll") ser.decodeAll(input);
    else {
      try {
        ser.decode(input);
      } catch (e) {
        if (e.code !== "NOT_ONE_FRAME") throw e;
      }
    }
  };
  return {
    name,
    sizes: [1e3, 1e4, 1e5, 1e6],
    // These families keep JavaScript objects per element (a value per frame or sub-message, an
    // entry per unknown field: 70-150 bytes each), and with V8's default young generation (up to
    // 16 MiB semispaces) 1e5 -> 1e6 crosses it: at 1e5 the ~14 MiB of values are allocated
    // without a scavenge, at 1e6 the scavenger copies each of them before promoting it
    // (--trace-gc, decodeAll at 1e6: ~480 of ~690 ms in scavenges). That step measured x20-x47
    // for a path that is linear (CI failed decodeAll at x30.0 and unknown fields at x30.9 against
    // the default bound). A fixed 256 MiB young generation holds every size of the sweep (1e6
    // values of ~150 bytes), so each size is measured in the same regime and the ratio is the
    // code's: 1e5 -> 1e6 then measured x5.5-x6.3 (decodeAll), x8.3-x8.4 (unknown fields). The
    // bound stays the default x30; the WASM memory check below is the families' main verdict.
    nodeFlags: ["--min-semi-space-size=256", "--max-semi-space-size=256"],
    prepare: (n) => {
      // A fresh core, then one untimed run: the timed runs see the memory this size needs.
      pk.releaseMemory();
      const input = bytes(n);
      run(input);
      return input;
    },
    run,
    after: (input) => ({ wasmBytes: pk.wasmMemoryBytes(), inputBytes: input.length }),
    check: (rows) =>
      rows
        .filter((r) => r.wasmBytes > limit(r.inputBytes))
        .map((r) => `N=${r.n}: ${(r.wasmBytes / MiB).toFixed(1)} MiB of WASM memory for ${(r.inputBytes / MiB).toFixed(2)} MiB of input (bound ${(limit(r.inputBytes) / MiB).toFixed(1)} MiB)`),
  };
}

/** `count` copies of `unit`. */
export function repeat(unit, count) {
  const out = new Uint8Array(unit.length * count);
  for (let i = 0; i < count; i++) out.set(unit, i * unit.length);
  return out;
}

/** A length-delimited field `num` holding `payload`. */
export function field(num, payload) {
  const head = [(num << 3) | 2];
  let v = payload.length;
  while (v > 0x7f) {
    head.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  head.push(v);
  const out = new Uint8Array(head.length + payload.length);
  out.set(head);
  out.set(payload, head.length);
  return out;
}
