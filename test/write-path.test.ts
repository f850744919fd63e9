// The write path of docs/design.md §8.1: rejections before any byte, pairing and acceptance, the accepted
// pair cache, unknown-field checks, limits, and frames.
import { fromBinary } from "@bufbuild/protobuf";
import type { DescMessage } from "@bufbuild/protobuf";
import protobuf from "protobufjs";
import { describe, expect, test } from "vitest";
import { FrameWriter } from "../src/codec/frame-writer.js";
import { MessageWriter, type Acceptor } from "../src/codec/writer.js";
import { CodecError, DynamicMessage } from "../src/index.js";
import { resolveSettings, type Settings } from "../src/settings.js";
import { registryFromDir } from "./support/buf.js";

function schema(dir: "v1" | "v2") {
  const reg = registryFromDir(`fixtures/writer/${dir}`);
  return { Order: reg.getMessage("acme.Order")!, Item: reg.getMessage("acme.Item")! };
}

const v2 = schema("v2");

const acceptAll: Acceptor = () => ({ ok: true });

function writer(root: DescMessage, settings: Partial<Settings> = {}, acceptor?: Acceptor, payloadRules?: (d: DescMessage) => void) {
  return new MessageWriter(root, { settings: resolveSettings(settings), acceptor, payloadRules });
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

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}

describe("values that are neither DynamicMessage nor plain init objects are rejected before any byte", () => {
  test.each([
    [null, "null"],
    [undefined, "undefined"],
    [new Map([["id", 1]]), "an object Map"],
    [5, "number 5"],
    [fromBinary(v2.Order, new Uint8Array()), "a @bufbuild/protobuf message acme.Order"],
  ])("%o", (value, got) => {
    const out = new FrameWriter();
    const e = codecError(() => writer(v2.Order).writeFrame(value, out));
    expect(e.code).toBe("NOT_A_DYNAMIC_MESSAGE");
    expect(e.message).toBe(
      `cannot write acme.Order: expected a DynamicMessage or a plain init object, got ${got}; build values with DynamicMessage.create(descriptor, init), or pass the init object itself`,
    );
    expect(out.length).toBe(0);
  });
});

