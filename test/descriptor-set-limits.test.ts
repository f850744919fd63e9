// A FileDescriptorSet is counted before @bufbuild/protobuf decodes it: its decoder makes ~386
// bytes of objects per 2-byte empty file or message, so 32 MB of empty files in a snapshot (inside
// the format's 64 MiB, checksums recomputed) took over 4 GB and aborted the process. The count
// must equal what the decoder builds, stop past its limits, leave malformed bytes to the
// decoder's own error, and drop source_code_info from sets given as input without changing
// anything else.
import { create, fromBinary, toBinary, type Message } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, type FileDescriptorSet } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { InvalidDescriptorError, ProtobufType, SnapshotFormatError, readSnapshot, writeSnapshot } from "../src/index.js";
import { MAX_SET_MESSAGES, MAX_SET_VALUES, scanDescriptorSet } from "../src/descriptor/set-scan.js";
import { compileProtoDir, compileProtoText } from "./support/buf.js";
import { assemble, defaultFields, withCheck } from "./support/snapshot-bytes.js";

/**
 * Every message object a decoded set holds (the set itself excluded), by walking its fields, and
 * every unknown field it keeps (an object each: custom options are extensions it does not know).
 */
function messagesIn(set: FileDescriptorSet): number {
  let n = 0;
  const stack: unknown[] = [set];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...v);
    else if (v !== null && typeof v === "object" && "$typeName" in (v as object)) {
      if (v !== set) n++;
      n += (v as Message).$unknown?.length ?? 0;
      for (const [k, f] of Object.entries(v as Message)) if (k !== "$typeName" && k !== "$unknown") stack.push(f);
    }
  }
  return n;
}

function repeat(n: number, record: number[]): Uint8Array {
  const out = new Uint8Array(n * record.length);
  for (let i = 0; i < n; i++) out.set(record, i * record.length);
  return out;
}

function varint(n: number): number[] {
  const out: number[] = [];
  for (; n >= 0x80; n = Math.floor(n / 0x80)) out.push((n % 0x80) | 0x80);
  out.push(n);
  return out;
}

/** Field `tag` (a one-byte tag), length-delimited, around `inner`. */
function wrap(tag: number, inner: Uint8Array): Uint8Array {
  return Uint8Array.from([tag, ...varint(inner.length), ...inner]);
}

const join = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(parts.flatMap((p) => [...p]));

// Custom options (extensions of descriptor.proto's options, kept as unknown fields by the
// decoder), well-known imports, nested types, maps, oneofs, reserved ranges, services.
const OPTIONS_FILES = {
  "opts/options.proto": `syntax = "proto3";
package opts;
import "google/protobuf/descriptor.proto";
import "google/protobuf/timestamp.proto";
extend google.protobuf.FieldOptions { string label = 50001; repeated int32 tags = 50002; }
extend google.protobuf.MessageOptions { Meta meta = 50003; }
message Meta { string owner = 1; repeated string aliases = 2; }
// A comment for the source info.
message Order {
  option (meta) = { owner: "team", aliases: ["a", "b"] };
  reserved 7 to 9, 100; reserved "old";
  string id = 1 [(label) = "key", (tags) = 1, (tags) = 2];
  map<string, Line> lines = 2;
  oneof pay { string card = 3; int64 cash = 4 [json_name = "money"]; }
  google.protobuf.Timestamp at = 5;
  message Line { int32 qty = 1; enum Kind { KIND_UNSPECIFIED = 0; BIG = 1; } Kind kind = 2; }
}
service Orders { rpc Get(Order) returns (Order); }
`,
};
const OPTIONS_PROTO = compileProtoText(OPTIONS_FILES);
const OPTIONS_WITH_INFO = compileProtoText(OPTIONS_FILES, { sourceInfo: true });

