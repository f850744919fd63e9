import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { sha256 } from "@noble/hashes/sha2";
import { InvalidObjectError, ProtobufType } from "../src/index.js";
import { compileProtoDir, messageFromDir } from "./support/buf.js";
import { crc32cReference, withCheck } from "./support/snapshot-bytes.js";

const CANONICAL = "fixtures/descriptors/canonical";

interface Parts {
  magic?: number[];
  version?: number;
  kind?: number;
  framing?: number;
  normalization?: number;
  maxMessageBytes?: number;
  maxDepth?: number;
  deterministic?: number;
  aliasThreshold?: number;
  name?: Uint8Array;
  set?: Uint8Array;
  setLength?: number;
  digest?: Uint8Array;
  /** Bytes after the digest, inside the checked bytes. */
  trailing?: number[];
  /** Overrides the integrity check (the CRC-32C of everything before it). */
  check?: number;
}

/**
 * Writes the transfer form (README "Descriptors") field by field, so single fields can be wrong,
 * and ends it with a correct integrity check unless `check` says otherwise.
 */
function encode(base: ProtobufType, p: Parts = {}): Uint8Array {
  const name = p.name ?? new TextEncoder().encode(base.fullName);
  const set = p.set ?? base.normalizedDescriptorSet();
  const digest = p.digest ?? sha256(set);
  const out = new Uint8Array(4 + 4 + 13 + 2 + name.length + 4 + set.length + 32 + (p.trailing?.length ?? 0));
  const v = new DataView(out.buffer);
  out.set(p.magic ?? [0x50, 0x4b, 0x54, 0x59], 0);
  out.set([p.version ?? 1, p.kind ?? 1, p.framing ?? 1, p.normalization ?? 1], 4);
  v.setUint32(8, p.maxMessageBytes ?? base.settings.maxMessageBytes);
  v.setUint32(12, p.maxDepth ?? base.settings.maxDepth);
  out[16] = p.deterministic ?? (base.settings.deterministic ? 1 : 0);
  v.setUint32(17, p.aliasThreshold ?? base.settings.aliasThreshold);
  v.setUint16(21, name.length);
  out.set(name, 23);
  let o = 23 + name.length;
  v.setUint32(o, p.setLength ?? set.length);
  out.set(set, o + 4);
  o += 4 + set.length;
  out.set(digest, o);
  out.set(p.trailing ?? [], o + 32);
  return withCheck(out, p.check);
}

const order = ProtobufType.newBuilder(messageFromDir(CANONICAL, "acme.Order"))
  .maxMessageBytes(1 << 20)
  .maxDepth(64)
  .deterministic(true)
  .aliasThreshold(4096)
  .build();

