// The Schema Registry wire format's header (protokeel/registry): magic byte 0, the schema id as a
// 4-byte big-endian integer, the zigzag-varint message-index array ([0] as the single byte 0),
// and the exact CodecError for every way a header goes wrong, at every length it can be cut.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { readRegistryHeader, writeRegistryHeader } from "../src/registry/index.js";
import { params } from "./support/property.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const bytes = (h: string) => new Uint8Array(Buffer.from(h.replace(/ /g, ""), "hex"));

describe("header bytes", () => {
  test.each([
    ["the first message: the single byte 0", 1, [0], "00 00000001 00"],
    ["the second top-level message", 7, [1], "00 00000007 02 02"],
    ["a nested message", 7, [1, 0], "00 00000007 04 02 00"],
    ["the first message's first nested message", 7, [0, 0], "00 00000007 04 00 00"],
    ["an index past 63 takes two varint bytes", 256, [64], "00 00000100 02 8001"],
    ["the largest id", 0xffffffff, [0], "00 ffffffff 00"],
    ["id bytes are big-endian", 0x01020304, [2, 3, 4], "00 01020304 06 04 06 08"],
  ])("%s", (_what, id, indexes, expected) => {
    const header = writeRegistryHeader(id, indexes);
    expect(hex(header)).toBe(expected.replace(/ /g, ""));
    expect(readRegistryHeader(header)).toEqual({ schemaId: id, messageIndexes: indexes, bodyAt: header.length });
  });

  test("[0] written longhand (count 1, index 0) reads as [0] too", () => {
    expect(readRegistryHeader(bytes("00 00000001 02 00 0801"))).toEqual({ schemaId: 1, messageIndexes: [0], bodyAt: 7 });
  });

  test("any path round-trips, and the body starts right after the header", () => {
    fc.assert(
      fc.property(fc.nat(), fc.array(fc.nat({ max: 100_000 }), { minLength: 1, maxLength: 100 }), (id, path) => {
        const header = writeRegistryHeader(id, path);
        const withBody = new Uint8Array([...header, 0x08, 0x01]);
        const read = readRegistryHeader(withBody);
        expect(read).toEqual({ schemaId: id, messageIndexes: path, bodyAt: header.length });
      }),
      params("registry header round-trip", 300),
    );
  });
});

test.each([
  [-1, [0], "schema id -1 is not an integer in 0..4294967295"],
  [2 ** 32, [0], "schema id 4294967296 is not an integer in 0..4294967295"],
  [1.5, [0], "schema id 1.5 is not an integer in 0..4294967295"],
  [1, [], "message indexes must be 1..100 integers (a path in the schema file), e.g. [0]"],
  [1, new Array(101).fill(0), "message indexes must be 1..100 integers (a path in the schema file), e.g. [0]"],
  [1, [0, -1], "message index -1 is not an integer in 0..2147483647"],
  [1, [2 ** 31], "message index 2147483648 is not an integer in 0..2147483647"],
])("writeRegistryHeader(%s, %j) is a RangeError", (id, indexes, message) => {
  expect(() => writeRegistryHeader(id, indexes)).toThrow(new RangeError(message));
});

describe("malformed headers", () => {
  test.each([
    ["empty input", "", "REGISTRY_HEADER_TRUNCATED", "schema registry header truncated: the magic byte is missing at byte 0 (the input is 0 bytes); pass the whole record value as the producer wrote it", 0],
    ["a bare message (tag 1 varint)", "0801", "REGISTRY_MAGIC_BYTE", "schema registry header: magic byte 0x08 at byte 0, expected 0x00; the value was not written by a Schema Registry serializer (read bare messages with serializer.fromBinary)", 0],
    ["a framed message", "020801", "REGISTRY_MAGIC_BYTE", "schema registry header: magic byte 0x02 at byte 0, expected 0x00; the value was not written by a Schema Registry serializer (read bare messages with serializer.fromBinary)", 0],
    ["magic byte only", "00", "REGISTRY_HEADER_TRUNCATED", "schema registry header truncated: the 4-byte schema id ends at byte 1 (the input is 1 bytes); pass the whole record value as the producer wrote it", 1],
    ["id cut after 3 bytes", "00000000", "REGISTRY_HEADER_TRUNCATED", "schema registry header truncated: the 4-byte schema id ends at byte 4 (the input is 4 bytes); pass the whole record value as the producer wrote it", 4],
    ["no index array", "0000000001", "REGISTRY_HEADER_TRUNCATED", "schema registry header truncated: the message-index count ends at byte 5 (the input is 5 bytes); pass the whole record value as the producer wrote it", 5],
    ["count varint cut", "000000000180", "REGISTRY_HEADER_TRUNCATED", "schema registry header truncated: the message-index count ends at byte 6 (the input is 6 bytes); pass the whole record value as the producer wrote it", 6],
    ["index cut", "00000000010402", "REGISTRY_HEADER_TRUNCATED", "schema registry header truncated: message index 2 of 2 ends at byte 7 (the input is 7 bytes); pass the whole record value as the producer wrote it", 7],
    ["negative count", "000000000101", "REGISTRY_MESSAGE_INDEX_INVALID", "schema registry header: message-index count -1 at byte 5 is outside 1..100; the value was not written in the Confluent wire format", 5],
    ["count over 100", "0000000001ca01", "REGISTRY_MESSAGE_INDEX_INVALID", "schema registry header: message-index count 101 at byte 5 is outside 1..100; the value was not written in the Confluent wire format", 5],
    ["huge count (no allocation)", "0000000001feffffff0f", "REGISTRY_MESSAGE_INDEX_INVALID", "schema registry header: message-index count 2147483647 at byte 5 is outside 1..100; the value was not written in the Confluent wire format", 5],
    ["negative index", "00000000010201", "REGISTRY_MESSAGE_INDEX_INVALID", "schema registry header: message index -1 at byte 6 is negative; the value was not written in the Confluent wire format", 6],
    ["a varint longer than 5 bytes", "0000000001ffffffffff01", "REGISTRY_MESSAGE_INDEX_INVALID", "schema registry header: the message-index count at byte 5 is not a 32-bit varint; the value was not written in the Confluent wire format", 5],
    ["a 5-byte varint above 32 bits", "0000000001ffffffff7f", "REGISTRY_MESSAGE_INDEX_INVALID", "schema registry header: the message-index count at byte 5 is not a 32-bit varint; the value was not written in the Confluent wire format", 5],
  ])("%s", (_what, input, code, message, offset) => {
    let error: unknown;
    try {
      readRegistryHeader(bytes(input));
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ name: "CodecError", code, message, offset });
  });

  test("every cut of a valid header is REGISTRY_HEADER_TRUNCATED at its own length", () => {
    const header = writeRegistryHeader(300, [5, 70000, 2]);
    for (let n = 0; n < header.length; n++) {
      expect(() => readRegistryHeader(header.subarray(0, n)), `cut at ${n}`).toThrow(expect.objectContaining({ code: "REGISTRY_HEADER_TRUNCATED", offset: n }));
    }
  });
});