const SETS: [string, (sourceInfo: boolean) => Uint8Array][] = [
  ["all-types", (sourceInfo) => compileProtoDir("fixtures/all-types", { sourceInfo })],
  ["generated-es", (sourceInfo) => compileProtoDir("fixtures/generated-es", { sourceInfo })],
  ["core", (sourceInfo) => compileProtoDir("fixtures/core", { sourceInfo })],
  ["custom options", (sourceInfo) => (sourceInfo ? OPTIONS_WITH_INFO : OPTIONS_PROTO)],
];

describe("the count is what the decoder builds", () => {
  test.each(SETS)("%s, with and without source info", (_name, compile) => {
    for (const sourceInfo of [false, true]) {
      const bytes = compile(sourceInfo);
      const scan = scanDescriptorSet(bytes);
      expect(scan.over).toBeUndefined();
      expect(scan.messages).toBe(messagesIn(fromBinary(FileDescriptorSetSchema, bytes)));
      expect(scan.values).toBeGreaterThan(0);
      expect(scan.bytes).toBe(bytes);
    }
  });

  test("dropping source info changes nothing else", () => {
    for (const [, compile] of SETS) {
      const withInfo = compile(true);
      const scan = scanDescriptorSet(withInfo, true);
      const expected = fromBinary(FileDescriptorSetSchema, withInfo);
      for (const f of expected.file) f.sourceCodeInfo = undefined;
      expect(scan.bytes.length).toBeLessThan(withInfo.length);
      expect(fromBinary(FileDescriptorSetSchema, scan.bytes)).toEqual(expected);
      expect(scan.bytes).toEqual(compile(false));
      // Without source info there is nothing to drop: the same bytes come back.
      const plain = compile(false);
      expect(scanDescriptorSet(plain, true).bytes).toBe(plain);
    }
  });

  test("a file record with a non-minimal tag and source info between other fields", () => {
    // file { name: "a.proto" (1), source_code_info (9) { location {} }, package: "p" (2) },
    // its tag written as two bytes (0x8a 0x00).
    const file = join(wrap(0x0a, new TextEncoder().encode("a.proto")), wrap(0x4a, wrap(0x0a, new Uint8Array(0))), wrap(0x12, Uint8Array.of(0x70)));
    const bytes = join(Uint8Array.of(0x8a, 0x00, ...varint(file.length)), file, wrap(0x0a, wrap(0x0a, Uint8Array.of(0x62))));
    const scan = scanDescriptorSet(bytes, true);
    const expected = fromBinary(FileDescriptorSetSchema, bytes);
    expected.file[0]!.sourceCodeInfo = undefined;
    expect(fromBinary(FileDescriptorSetSchema, scan.bytes)).toEqual(expected);
    expect(toBinary(FileDescriptorSetSchema, expected)).toEqual(scan.bytes);
  });
});

describe("limits", () => {
  // [name, bytes, messages counted before stopping]
  test.each<[string, () => Uint8Array, boolean]>([
    ["2^20 empty files", () => repeat(MAX_SET_MESSAGES, [0x0a, 0x00]), false],
    ["2^20 + 1 empty files", () => repeat(MAX_SET_MESSAGES + 1, [0x0a, 0x00]), true],
    ["a file of 2^20 - 1 empty messages", () => wrap(0x0a, repeat(MAX_SET_MESSAGES - 1, [0x22, 0x00])), false],
    ["a file of 2^20 empty messages", () => wrap(0x0a, repeat(MAX_SET_MESSAGES, [0x22, 0x00])), true],
    ["a file of 2^22 dependency strings", () => wrap(0x0a, repeat(MAX_SET_VALUES, [0x1a, 0x00])), false],
    ["a file of 2^22 + 1 dependency strings", () => wrap(0x0a, repeat(MAX_SET_VALUES + 1, [0x1a, 0x00])), true],
    // Unknown data the decoder keeps: each field an object of its own, inside a group or not.
    ["2^20 + 1 unknown varints", () => repeat(MAX_SET_MESSAGES + 1, [0x78, 0x00]), true],
    ["an unknown group of 2^20 unknown varints", () => join(Uint8Array.of(0x7b), repeat(MAX_SET_MESSAGES, [0x08, 0x00]), Uint8Array.of(0x7c)), true],
    ["a packed run of 2^22 + 1 bytes", () => wrap(0x0a, wrap(0x52, new Uint8Array(MAX_SET_VALUES + 1))), true],
  ])("%s", (_name, make, over) => {
    const scan = scanDescriptorSet(make());
    expect(scan.over !== undefined).toBe(over);
  });

  test("malformed bytes stop the count and are left to the decoder", () => {
    const CASES: Uint8Array[] = [
      Uint8Array.of(0x0a, 0x05, 0x01), // a length past the end
      Uint8Array.of(0x0a, 0x00, 0x0f), // wire type 7
      Uint8Array.of(0x7b, 0x08, 0x00), // a group that never ends
      Uint8Array.of(0x7b, 0x84, 0x01), // a group ended by another field's end
      Uint8Array.of(0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01), // an 11-byte varint
      join(repeat(1000, [0x0a, 0x00]), Uint8Array.of(0x0a, 0x05)), // good files, then a cut one
    ];
    for (const bytes of CASES) {
      const scan = scanDescriptorSet(bytes);
      expect(scan.over).toBeUndefined();
      expect(() => fromBinary(FileDescriptorSetSchema, bytes)).toThrow();
    }
  });
});

