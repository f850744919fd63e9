// The one-pass writer (src/codec/writer.ts): lengths reserved before a body and moved up when the
// body outgrows them, values checked while they are written (nothing visible on failure), the
// output buffer shared across calls, and an encode started from inside another one.
import { create, toBinary } from "@bufbuild/protobuf";
import type { DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { FrameWriter } from "../src/codec/frame-writer.js";
import { MessageWriter, type Acceptor } from "../src/codec/writer.js";
import { CodecError, DynamicMessage, ProtobufType } from "../src/index.js";
import { resolveSettings, type Settings } from "../src/settings.js";
import { messageArb } from "./support/arbitrary-message.js";
import { registryFromDir } from "./support/buf.js";

const reg = registryFromDir("fixtures/writer/v2");
const Order = reg.getMessage("acme.Order")!;
const Item = reg.getMessage("acme.Item")!;
const allTypes = registryFromDir("fixtures/all-types");
const All = allTypes.getMessage("alltypes.AllTypes")!;

function writer(root: DescMessage, settings: Partial<Settings> = {}, acceptor?: Acceptor) {
  return new MessageWriter(root, { settings: resolveSettings(settings), acceptor });
}

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}

function codecError(fn: () => unknown): CodecError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    return e as CodecError;
  }
  throw new Error("expected a CodecError");
}

/** The canonical encoding of an Order init by @bufbuild/protobuf. */
function esOrder(init: Record<string, unknown>): string {
  return hex(toBinary(Order, create(Order, init as never)));
}

const withUnknown = (n: number, data: number[]) =>
  DynamicMessage.newBuilder(Item).setUnknownFields(new Map([[n, [new Uint8Array(data)]]])).build();

describe("length prefixes grow by moving the body", () => {
  // Item body = 0x0a, len(sku), sku: 2 + n bytes for n < 128, 3 + n after.
  const sizes = [120, 123, 124, 125, 126, 127, 128, 129, 130, 16377, 16378, 16379, 16380, 16381, 16382, 16383, 16384, 16385, 16390];

  test.each(sizes)("a nested body around the 1/2 and 2/3 byte length boundaries (sku of %i bytes)", (n) => {
    const sku = "k".repeat(n);
    const init = { id: 7n, item: { sku }, items: [{ sku }, { sku: "x" }, { sku }], note: "after" };
    const value = DynamicMessage.create(Order, init);
    const expected = esOrder({ id: 7n, item: { sku }, items: [{ sku }, { sku: "x" }, { sku }], note: "after" });
    expect(hex(writer(Order).toBinary(value))).toBe(expected);
    expect(hex(writer(Order, { deterministic: true }).toBinary(value))).toBe(expected);
    // Framed, the root's own length crosses the same boundaries.
    const frame = writer(Order).encodeFrame(DynamicMessage.create(Order, { note: sku }));
    expect(hex(frame)).toBe(hex(writer(Order, { deterministic: true }).encodeFrame(DynamicMessage.create(Order, { note: sku }))));
  });

  test("map entries and packed varint runs whose lengths outgrow the reserved byte", () => {
    for (const n of [1, 12, 13, 14, 127, 128, 200, 2000]) {
      const big = Array.from({ length: n }, (_, i) => -1n - BigInt(i)); // 10 bytes each
      const small = Array.from({ length: n }, (_, i) => i % 100); // 1 byte each
      const mixed = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 300 : 5));
      const key = "m".repeat(n);
      const init = {
        r_int64: big,
        r_int32: small,
        r_uint32: mixed,
        r_sint64: big,
        r_enum: small.map((v) => v % 3),
        m_string: { [key]: "v".repeat(n) },
        mv_bytes: { [key]: new Uint8Array(n) },
        mv_message: { [key]: { name: key, value: -1 } },
      };
      const value = DynamicMessage.create(All, init);
      const expected = hex(
        toBinary(
          All,
          create(All, {
            rInt64: big,
            rInt32: small,
            rUint32: mixed,
            rSint64: big,
            rEnum: small.map((v) => v % 3),
            mString: { [key]: "v".repeat(n) },
            mvBytes: { [key]: new Uint8Array(n) },
            mvMessage: { [key]: { name: key, value: -1 } },
          } as never),
        ),
      );
      expect(hex(writer(All).toBinary(value))).toBe(expected);
    }
  });

  test("long strings with multi-byte characters and lone surrogates", () => {
    for (const s of ["é".repeat(64), "é".repeat(8200), "😀".repeat(40), "😀".repeat(4100), "\u{10ffff}\uffffx".repeat(50), "a".repeat(127) + "é"]) {
      const value = DynamicMessage.create(Order, { item: { sku: s }, note: s });
      expect(hex(writer(Order).toBinary(value))).toBe(hex(writer(Order, { deterministic: true }).toBinary(value)));
    }
  });
});