describe("acceptance", () => {
  test("(a) the paired declaration's instance needs no evaluation", () => {
    const w = writer(v2.Order);
    w.toBinary(DynamicMessage.create(v2.Order, { id: 1n, item: { sku: "a" }, items: [{ sku: "b" }], by_sku: { k: {} } }));
    expect(w.evaluations).toBe(0);
  });

  test("an equal-content distinct instance is evaluated once, then cached", () => {
    const other = schema("v2");
    const w = writer(v2.Order, {}, acceptAll);
    const value = DynamicMessage.create(other.Order, { id: 1n, item: { sku: "a" } });
    w.toBinary(value);
    w.toBinary(DynamicMessage.create(other.Order, { id: 2n }));
    // (b): the nested Item is the instance the accepted Order declares for the field.
    expect(w.evaluations).toBe(1);
    expect(w.acceptedPairs()).toEqual([[other.Order, v2.Order]]);
  });

  test("an earlier schema accepted by the evaluator is written and reads back", () => {
    const v1 = schema("v1");
    const seen: string[] = [];
    const w = writer(v2.Order, {}, (saved, current) => {
      seen.push(`${saved.typeName}->${current.typeName}`);
      return { ok: true };
    });
    const bytes = w.toBinary(DynamicMessage.create(v1.Order, { id: 7n, items: [{ sku: "x" }] }));
    expect(seen).toEqual(["acme.Order->acme.Order"]);
    const back = fromBinary(v2.Order, bytes) as unknown as { id: bigint; items: { sku: string }[] };
    expect(back.id).toBe(7n);
    expect((back.items as { sku: string }[])[0]!.sku).toBe("x");
  });

  test("a nested value from another instance is evaluated against its paired declaration", () => {
    const other = schema("v2");
    const pairs: [DescMessage, DescMessage][] = [];
    const w = writer(v2.Order, {}, (s, c) => {
      pairs.push([s, c]);
      return { ok: true };
    });
    w.toBinary(DynamicMessage.create(v2.Order, { item: DynamicMessage.create(other.Item, { sku: "a" }) }));
    expect(pairs).toEqual([[other.Item, v2.Item]]);
  });

  test.each([
    ["root", (o: ReturnType<typeof schema>) => DynamicMessage.create(o.Order, {}), "acme.Order", "acme.Order"],
    [
      "nested",
      (o: ReturnType<typeof schema>) => DynamicMessage.create(v2.Order, { items: [{}, DynamicMessage.create(o.Item, {})] }),
      "acme.Order.items(3)[1]",
      "acme.Item",
    ],
    [
      "map value",
      (o: ReturnType<typeof schema>) => DynamicMessage.create(v2.Order, { by_sku: { "k\"1": DynamicMessage.create(o.Item, {}) } }),
      'acme.Order.by_sku(4)["k\\"1"]',
      "acme.Item",
    ],
  ])("rejection of an incompatible %s descriptor names the path and the first finding", (_n, make, path, type) => {
    const other = schema("v1");
    const w = writer(v2.Order, {}, (_s, c) => ({
      ok: false,
      finding: { rule: "FIELD_REMOVED_NOT_RESERVED", path: `${c.typeName}.qty(2)`, message: `field ${c.typeName}.qty(2) was removed` },
    }));
    const out = new FrameWriter();
    const e = codecError(() => w.writeFrame(make(other), out));
    expect(e.code).toBe("INCOMPATIBLE_VALUE_DESCRIPTOR");
    expect(e.path).toBe(path);
    expect(e.message).toBe(
      `cannot write acme.Order: value at ${path} was built with a schema of ${type} that this serializer's ${type} cannot write its content with (FIELD_REMOVED_NOT_RESERVED at ${type}.qty(2); in the evaluator's words, with the value's schema as the saved one: field ${type}.qty(2) was removed); build the value from the serializer's descriptor, or from a schema version the serializer's schema can read`,
    );
    expect(out.length).toBe(0);
  });

  test("without an evaluator another instance is rejected", () => {
    const other = schema("v2");
    const e = codecError(() => writer(v2.Order).toBinary(DynamicMessage.create(other.Order, {})));
    expect(e.message).toBe(
      "cannot write acme.Order: value at acme.Order was built with a schema of acme.Order that this serializer's acme.Order cannot write its content with (NOT_EVALUATED at acme.Order; in the evaluator's words, with the value's schema as the saved one: acme.Order is another descriptor instance and no schema evaluator is configured); build the value from the serializer's descriptor, or from a schema version the serializer's schema can read",
    );
  });

  test("the cache keeps 16 pairs and evicts the least recently used", () => {
    const w = writer(v2.Order, {}, acceptAll);
    const instances = Array.from({ length: 17 }, () => schema("v2").Order);
    for (const d of instances.slice(0, 16)) w.toBinary(DynamicMessage.create(d, {}));
    expect(w.evaluations).toBe(16);
    w.toBinary(DynamicMessage.create(instances[0]!, {})); // hit: now most recent
    expect(w.evaluations).toBe(16);
    w.toBinary(DynamicMessage.create(instances[16]!, {})); // miss: evicts instances[1]
    expect(w.evaluations).toBe(17);
    w.toBinary(DynamicMessage.create(instances[0]!, {}));
    expect(w.evaluations).toBe(17);
    w.toBinary(DynamicMessage.create(instances[1]!, {}));
    expect(w.evaluations).toBe(18);
    expect(w.acceptedPairs()).toHaveLength(16);
  });

  test("a rejected pair is evaluated again each time", () => {
    const other = schema("v2");
    const w = writer(v2.Order, {}, () => ({ ok: false, finding: { rule: "R", path: "p", message: "m" } }));
    const value = DynamicMessage.create(other.Order, {});
    codecError(() => w.toBinary(value));
    codecError(() => w.toBinary(value));
    expect(w.evaluations).toBe(2);
  });

  test("payload rules apply to evaluated descriptors and to foreign unpaired values", () => {
    const v1 = schema("v1");
    const other = schema("v2");
    const checked: string[] = [];
    const w = writer(v1.Order, {}, acceptAll, (d) => checked.push(d.typeName));
    // v1 declares no field 7: `extra` is unpaired; built from another instance than v2's declared Item.
    w.toBinary(DynamicMessage.create(v2.Order, { extra: DynamicMessage.create(other.Item, { sku: "a" }) }));
    expect(checked).toEqual(["acme.Order", "acme.Item"]);
    // Rule results are kept per writer.
    w.toBinary(DynamicMessage.create(v2.Order, { extra: DynamicMessage.create(other.Item, { sku: "b" }) }));
    expect(checked).toHaveLength(2);
  });

  test("a payload-rule failure is a CodecError naming the value", async () => {
    const { InvalidDescriptorError } = await import("../src/errors.js");
    const v1 = schema("v1");
    const w = writer(v1.Order, {}, acceptAll, (d) => {
      if (d.typeName === "acme.Item") throw new InvalidDescriptorError("NOT_PROTO3", "invalid descriptor acme.Item: not proto3");
    });
    const e = codecError(() => w.toBinary(DynamicMessage.create(v2.Order, { extra: DynamicMessage.create(schema("v2").Item, {}) })));
    expect(e.code).toBe("INVALID_VALUE_DESCRIPTOR");
    expect(e.message).toBe(
      "cannot write acme.Order: value at acme.Order.extra(7) has descriptor acme.Item that breaks a payload rule: invalid descriptor acme.Item: not proto3",
    );
  });
});

