// A decoded sub-message with nothing on the wire is its type's default instance (values are
// immutable, so sharing it is invisible), whose values are one shared frozen array (NONE_SET,
// src/message/values.ts), like every value of a type without fields; DynamicMessage keeps what
// only roots and lazy values need in one side object.
// 64 MiB of `0a 00` (empty elements of a repeated message field, valid for any schema that has
// one) built 32 M values of 136-200 bytes of heap each and killed the process on Node's 4 GiB
// heap. The values must behave exactly like any other: read, equal, written, merged with a later
// occurrence, turned into a builder — on both read paths (the TypeScript reader for small
// inputs, the core's tape beyond).
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { compileProtoDir } from "./support/buf.js";
import { retainedBy } from "./support/heap.js";
import { varint } from "./support/wire-scramble.js";

const fds = compileProtoDir("fixtures/all-types");
const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, fds));
const All = registry.getMessage("alltypes.AllTypes")!;
const Leaf = registry.getMessage("alltypes.Leaf")!;
const Empty = registry.getMessage("google.protobuf.Empty")!;
const other = createFileRegistry(fromBinary(FileDescriptorSetSchema, fds)).getMessage("alltypes.AllTypes")!;
const big = 1 << 28;
const ser = ProtobufType.newBuilder(All).maxMessageBytes(big).build().createSerializer();
const otherSer = ProtobufType.newBuilder(other).maxMessageBytes(big).build().createSerializer();
const det = ProtobufType.newBuilder(other).maxMessageBytes(big).deterministic(true).build().createSerializer();

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

const field = (num: number, body: number[]): number[] => [...varint((num << 3) | 2), ...varint(body.length), ...body];
const leaf = (name: string): number[] => field(1, [...Buffer.from(name)]);

// f_bytes (10) holding `n` bytes: appended to take the core's path (inputs over a few KiB).
const padding = (n: number): number[] => (n === 0 ? [] : field(10, new Array<number>(n).fill(7)));

const CASES: [string, number[], (v: DynamicMessage) => void][] = [
  ["list: empty, set, empty", [...field(57, []), ...field(57, leaf("a")), ...field(57, [])], (v) => {
    const list = v.get("r_message") as DynamicMessage[];
    expect(list.map((m) => m.get("name"))).toEqual(["", "a", ""]);
    expect(list[0]!.equals(DynamicMessage.create(Leaf, {}))).toBe(true);
  }],
  ["singular: empty, then set (merged)", [...field(17, []), ...field(17, leaf("b"))], (v) => {
    expect((v.get("f_message") as DynamicMessage).get("name")).toBe("b");
  }],
  ["singular: set, then empty (merged, the first stays)", [...field(17, leaf("c")), ...field(17, [])], (v) => {
    expect((v.get("f_message") as DynamicMessage).get("name")).toBe("c");
  }],
  ["singular: empty twice", [...field(17, []), ...field(17, [])], (v) => {
    expect(v.has("f_message")).toBe(true);
    expect((v.get("f_message") as DynamicMessage).get("name")).toBe("");
  }],
  ["oneof member and optional: empty", [...field(101, []), ...field(37, [])], (v) => {
    expect(v.whichOneof("choice")).toBe("c_message");
    expect(v.has("o_message")).toBe(true);
  }],
  ["map value: empty", field(95, [...field(1, [0x6b]), ...field(2, [])]), (v) => {
    expect((v.get("mv_message") as Map<string, DynamicMessage>).get("k")!.get("name")).toBe("");
  }],
  ["google.protobuf.Empty and nested empties", [...field(147, []), ...field(123, field(147, [])), ...field(123, [])], (v) => {
    expect(v.has("wkt_empty")).toBe(true);
    expect((v.get("children") as DynamicMessage[]).map((c) => c.has("wkt_empty"))).toEqual([true, false]);
  }],
];

