// The core's walk takes the common records in a lean loop (walkFast in assembly/scan.ts) and
// hands every other record, from its first byte, to the loop with every rule. These valid inputs
// sit on each point where it hands over — tags of 1, 2 and more bytes, lengths of 1, 2 and 3
// bytes, strings either side of 16, 32 and 256 bytes and of the text area's room, ASCII and
// not, varints of 1 to 10 bytes of every kind, fixed values, bytes, nested messages and their
// ends, lists, non-minimal forms — and each is read through the core (no TypeScript reader, no
// lazy value), alone and as frames, and must give what @bufbuild/protobuf reads.
import { create, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { setLazyDecodeThreshold, setSmallDecodeThreshold } from "../src/codec/reader.js";
import { ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { esContent, frame } from "./support/differential.js";
import { varint } from "./support/wire-scramble.js";

const reg = registryFromDir("fixtures/core");
const Scalars = reg.getMessage("core.test.Scalars")!;
const Repeated = reg.getMessage("core.test.Repeated")!;
const Node = reg.getMessage("core.test.Node")!;

let small = 0;
let lazy = 0;
beforeAll(() => {
  small = setSmallDecodeThreshold(0);
  lazy = setLazyDecodeThreshold(Infinity);
});
afterAll(() => {
  setSmallDecodeThreshold(small);
  setLazyDecodeThreshold(lazy);
});

/** A varint in `extra` more bytes than it needs (legal, non-minimal). */
const longer = (bytes: number[], extra: number): number[] => {
  const b = bytes.slice();
  for (let i = 0; i < extra; i++) {
    b[b.length - 1]! |= 0x80;
    b.push(0);
  }
  return b;
};
const tag = (num: number, wt: number, extra = 0) => longer(varint(BigInt(num * 8 + wt)), extra);
const text = (s: string) => [...new TextEncoder().encode(s)];
const ascii = (n: number, salt = 0) => Array.from({ length: n }, (_, i) => String.fromCharCode(33 + ((i * 7 + salt) % 94))).join("");
const str = (num: number, s: string) => [...tag(num, 2), ...varint(BigInt(text(s).length)), ...text(s)];
const es = (desc: DescMessage, init: Record<string, unknown>) => [...toBinary(desc, create(desc, init as never))];

const cases: [string, DescMessage, number[]][] = [];
for (const n of [0, 1, 15, 16, 17, 31, 32, 33, 127, 128, 200, 255, 256, 257, 300, 16383, 16384]) {
  cases.push([`an ASCII string of ${n} bytes`, Scalars, str(9, ascii(n))]);
  if (n >= 2) {
    cases.push([`a string of ${n} bytes, é first`, Scalars, str(9, "é" + ascii(n - 2))]);
    cases.push([`a string of ${n} bytes, é last`, Scalars, str(9, ascii(n - 2) + "é")]);
  }
  cases.push([`ASCII strings of ${n} bytes in a list, a non-ASCII one between`, Repeated, [...str(6, ascii(n, 1)), ...str(6, "ж" + ascii(n)), ...str(6, ascii(n, 2))]]);
  cases.push([`bytes of ${n}`, Scalars, [...tag(12, 2), ...varint(BigInt(n)), ...text(ascii(n, 3))]]);
}
for (const [name, v] of [["0", 0n], ["1", 1n], ["127", 127n], ["128", 128n], ["2^31 - 1", 2n ** 31n - 1n], ["-1", -1n], ["-2^31", -(2n ** 31n)]] as const) {
  cases.push([`int32 ${name}`, Scalars, [...tag(5, 0), ...varint(v)]]);
  cases.push([`enum ${name}`, Scalars, [...tag(14, 0), ...varint(v)]]);
  cases.push([`sint32 ${name} (a two-byte tag)`, Scalars, es(Scalars, { s32: Number(v) })]);
}
for (const [name, v] of [["2^49", 2n ** 49n], ["2^56 - 1 (8 bytes)", 2n ** 56n - 1n], ["2^56 (9 bytes)", 2n ** 56n], ["2^63 (10 bytes)", 2n ** 63n], ["2^64 - 1", 2n ** 64n - 1n]] as const) {
  cases.push([`uint64 ${name}`, Scalars, [...tag(4, 0), ...varint(v)]]);
  cases.push([`int64 ${name}`, Scalars, [...tag(3, 0), ...varint(v)]]);
  cases.push([`sint64 ${name} and its negation`, Scalars, [...es(Scalars, { s64: BigInt.asIntN(64, v) }), ...es(Scalars, { s64: BigInt.asIntN(64, -v) })]]);
}
cases.push(["bool from varints 1, 2 and 2^35", Repeated, [...tag(5, 0), 1, ...tag(5, 0), 2, ...tag(5, 0), ...varint(2n ** 35n)]]);
cases.push(["a bool of non-minimal zero", Scalars, [...tag(8, 0), 0x80, 0x80, 0x00]]);
cases.push(["fixed and float kinds", Scalars, es(Scalars, { d: -1.5, f: 3.25, fx64: 2n ** 64n - 1n, fx32: 4294967295, sf32: -7, sf64: -(2n ** 63n) })]);
for (const extra of [1, 2, 4, 6]) {
  // @bufbuild/protobuf refuses tags longer than 5 bytes (legal varints, read by the core).
  if (extra < 5) cases.push([`a tag with ${extra} extra bytes`, Scalars, [...tag(5, 0, extra), 7, ...str(9, "after")]]);
  cases.push([`a length with ${extra} extra bytes`, Scalars, [...tag(9, 2), ...longer([5], extra), ...text("abcde"), ...tag(5, 0), 9]]);
}
cases.push(["a two-byte length of a short string (non-minimal)", Scalars, [...tag(9, 2), 0x83, 0x00, ...text("abc")]]);
// Nested messages: lengths of 1, 2 and 3 bytes, chains, and ASCII flags through the levels.
for (const n of [0, 1, 100, 126, 127, 128, 16380, 16384]) {
  const inner = n === 0 ? [] : str(2, ascii(Math.max(0, n - 2 - (n - 2 >= 128 ? 1 : 0) - (n - 3 >= 16384 ? 1 : 0))));
  cases.push([`a nested message of about ${n} bytes`, Node, [...tag(1, 2), ...varint(BigInt(inner.length)), ...inner, ...tag(3, 0), 5]]);
}
let chain: Record<string, unknown> = { name: "leaf", v: 1 };
for (let d = 1; d <= 6; d++) {
  chain = { child: chain, name: d % 2 === 0 ? `level ${d}` : `niveau ${d} é`, v: d };
  cases.push([`a chain of ${d} nested messages, mixed strings`, Node, es(Node, chain)]);
}
cases.push(["messages in a list, with a non-ASCII one", Repeated, es(Repeated, { msgs: [{ s: "a" }, { s: "ü" }, { child: { s: "deep" } }, {}] })]);
cases.push(["packed runs between fast records", Repeated, es(Repeated, { i32: [1, -1, 300], s: ["x", "y"], d: [0.5], s64: [-5n], b: [true, false], fx32: [1, 2] })]);
cases.push(["an unpacked uint64 list", Repeated, es(Repeated, { u64: [0n, 1n, 2n ** 64n - 1n] })]);
cases.push(["an undeclared field between declared ones", Scalars, [...str(9, "a"), ...tag(10, 0), 5, ...tag(99, 2), 1, 0xff, ...str(9, "b")]]);

describe("the core's walk reads what @bufbuild/protobuf reads at every hand-over point", () => {
  test.each(cases)("%s", (_name, desc, record) => {
    const bytes = Uint8Array.from(record);
    const want = esContent(desc, bytes);
    const ser = ProtobufType.of(desc).createSerializer();
    // Written again from its values (a deterministic serializer does not relay the input's bytes).
    const det = ProtobufType.newBuilder(desc).deterministic(true).build().createSerializer();
    const value = ser.fromBinary(bytes);
    expect(esContent(desc, det.toBinary(value))).toBe(want);
    // As three frames of one batch (walkFrames), and after a first record the fast loop takes.
    const framed = Uint8Array.from([...frame(bytes), ...frame(bytes), ...frame(bytes)]);
    const all = ser.decodeAll(framed);
    expect(all.length).toBe(3);
    for (const v of all) expect(esContent(desc, det.toBinary(v))).toBe(want);
    const prefixed = Uint8Array.from([...tag(desc === Node ? 3 : 5, 0), 7, ...record]);
    expect(esContent(desc, det.toBinary(ser.fromBinary(prefixed)))).toBe(esContent(desc, prefixed));
  });
});