describe("unknown fields", () => {
  function withUnknown(desc: DescMessage, n: number, data: number[]) {
    return DynamicMessage.newBuilder(desc).setUnknownFields(new Map([[n, [new Uint8Array(data)]]])).build();
  }

  test("are written last, in stored order, and read back as unknown", () => {
    const m = DynamicMessage.newBuilder(v2.Item)
      .set("sku", "a")
      .setUnknownFields(
        new Map([
          [9, [new Uint8Array([0x48, 0x01]), new Uint8Array([0x48, 0x02])]],
          [8, [new Uint8Array([0x45, 1, 2, 3, 4])]],
        ]),
      )
      .build();
    expect(hex(writer(v2.Item, { deterministic: true }).toBinary(m))).toBe("0a0161480148024501020304");
  });

  test("a number the paired declaration declares is a collision, also when only the serializer's schema declares it", () => {
    const v1 = schema("v1");
    const item = withUnknown(v1.Item, 2, [0x10, 0x05]);
    const w = writer(v2.Order, {}, acceptAll);
    const out = new FrameWriter();
    const e = codecError(() => w.writeFrame(DynamicMessage.create(v2.Order, { items: [item] }), out));
    expect(e.code).toBe("UNKNOWN_FIELD_COLLISION");
    expect(e.path).toBe("acme.Order.items(3)[0]");
    expect(e.message).toBe(
      "cannot write acme.Order: unknown field 2 at acme.Order.items(3)[0] collides with field acme.Item.qty(2) of the paired declaration; remove the unknown field before writing",
    );
    expect(out.length).toBe(0);
    // The saved schema's own serializer has no field 2 in Item: no collision there.
    expect(hex(writer(v1.Item).toBinary(item))).toBe("1005");
  });

  test("a value without a pair has no collisions", () => {
    const v1 = schema("v1");
    // v1 declares no field 7; the Item under it is kept by the reader as one unknown field.
    const extra = withUnknown(v2.Item, 1, [0x08, 0x01]);
    const bytes = writer(v1.Order, {}, acceptAll).toBinary(DynamicMessage.create(v2.Order, { extra }));
    expect(hex(bytes)).toBe("3a020801");
  });

  test.each([
    [0, [0x00], "UNKNOWN_FIELD_NUMBER_INVALID", "unknown field number 0 at acme.Item is outside 1..536870911; remove it"],
    [536870912, [0x80, 0x80, 0x80, 0x80, 0x20, 0x00], "UNKNOWN_FIELD_NUMBER_INVALID", "unknown field number 536870912 at acme.Item is outside 1..536870911; remove it"],
    [9, [0x48], "UNKNOWN_FIELD_MALFORMED", "unknown field 9 at acme.Item is not one well-formed encoded field: the varint is truncated; each occurrence must be a tag followed by its payload"],
    [9, [0x50, 0x01], "UNKNOWN_FIELD_MALFORMED", "unknown field 9 at acme.Item is not one well-formed encoded field: its tag has field number 10; each occurrence must be a tag followed by its payload"],
    [9, [0x4b], "UNKNOWN_FIELD_MALFORMED", "unknown field 9 at acme.Item is not one well-formed encoded field: it has wire type 3 (groups and reserved wire types are not written); each occurrence must be a tag followed by its payload"],
    [9, [0x4a, 0x03, 0x01], "UNKNOWN_FIELD_MALFORMED", "unknown field 9 at acme.Item is not one well-formed encoded field: the payload is truncated; each occurrence must be a tag followed by its payload"],
    [9, [0x48, 0x01, 0x48, 0x01], "UNKNOWN_FIELD_MALFORMED", "unknown field 9 at acme.Item is not one well-formed encoded field: it has 2 trailing bytes after one field; each occurrence must be a tag followed by its payload"],
    [9, [0x49, 1, 2, 3], "UNKNOWN_FIELD_MALFORMED", "unknown field 9 at acme.Item is not one well-formed encoded field: the payload is truncated; each occurrence must be a tag followed by its payload"],
    [9, [], "UNKNOWN_FIELD_MALFORMED", "unknown field 9 at acme.Item is not one well-formed encoded field: the tag is truncated; each occurrence must be a tag followed by its payload"],
  ])("field %i %o is rejected", (n, data, code, message) => {
    const out = new FrameWriter();
    const e = codecError(() => writer(v2.Item).writeFrame(withUnknown(v2.Item, n, data), out));
    expect(e.code).toBe(code);
    expect(e.message).toBe(`cannot write acme.Item: ${message}`);
    expect(out.length).toBe(0);
  });

  test("the largest field number is accepted", () => {
    const data = [0xf8, 0xff, 0xff, 0xff, 0x0f, 0x01];
    expect(hex(writer(v2.Item).toBinary(withUnknown(v2.Item, 536870911, data)))).toBe("f8ffffff0f01");
  });
});

