// Shared helpers for the growth sweeps: every family reaches protokeel through the built package.
import protobuf from "protobufjs";
import * as pk from "../dist/index.js";

export { pk };

/** A ProtobufType for `message` of the proto3 source `text` (protobufjs keeps proto names). */
export function typeOf(text, message, settings = {}) {
  const root = protobuf.parse(text, { keepCase: true }).root;
  let b = pk.ProtobufType.newBuilder(root.lookupType(message));
  for (const [k, v] of Object.entries(settings)) b = b[k](v);
  return b.build();
}

/** Appends a varint to an array of bytes. */
export function pushVarint(out, v) {
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/** `count` copies of `unit` back to back. */
export function repeatBytes(unit, count) {
  const out = new Uint8Array(unit.length * count);
  for (let i = 0; i < count; i++) out.set(unit, i * unit.length);
  return out;
}

/**
 * Runs one evaluation of `[saved, current]` untimed and returns the pair. An evaluation at 1e4
 * takes tens of ms, so the runner times it once; cold (before the JIT optimized the walk) that
 * one run measured up to 7x a warm one and failed steps with x99 that were x8 warm.
 */
export function warm(pair) {
  pk.evaluateSchemaChange(pair[0], pair[1]);
  return pair;
}