describe("the entry points refuse a set past the limits before decoding it", () => {
  const FLOOD = repeat(MAX_SET_MESSAGES + 1, [0x0a, 0x00]);
  const type = ProtobufType.of({ fileDescriptorSet: compileProtoDir("fixtures/all-types"), messageName: "alltypes.Leaf" });
  const SET = (readSnapshot(writeSnapshot(type.createSerializer().snapshotConfiguration())) as unknown as { normalizedDescriptorSet(): Uint8Array }).normalizedDescriptorSet();

  test("a snapshot whose set is the genuine one plus 2^20 empty files (checksums recomputed)", () => {
    const bytes = withCheck(assemble(defaultFields("alltypes.Leaf", join(SET, FLOOD))));
    let error: unknown;
    try {
      readSnapshot(bytes);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SnapshotFormatError);
    expect((error as SnapshotFormatError).code).toBe("SNAPSHOT_SET_TOO_LARGE");
    expect((error as SnapshotFormatError).message).toMatch(
      /^invalid snapshot of alltypes\.Leaf at byte \d+: the descriptor set holds more than 1,048,576 messages \(files, types, fields, enum values, options…\), past what a normalized set may hold; the snapshot was corrupted or modified; restore it from an intact copy$/,
    );
  });

  test("ProtobufType.of a file descriptor set of 2^20 empty files after the real ones", () => {
    let error: unknown;
    try {
      ProtobufType.of({ fileDescriptorSet: join(compileProtoDir("fixtures/all-types"), FLOOD), messageName: "alltypes.Leaf" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidDescriptorError);
    expect((error as InvalidDescriptorError).code).toBe("DESCRIPTOR_SET_TOO_LARGE");
    expect((error as InvalidDescriptorError).message).toBe(
      "invalid descriptor alltypes.Leaf: the file descriptor set holds more than 1,048,576 messages (files, types, fields, enum values, options…); pass a set of the files the message needs (buf build --path, or protoc with only its .proto and --include_imports)",
    );
  });

  test("a set with source info builds the same type as one without", () => {
    const withInfo = ProtobufType.of({ fileDescriptorSet: compileProtoDir("fixtures/all-types", { sourceInfo: true }), messageName: "alltypes.AllTypes" });
    const without = ProtobufType.of({ fileDescriptorSet: compileProtoDir("fixtures/all-types"), messageName: "alltypes.AllTypes" });
    expect(withInfo.fingerprint).toBe(without.fingerprint);
    expect(withInfo.toBytes()).toEqual(without.toBytes());
  });

  test("create of a normalized set keeps its file objects equal (no source info ever reaches it)", () => {
    const set = create(FileDescriptorSetSchema, fromBinary(FileDescriptorSetSchema, SET));
    expect(scanDescriptorSet(SET).messages).toBe(messagesIn(set));
  });
});