describe("limits", () => {
  const order = DynamicMessage.create(v2.Order, { id: 1n, note: "x".repeat(100) });
  const size = writer(v2.Order).toBinary(order).length;

  test("maxMessageBytes bounds the message size", () => {
    expect(writer(v2.Order, { maxMessageBytes: size }).toBinary(order)).toHaveLength(size);
    const out = new FrameWriter();
    const e = codecError(() => writer(v2.Order, { maxMessageBytes: size - 1 }).writeFrame(order, out));
    expect(e.code).toBe("MESSAGE_TOO_LARGE");
    expect(e.message).toBe(
      `cannot write acme.Order: encoded size ${size} bytes exceeds maxMessageBytes ${size - 1}; raise maxMessageBytes or write a smaller value`,
    );
    expect(out.length).toBe(0);
  });

  function chain(depth: number): DynamicMessage {
    let m = DynamicMessage.create(v2.Order, { id: BigInt(depth) });
    for (let i = 1; i < depth; i++) m = DynamicMessage.create(v2.Order, { parent: m });
    return m;
  }

  test.each([
    [1, 1, true],
    [3, 3, true],
    [4, 3, false],
    [100, 100, true],
    [101, 100, false],
  ])("nesting %i with maxDepth %i → written: %s", (depth, maxDepth, ok) => {
    const w = writer(v2.Order, { maxDepth });
    const m = chain(depth);
    if (ok) {
      expect(w.toBinary(m).length).toBeGreaterThan(0);
      return;
    }
    const e = codecError(() => w.toBinary(m));
    expect(e.code).toBe("DEPTH_LIMIT_EXCEEDED");
    const path = `acme.Order${".parent(6)".repeat(maxDepth)}`;
    expect(e.path).toBe(path);
    const at = maxDepth <= 8 ? path : "acme.Order.parent(6).parent(6)...parent(6).parent(6).parent(6)";
    expect(e.message).toBe(`cannot write acme.Order: nesting depth ${maxDepth + 1} at ${at} exceeds maxDepth ${maxDepth} (a map entry counts as a level); raise maxDepth or flatten the value`);
  });

  test("a value accepted under a larger maxDepth is still checked under a smaller one", () => {
    const m = chain(5);
    writer(v2.Order, { maxDepth: 10 }).toBinary(m);
    expect(codecError(() => writer(v2.Order, { maxDepth: 4 }).toBinary(m)).code).toBe("DEPTH_LIMIT_EXCEEDED");
    const nested = DynamicMessage.create(v2.Order, { items: [], parent: m });
    expect(codecError(() => writer(v2.Order, { maxDepth: 5 }).toBinary(nested)).code).toBe("DEPTH_LIMIT_EXCEEDED");
    expect(writer(v2.Order, { maxDepth: 6 }).toBinary(nested).length).toBeGreaterThan(0);
  });
});