describe.each([
  ["the TypeScript reader (small input)", 0],
  ["the core's tape (large input)", 20_000],
])("empty sub-messages read by %s", (_name, pad) => {
  test.each(CASES)("%s", (_case, body, check) => {
    const input = Uint8Array.from([...body, ...padding(pad)]);
    const v = ser.fromBinary(input);
    check(v);
    // Written by the same instance, another instance and a deterministic one: read back equal.
    for (const out of [ser.toBinary(v), otherSer.toBinary(v), det.toBinary(v)]) {
      expect(otherSer.fromBinary(out).equals(otherSer.fromBinary(otherSer.toBinary(v)))).toBe(true);
    }
    expect(hex(ser.toBinary(ser.fromBinary(ser.toBinary(v))))).toBe(hex(ser.toBinary(v)));
    // A builder from any empty sub-message gets an array of its own.
    const list = (v.get("r_message") as DynamicMessage[] | undefined) ?? [];
    const single = v.get("f_message") as DynamicMessage | undefined;
    for (const m of single === undefined ? list : [...list, single]) {
      const changed = m.toBuilder().set("name", "z").build();
      expect(changed.get("name")).toBe("z");
      expect(m.get("name") === "z").toBe(false);
    }
    expect(ser.fromBinary(input).equals(v)).toBe(true);
    // Empty sub-messages are the type's default instance: nothing above may have changed it.
    const leafDesc = (ser.fromBinary(Uint8Array.from(field(17, []))).get("f_message") as DynamicMessage).descriptor;
    const d = DynamicMessage.getDefaultInstance(leafDesc);
    expect(d.get("name")).toBe("");
    expect(ser.fromBinary(Uint8Array.from(field(17, []))).get("f_message")).toBe(d);
    expect(hex(ProtobufType.of(leafDesc).createSerializer().toBinary(d))).toBe("");
  });
});

describe("empty messages at the root", () => {
  const leafSer = ProtobufType.of(Leaf).createSerializer();
  const d = DynamicMessage.getDefaultInstance(Leaf);
  test.each([
    ["fromBinary of no bytes", () => [leafSer.fromBinary(new Uint8Array(0))]],
    ["decode of one empty frame", () => [leafSer.decode(Uint8Array.of(0))]],
    ["decodeAll: empty, set, empty (TypeScript-sized batch)", () => leafSer.decodeAll(Uint8Array.of(0, 3, 0x0a, 1, 0x61, 0))],
    // (Read by the TypeScript reader's batch path in the default project, by the core's tape in
    // core-decode, which reads every input with the core.)
    ["decodeAll: 100,000 frames, every tenth set", () => {
      const parts: number[] = [];
      for (let i = 0; i < 100_000; i++) parts.push(...(i % 10 === 0 ? [3, 0x0a, 1, 0x61] : [0]));
      return leafSer.decodeAll(Uint8Array.from(parts));
    }],
  ])("%s: the default instance, unchanged, written as nothing", (_name, read) => {
    const values = read() as DynamicMessage[];
    for (const v of values) {
      // (fromBinary may give a lazy value instead, in the project that decodes everything lazily)
      if (v.get("name") === "") expect(v === d || v.equals(d)).toBe(true);
      else expect(v.get("name")).toBe("a");
    }
    if (values.length > 1) expect(values.filter((v) => v === d).length).toBe(values.filter((v) => v.get("name") === "").length);
    expect(d.get("name")).toBe("");
    expect(hex(leafSer.encodeAll(values))).toBe(hex(Uint8Array.from(values.flatMap((v) => (v.get("name") === "" ? [0] : [3, 0x0a, 1, 0x61])))));
    expect(leafSer.toBinary(d).length).toBe(0);
  });
});

describe("a type without fields", () => {
  test("create, builders, unknown fields and decode give independent values", () => {
    const a = DynamicMessage.create(Empty, {});
    const b = DynamicMessage.newBuilder(Empty).setUnknownFields(new Map([[1, [Uint8Array.of(8, 1)]]])).build();
    expect(a.equals(DynamicMessage.getDefaultInstance(Empty))).toBe(true);
    expect(a.equals(b)).toBe(false);
    expect(a.unknownFields.size).toBe(0);
    expect(b.unknownFields.get(1)!.map(hex)).toEqual(["0801"]);
    const s = ProtobufType.of(Empty).createSerializer();
    expect(hex(s.toBinary(b))).toBe("0801");
    expect(s.fromBinary(Uint8Array.of(8, 1)).equals(b)).toBe(true);
    expect(() => DynamicMessage.newBuilder(Empty).set("x", 1)).toThrow(TypeError);
  });
});

describe("heap per empty sub-message", () => {
  test("an empty element of a repeated 2-field message costs its list slot (~200 bytes of heap before)", () => {
    const n = 200_000;
    const input = new Uint8Array(3 * n);
    for (let i = 0; i < n; i++) {
      input[3 * i] = 0xca; // r_message (57), length-delimited: tag 0xca 0x03
      input[3 * i + 1] = 0x03;
    }
    const { value: v, bytes } = retainedBy(() => {
      const m = ser.fromBinary(input);
      m.get("r_message");
      return m;
    });
    expect((v.get("r_message") as DynamicMessage[]).length).toBe(n);
    expect(bytes / n).toBeLessThan(24);
  });
});