describe("ProtobufType transfer form", () => {
  test("round-trips to an equal type with its own descriptors", () => {
    const bytes = order.toBytes();
    expect(bytes).toEqual(encode(order));
    const a = ProtobufType.fromBytes(bytes);
    const b = ProtobufType.fromBytes(bytes);
    expect(a.equals(order)).toBe(true);
    expect(a.settings).toEqual(order.settings);
    expect(a.fullName).toBe("acme.Order");
    expect(a.fingerprint()).toBe(order.fingerprint());
    expect(a.descriptor).not.toBe(order.descriptor);
    expect(a.descriptor).not.toBe(b.descriptor);
    expect(a.descriptor.field.itemsBySku!.fieldKind).toBe("map");
    expect(a.toBytes()).toEqual(bytes);
  });

  const failures: Array<[string, () => Uint8Array, string, string]> = [
    ["an empty input", () => new Uint8Array(0), "TRANSFER_TRUNCATED", "truncated at offset 0 reading the magic (4 bytes needed, 0 left)"],
    ["a wrong magic", () => encode(order, { magic: [0x50, 0x4b, 0x53, 0x53] }), "TRANSFER_BAD_MAGIC", "the magic is not PKTY"],
    ["transfer version 2", () => encode(order, { version: 2 }), "TRANSFER_UNSUPPORTED_VERSION", "transfer version 2 is not supported (this package reads 1)"],
    ["kind 2", () => encode(order, { kind: 2 }), "TRANSFER_UNSUPPORTED_KIND", "type kind 2 is not supported (1 = dynamic)"],
    ["framing version 2", () => encode(order, { framing: 2 }), "TRANSFER_UNSUPPORTED_VERSION", "framing version 2 is not supported (this package writes 1)"],
    ["normalization version 0", () => encode(order, { normalization: 0 }), "TRANSFER_UNSUPPORTED_VERSION", "normalization version 0 is not supported (this package writes 1)"],
    ["maxDepth 0", () => encode(order, { maxDepth: 0 }), "TRANSFER_BAD_SETTINGS", "setting maxDepth must be an integer in 1..10000, got 0"],
    ["maxMessageBytes 2^31", () => encode(order, { maxMessageBytes: 2 ** 31 }), "TRANSFER_BAD_SETTINGS", "setting maxMessageBytes must be an integer in 1..2147483647, got 2147483648"],
    ["deterministic 2", () => encode(order, { deterministic: 2 }), "TRANSFER_BAD_SETTINGS", "deterministic is 2, not 0 or 1"],
    ["an empty name", () => encode(order, { name: new Uint8Array(0) }), "TRANSFER_BAD_NAME", "the full name is empty"],
    ["a name that is not UTF-8", () => encode(order, { name: new Uint8Array([0x61, 0xff]) }), "TRANSFER_BAD_NAME", "the full name is not valid UTF-8"],
    ["a set length of 0", () => encode(order, { set: new Uint8Array(0) }), "TRANSFER_BAD_LENGTH", "the descriptor set length 0 is outside 1..67108864"],
    ["a set length above 64 MiB", () => encode(order, { setLength: 64 * 1024 * 1024 + 1 }), "TRANSFER_BAD_LENGTH", "the descriptor set length 67108865 is outside 1..67108864"],
    ["a set length beyond the input", () => encode(order, { setLength: 1_000_000 }), "TRANSFER_TRUNCATED", `truncated at offset 37 reading the descriptor set (1000000 bytes needed, ${order.normalizedDescriptorSet().length + 32} left)`],
    ["a wrong digest", () => encode(order, { digest: new Uint8Array(32) }), "TRANSFER_DIGEST_MISMATCH", "the SHA-256 digest of acme.Order's descriptor set does not match"],
    ["trailing bytes", () => encode(order, { trailing: [0] }), "TRANSFER_TRAILING_BYTES", "1 bytes follow the digest"],
    ["no room for the check", () => encode(order).subarray(0, 8), "TRANSFER_TRUNCATED", "truncated at offset 5 reading the integrity check (4 bytes needed, 3 left)"],
    ["a cut after the version, the check made again", () => withCheck(encode(order).subarray(0, 6)), "TRANSFER_TRUNCATED", "truncated at offset 5 reading the versions (3 bytes needed, 1 left)"],
    [
      "a wrong check",
      () => encode(order, { check: 0xdeadbeef }),
      "TRANSFER_CORRUPT",
      `the bytes are corrupt: the CRC-32C of bytes 0..${encode(order).length - 5} is 0x${crc32cReference(encode(order).subarray(0, -4)).toString(16).padStart(8, "0")}, but the transfer form records 0xdeadbeef, so they were damaged, cut short or modified on the way`,
    ],
  ];

  test.each(failures)("rejects %s", (_name, make, code, detail) => {
    expect(() => ProtobufType.fromBytes(make())).toThrow(
      expect.objectContaining({
        name: "InvalidObjectError",
        code,
        message: `invalid type bytes: ${detail}; pass the exact output of ProtobufType.toBytes()`,
      }),
    );
  });

  test("rejects a consistent form whose root is not in the set", () => {
    const bytes = encode(order, { name: new TextEncoder().encode("acme.Nope") });
    expect(() => ProtobufType.fromBytes(bytes)).toThrow(
      expect.objectContaining({
        code: "TRANSFER_INVALID_DESCRIPTOR",
        message: "invalid type bytes: invalid descriptor acme.Nope: the descriptor set does not declare message acme.Nope",
      }),
    );
  });

  test("rejects a consistent form whose set is not normalized", () => {
    const bytes = encode(order, { set: compileProtoDir(CANONICAL) });
    expect(() => ProtobufType.fromBytes(bytes)).toThrow(
      expect.objectContaining({
        code: "TRANSFER_NOT_NORMALIZED",
        message:
          "invalid type bytes: the descriptor set of acme.Order is not in normalized form; pass the exact output of ProtobufType.toBytes()",
      }),
    );
  });

  test("every truncation throws InvalidObjectError", () => {
    const bytes = order.toBytes();
    for (let n = 0; n < bytes.length; n++) {
      expect(() => ProtobufType.fromBytes(bytes.subarray(0, n)), `length ${n}`).toThrow(InvalidObjectError);
    }
  });

  test("a tampered byte throws InvalidObjectError", () => {
    const bytes = order.toBytes();
    fc.assert(
      fc.property(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 }), (at, xor) => {
        const copy = bytes.slice();
        copy[at]! ^= xor;
        expect(() => ProtobufType.fromBytes(copy)).toThrow(InvalidObjectError);
      }),
      { numRuns: 300 },
    );
  });

  test("the last 4 bytes are the CRC-32C of every byte before them, big-endian", () => {
    const bytes = order.toBytes();
    const at = bytes.length - 4;
    expect(new DataView(bytes.buffer, bytes.byteOffset).getUint32(at)).toBe(crc32cReference(bytes.subarray(0, at)));
  });
});