describe("deep nesting", () => {
  function chain(depth: number, note: string): DynamicMessage {
    let m = DynamicMessage.create(Order, { id: BigInt(depth), note });
    for (let i = 1; i < depth; i++) m = DynamicMessage.create(Order, { parent: m, items: [{ sku: String(i) }] });
    return m;
  }

  test.each([
    [100, 0],
    [100, 200],
    [64, 20000],
  ])("%i levels over a leaf note of %i bytes: every level's length grows in turn", (depth, noteBytes) => {
    const m = chain(depth, "n".repeat(noteBytes));
    const plain = writer(Order, { maxDepth: depth }).toBinary(m);
    const det = writer(Order, { maxDepth: depth, deterministic: true }).toBinary(m);
    expect(hex(plain)).toBe(hex(det));
    // A second write takes the memoized sizes (the value was accepted): the same bytes.
    expect(hex(writer(Order, { maxDepth: depth }).toBinary(m))).toBe(hex(plain));
    const decoded = ProtobufType.newBuilder(Order).maxDepth(depth).build().createSerializer().fromBinary(plain);
    expect(decoded.equals(m)).toBe(true);
  });
});

describe("a failure leaves nothing behind", () => {
  function large(bad: DynamicMessage, at: number): DynamicMessage {
    const items = Array.from({ length: 2000 }, (_, i) => (i === at ? bad : DynamicMessage.create(Item, { sku: `sku-${i}-${"z".repeat(i % 50)}`, qty: i })));
    return DynamicMessage.create(Order, { id: 1n, items, note: "n".repeat(5000) });
  }

  test("an error in the middle of a large value leaves a FrameWriter unchanged, and the next write is right", () => {
    const w = writer(Order);
    const good = DynamicMessage.create(Order, { id: 2n, item: { sku: "a" } });
    const out = new FrameWriter(16);
    w.writeFrame(good, out);
    const before = hex(out.toUint8Array());
    const e = codecError(() => w.writeFrame(large(withUnknown(2, [0x10, 0x05]), 1500), out));
    expect(e.code).toBe("UNKNOWN_FIELD_COLLISION");
    expect(e.path).toBe("acme.Order.items(3)[1500]");
    expect(hex(out.toUint8Array())).toBe(before);
    w.writeFrame(good, out);
    expect(hex(out.toUint8Array())).toBe(before + before);
    const ok = large(DynamicMessage.create(Item, { sku: "fine" }), 1500);
    w.writeFrame(ok, out);
    expect(hex(out.toUint8Array())).toBe(before + before + hex(writer(Order, { deterministic: true }).encodeFrame(ok)));
  });

  test("a value over maxMessageBytes found mid-write reports its exact size, as the two-pass writer did", () => {
    const value = large(DynamicMessage.create(Item, { sku: "fine" }), 0);
    const size = writer(Order).toBinary(value).length;
    const out = new FrameWriter();
    for (const max of [100, 4096, size - 1]) {
      const w = writer(Order, { maxMessageBytes: max });
      const e = codecError(() => w.writeFrame(value, out));
      expect(e.code).toBe("MESSAGE_TOO_LARGE");
      expect(e.message).toBe(
        `cannot write acme.Order: encoded size ${size} bytes exceeds maxMessageBytes ${max}; raise maxMessageBytes or write a smaller value`,
      );
      expect(codecError(() => w.toBinary(value)).message).toBe(e.message);
      expect(codecError(() => w.encodeAll([value])).message).toBe(e.message);
      expect(out.length).toBe(0);
    }
    expect(writer(Order, { maxMessageBytes: size }).toBinary(value)).toHaveLength(size);
  });

  test("a check error after the point where the value overflows wins over the size, as before", () => {
    const value = large(withUnknown(2, [0x10, 0x05]), 1999);
    const e = codecError(() => writer(Order, { maxMessageBytes: 1000 }).toBinary(value));
    expect(e.code).toBe("UNKNOWN_FIELD_COLLISION");
    expect(e.path).toBe("acme.Order.items(3)[1999]");
  });

  test("encodeAll with one bad value returns nothing, and earlier outputs and the next call are intact", () => {
    const w = writer(Order);
    const a = DynamicMessage.create(Order, { id: 1n, note: "a" });
    const first = w.encodeAll([a, a]);
    const copy = hex(first);
    const values = Array.from({ length: 500 }, (_, i) => DynamicMessage.create(Order, { id: BigInt(i), items: [{ sku: "s".repeat(i % 200) }] }));
    values[321] = DynamicMessage.create(Order, { items: [withUnknown(2, [0x10, 0x05])] });
    let result: Uint8Array | undefined;
    const e = codecError(() => (result = w.encodeAll(values)));
    expect(result).toBeUndefined();
    expect(e.path).toBe("acme.Order.items(3)[0]");
    values[321] = DynamicMessage.create(Order, { id: 321n });
    const all = w.encodeAll(values);
    expect(hex(all)).toBe(values.map((v) => hex(w.encodeFrame(v))).join(""));
    expect(hex(first)).toBe(copy);
    expect(codecError(() => w.encodeAll([a, null])).code).toBe("NOT_A_DYNAMIC_MESSAGE");
  });

  test("outputs of every size stay separate from later outputs", () => {
    const w = writer(Order);
    const kept: [Uint8Array, string][] = [];
    for (let i = 0; i < 3000; i++) {
      const out = w.toBinary(DynamicMessage.create(Order, { id: BigInt(i), note: "q".repeat((i * 37) % 9000) }));
      if (i % 100 === 0) kept.push([out, hex(out)]);
    }
    for (const [out, h] of kept) expect(hex(out)).toBe(h);
  });
});

