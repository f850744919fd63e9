// A value written once is accepted (its _okFor memo), and written again its subtree is trusted:
// the writer writes it by recursion (src/codec/writer.ts, trustedFields) instead of a frame per
// message, copying the source bytes of decoded values inside it. What that must keep: the same
// bytes as the first write (decoded children with their unknown fields, deterministic order),
// the same refusals (a size limit), and a fallback to frames, from where the subtree started,
// when a value inside is not one this copy of protokeel can write by recursion (a value of the
// CJS copy), without trying recursion again below it.
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../src/index.js";
import { messageFromDir, registryFromDir } from "./support/buf.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const Leaf = registry.getMessage("alltypes.Leaf")!;
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const serOf = (det = false, maxMessageBytes?: number) => {
  const b = ProtobufType.newBuilder(All).deterministic(det);
  return (maxMessageBytes === undefined ? b : b.maxMessageBytes(maxMessageBytes)).build().createSerializer();
};
const ser = serOf();
const det = serOf(true);
const leafSer = ProtobufType.of(Leaf).createSerializer();

/** A Leaf decoded from its fields in reverse order plus unknown field 15 (varint 1): its source bytes are not what a write of its fields gives. */
const decodedLeaf = (n: number) => leafSer.fromBinary(new Uint8Array([0x10, n, 0x0a, 0x01, 0x61, 0x78, 0x01]));

const values: [string, () => DynamicMessage][] = [
  ["built", () => DynamicMessage.create(All, { f_int32: 5, f_message: { name: "a", value: 2 }, r_message: [{ name: "b" }, {}], mv_message: { z: { value: 1 }, a: { value: 2 } } })],
  ["built around decoded children", () => DynamicMessage.create(All, { f_message: decodedLeaf(1), r_message: [decodedLeaf(2), { name: "c" }], mv_message: { z: decodedLeaf(3), a: decodedLeaf(4) } })],
  ["decoded, then rebuilt", () => ser.fromBinary(ser.toBinary(DynamicMessage.create(All, { f_message: decodedLeaf(1), r_string: ["x"] }))).toBuilder().set("f_int32", 9).build()],
  ["with a long list of children", () => DynamicMessage.create(All, { r_message: Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? decodedLeaf(i & 0x7f) : { name: "n".repeat(i % 200), value: i })) })],
];

describe.each(values)("a value %s, written again", (_, make) => {
  test("gives the first write's bytes, plain and deterministic", () => {
    const first = hex(ser.toBinary(make()));
    const firstDet = hex(det.toBinary(make()));
    const v = make();
    for (let i = 0; i < 3; i++) {
      expect(hex(ser.toBinary(v))).toBe(first);
      expect(hex(det.toBinary(v))).toBe(firstDet);
      // A decoded value inside is trusted on its own, even at a first write: read back, the
      // bytes must be the value (its unknown fields included).
      expect(ser.fromBinary(det.toBinary(v)).equals(v)).toBe(true);
      expect(ser.fromBinary(ser.toBinary(v)).equals(v)).toBe(true);
      expect(hex(ser.encodeAll([v, v]))).toBe(hex(ser.encodeAll([make(), make()])));
    }
  });

  test("over a smaller limit, is refused as a fresh value is", () => {
    const size = ser.toBinary(make()).length;
    const v = make();
    ser.toBinary(v);
    const small = serOf(false, size - 1);
    let fresh: unknown;
    try {
      small.toBinary(make());
    } catch (e) {
      fresh = e;
    }
    expect(fresh).toBeInstanceOf(CodecError);
    expect((fresh as CodecError).code).toBe("MESSAGE_TOO_LARGE");
    expect(() => small.toBinary(v)).toThrow(fresh as CodecError);
    expect(hex(serOf(false, size).toBinary(v))).toBe(hex(ser.toBinary(make())));
  });
});

describe("a value of the other copy inside a trusted subtree", () => {
  const dist = resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist");
  const cjs = createRequire(import.meta.url)(join(dist, "index.cjs")) as typeof import("../src/index.js");
  const Link = messageFromDir("fixtures/writer-levels", "levels.Link");
  const linkSer = ProtobufType.of(Link).createSerializer();
  const linkDet = ProtobufType.newBuilder(Link).deterministic(true).build().createSerializer();

  test("is written by frames from where the subtree started, and recursion is not tried again below it", () => {
    // root -> next a -> next b -> list [the other copy's Link, c]
    const foreign = cjs.DynamicMessage.create(Link, { id: 9, label: "foreign" }) as unknown as DynamicMessage;
    const c = DynamicMessage.create(Link, { id: 4 });
    const b = DynamicMessage.create(Link, { id: 3, list: [foreign, c] });
    const a = DynamicMessage.create(Link, { id: 2, next: b });
    const root = DynamicMessage.create(Link, { id: 1, next: a, label: "r" });
    const want = hex(linkSer.toBinary(DynamicMessage.create(Link, { id: 1, next: { id: 2, next: { id: 3, list: [{ id: 9, label: "foreign" }, { id: 4 }] } }, label: "r" })));
    expect(hex(linkSer.toBinary(root))).toBe(want);
    // Written again, the root is trusted. Count how often the writer reads b's fields.
    let reads = 0;
    const getter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(b) as object, "_values")!.get!;
    Object.defineProperty(b, "_values", {
      get() {
        reads++;
        return getter.call(this);
      },
    });
    const readsOf = (write: () => Uint8Array, expected: string): number => {
      reads = 0;
      expect(hex(write())).toBe(expected);
      return reads;
    };
    // Once by the recursion from the root that gave up at the other copy's value, once by frames;
    // a retry at a or at b would read it again.
    expect(readsOf(() => linkSer.toBinary(root), want)).toBe(2);
    expect(readsOf(() => linkDet.toBinary(root), want)).toBe(2);
    expect(readsOf(() => linkSer.encodeAll([root, root]), hex(Buffer.concat([linkSer.encode(root), linkSer.encode(root)])))).toBe(4);
    // Below it, c alone is written by recursion: its own subtree holds no other copy's value.
    expect(hex(linkSer.toBinary(a))).toBe(hex(linkSer.toBinary(DynamicMessage.create(Link, { id: 2, next: { id: 3, list: [{ id: 9, label: "foreign" }, { id: 4 }] } }))));
  });
});