describe("frames", () => {
  const a = DynamicMessage.create(v2.Order, { id: 1n, note: "a" });
  const b = DynamicMessage.create(v2.Order, { id: 300n, items: [{ sku: "s", qty: -1 }], note: "é".repeat(100) });

  test("a frame is a varint length and the message, as protobufjs encodeDelimited", () => {
    const root = protobuf.loadSync(new URL("./fixtures/writer/v2/order.proto", import.meta.url).pathname);
    const T = root.lookupType("acme.Order");
    const w = writer(v2.Order);
    for (const m of [a, b]) {
      const frame = w.encodeFrame(m);
      expect(hex(frame)).toBe(hex(T.encodeDelimited(T.decode(w.toBinary(m))).finish()));
      expect(T.decodeDelimited(frame).toJSON()).toEqual(T.decode(w.toBinary(m)).toJSON());
    }
    expect(hex(w.encodeAll([a, b, a]))).toBe(hex(w.encodeFrame(a)) + hex(w.encodeFrame(b)) + hex(w.encodeFrame(a)));
  });

  test("encodeAll writes nothing when one value fails", () => {
    const w = writer(v2.Order, { maxMessageBytes: 50 });
    const e = codecError(() => w.encodeAll([a, b]));
    expect(e.code).toBe("MESSAGE_TOO_LARGE");
  });

  test("a FrameWriter appends frames, grows, and is unchanged by a failed write", () => {
    const out = new FrameWriter(0);
    const w = writer(v2.Order, { maxMessageBytes: 150 });
    for (let i = 0; i < 50; i++) w.writeFrame(a, out);
    const before = hex(out.toUint8Array());
    expect(out.length).toBe(50 * w.encodeFrame(a).length);
    codecError(() => w.writeFrame(b, out));
    codecError(() => w.writeFrame(null, out));
    expect(hex(out.toUint8Array())).toBe(before);
    w.writeFrame(a, out);
    expect(out.length).toBe(51 * w.encodeFrame(a).length);
    expect(hex(out.view())).toBe(before + hex(w.encodeFrame(a)));
    out.reset();
    expect(out.length).toBe(0);
  });

  test("outputs do not share bytes with later outputs", () => {
    const w = writer(v2.Order);
    const first = w.toBinary(a);
    const copy = hex(first);
    for (let i = 0; i < 5000; i++) w.toBinary(b);
    expect(hex(first)).toBe(copy);
  });
});