describe("an encode started while another one writes", () => {
  test("an acceptor that encodes gets its own buffer; both outputs are right", () => {
    const other = registryFromDir("fixtures/writer/v2");
    const inner = writer(Order);
    const innerValue = DynamicMessage.create(Order, { id: 9n, note: "inner".repeat(40) });
    const innerBytes: string[] = [];
    const w = writer(Order, {}, () => {
      innerBytes.push(hex(inner.toBinary(innerValue)), hex(inner.encodeAll([innerValue, innerValue])));
      const out = new FrameWriter();
      inner.writeFrame(innerValue, out);
      innerBytes.push(hex(out.toUint8Array()));
      return { ok: true };
    });
    const items = Array.from({ length: 300 }, (_, i) => DynamicMessage.create(Item, { sku: `s${i}`.repeat(10) }));
    // The evaluated value comes after a large written part, on the slab and past it.
    const value = DynamicMessage.create(Order, { items, note: "x".repeat(100), parent: DynamicMessage.create(other.getMessage("acme.Order")!, { id: 5n }) });
    const bytes = w.toBinary(value);
    const expectedInner = hex(writer(Order, { deterministic: true }).toBinary(innerValue));
    expect(innerBytes[0]).toBe(expectedInner);
    expect(innerBytes[1]).toBe(hex(inner.encodeFrame(innerValue)).repeat(2));
    expect(innerBytes[2]).toBe(hex(inner.encodeFrame(innerValue)));
    const plain = DynamicMessage.create(Order, { items, note: "x".repeat(100), parent: DynamicMessage.create(Order, { id: 5n }) });
    expect(hex(bytes)).toBe(hex(writer(Order, { deterministic: true }).toBinary(plain)));
  });

  test("an error inside the inner encode names the outer path", () => {
    const other = registryFromDir("fixtures/writer/v2");
    const inner = writer(Order, { maxMessageBytes: 1 });
    const w = writer(Order, {}, () => {
      inner.toBinary(DynamicMessage.create(Order, { note: "too long" }));
      return { ok: true };
    });
    const e = codecError(() =>
      w.toBinary(DynamicMessage.create(Order, { items: [{ sku: "a" }], parent: DynamicMessage.create(other.getMessage("acme.Order")!, { id: 5n }) })),
    );
    expect(e.code).toBe("INVALID_VALUE_DESCRIPTOR");
    expect(e.path).toBe("acme.Order.parent(6)");
  });
});

describe("property: the one-pass writer's bytes equal the two-pass deterministic writer's", () => {
  // With at most one map entry nothing is ordered differently, so the bytes must be identical. A
  // filler first moves the slab position, and a long note makes the value cross the slab's end
  // (the move to the scratch) at a different point each run.
  const plainAll = writer(All);
  const detAll = writer(All, { deterministic: true });
  const JSON_TYPES = ["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"];

  test("bare, framed, batched and through a FrameWriter", () => {
    fc.assert(
      fc.property(
        messageArb(All, 2, { maxMapEntries: 1, skipTypes: JSON_TYPES }),
        fc.integer({ min: 0, max: 4000 }),
        fc.integer({ min: 0, max: 70000 }),
        (s, filler, note) => {
          plainAll.toBinary(DynamicMessage.create(All, { f_string: "f".repeat(filler) }));
          const msg = DynamicMessage.create(All, { ...s.ours, f_string: "n".repeat(note) });
          const expected = hex(detAll.toBinary(msg));
          expect(hex(plainAll.toBinary(msg))).toBe(expected);
          const frame = hex(detAll.encodeFrame(msg));
          expect(hex(plainAll.encodeFrame(msg))).toBe(frame);
          expect(hex(plainAll.encodeAll([msg, msg]))).toBe(frame + frame);
          const out = new FrameWriter(8);
          plainAll.writeFrame(msg, out);
          expect(hex(out.toUint8Array())).toBe(frame);
          // Written again, the accepted value is copied from its size memos: the same bytes.
          expect(hex(plainAll.toBinary(msg))).toBe(expected);
        },
      ),
      { numRuns: 150 },
    );
  });
});
