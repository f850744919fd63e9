// Helpers for the adversarial suite: schemas from proto3 text (protobufjs keeps proto names), and
// wire bytes built by hand.
import protobuf from "protobufjs";
import { ProtobufType, type ProtobufTypeBuilder } from "../../src/index.js";

/** The message `name` of proto3 source `text` (`syntax` and no package are added). */
export function pbjsType(text: string, name: string): protobuf.Type {
  return protobuf.parse(`syntax = "proto3";\n${text}`, { keepCase: true }).root.lookupType(name);
}

/** A ProtobufType for `name` of proto3 source `text`, with optional builder settings. */
export function typeOf(text: string, name: string, tune?: (b: ProtobufTypeBuilder) => ProtobufTypeBuilder): ProtobufType {
  const b = ProtobufType.newBuilder(pbjsType(text, name));
  return (tune ? tune(b) : b).build();
}

/** Varint bytes of a non-negative integer. */
export function varint(v: number | bigint): number[] {
  let x = BigInt(v);
  const out: number[] = [];
  while (x > 0x7fn) {
    out.push(Number(x & 0x7fn) | 0x80);
    x >>= 7n;
  }
  out.push(Number(x));
  return out;
}

/** A tag's bytes. */
export function tag(num: number, wt: number): number[] {
  return varint(num * 8 + wt);
}

/** A length-delimited field: tag, length, payload. */
export function ld(num: number, payload: ArrayLike<number>): number[] {
  return [...tag(num, 2), ...varint(payload.length), ...Array.from(payload)];
}

/** `count` copies of `unit`. */
export function repeat(unit: ArrayLike<number>, count: number): Uint8Array {
  const out = new Uint8Array(unit.length * count);
  for (let i = 0; i < count; i++) out.set(unit as ArrayLike<number>, i * unit.length);
  return out;
}

/** Encodes a string as UTF-8. */
export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
