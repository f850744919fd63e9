// ProtoJSON at every depth maxDepth allows (up to 10,000): toJson, toJsonString, fromJson and
// fromJsonString keep their own stacks (JSON.stringify itself throws RangeError a few thousand
// levels down), and one level past maxDepth is a typed error with a path, in both directions.
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";

const SCHEMA = `syntax = "proto3";
import "google/protobuf/struct.proto";
message Node { Node next = 1; int32 v = 2; repeated Node kids = 3; map<string, Node> named = 4; google.protobuf.Value any = 5; }`;
const MAX = 10_000;
const set = compileProtoText({ "node.proto": SCHEMA });
const type = ProtobufType.newBuilder({ fileDescriptorSet: set, messageName: "Node" }).maxDepth(MAX).maxMessageBytes(1 << 30).build();
const Node = type.descriptor;
const ser = type.createSerializer();

type Via = "next" | "kids" | "named";

function chain(depth: number, via: Via): DynamicMessage {
  const links = via === "named" ? Math.floor((depth - 1) / 2) : depth - 1;
  let v = DynamicMessage.create(Node, { v: depth });
  for (let i = 0; i < links; i++) {
    const init = via === "next" ? { next: v } : via === "kids" ? { kids: [v] } : { named: { k: v } };
    v = DynamicMessage.create(Node, { v: i + 1, ...init });
  }
  return v;
}

/** The JSON text of a chain, written by hand (fields by number: next(1), v(2), kids(3), named(4)). */
function chainText(depth: number, via: Via): string {
  const links = via === "named" ? Math.floor((depth - 1) / 2) : depth - 1;
  let inner = `{"v":${depth}}`;
  for (let i = 1; i <= links; i++) {
    inner = via === "next" ? `{"next":${inner},"v":${i}}` : via === "kids" ? `{"v":${i},"kids":[${inner}]}` : `{"v":${i},"named":{"k":${inner}}}`;
  }
  return inner;
}

describe.each<Via>(["next", "kids", "named"])("a chain %s-linked as deep as maxDepth 10,000 allows", (via) => {
  const depth = via === "named" ? MAX - 1 : MAX;
  const value = chain(depth, via);

  test("toJsonString writes it and fromJsonString reads it back", () => {
    const text = ser.toJsonString(value);
    expect(text).toBe(chainText(depth, via));
    expect(ser.fromJsonString(text).equals(value)).toBe(true);
  });

  test("toJson and fromJson (the value form) round-trip it", () => {
    expect(ser.fromJson(ser.toJson(value)).equals(value)).toBe(true);
  });

  test("one level more is DEPTH_LIMIT_EXCEEDED in both directions", () => {
    const deeper = DynamicMessage.create(Node, via === "next" ? { next: value } : via === "kids" ? { kids: [value] } : { named: { k: value } });
    const reached = via === "named" ? MAX + 1 : MAX + 1;
    expect(() => ser.toJsonString(deeper)).toThrow(CodecError);
    const text = `{${via === "next" ? '"next":' : via === "kids" ? '"kids":[' : '"named":{"k":'}${ser.toJsonString(value, {})}${via === "kids" ? "]" : via === "named" ? "}" : ""}}`;
    try {
      ser.fromJsonString(text);
      expect.unreachable();
    } catch (e) {
      expect((e as CodecError).code).toBe("DEPTH_LIMIT_EXCEEDED");
      expect((e as CodecError).message).toContain(`nesting depth ${reached} at Node.`);
      expect((e as CodecError).message).toContain("exceeds maxDepth 10000");
    }
  });
});

describe("google.protobuf.Value nested as deep as maxDepth allows", () => {
  // Each JSON list is two message levels (a Value, then its ListValue): under the root (level 1),
  // the innermost of 4,999 nested lists is level 9,999, one more list is level 10,001.
  const lists = 4_999;
  const text = `{"any":${"[".repeat(lists)}${"]".repeat(lists)}}`;

  test("reads and writes without recursion", () => {
    const value = ser.fromJsonString(text);
    expect(ser.toJsonString(value)).toBe(text);
    expect(ser.fromJson(ser.toJson(value)).equals(value)).toBe(true);
  });

  test("one list more is DEPTH_LIMIT_EXCEEDED", () => {
    const deeper = `{"any":${"[".repeat(lists + 1)}${"]".repeat(lists + 1)}}`;
    expect(() => ser.fromJsonString(deeper)).toThrow(expect.objectContaining({ code: "DEPTH_LIMIT_EXCEEDED" }));
  });

  test("JSON text nested far deeper than any message is refused by the parser, before a value is built", () => {
    const absurd = `{"any":${"[".repeat(1_000_000)}`;
    expect(() => ser.fromJsonString(absurd)).toThrow(
      "cannot read Node from JSON: the JSON nests deeper than a message within maxDepth 10000 can, at character 20008; raise maxDepth or reject the input",
    );
  });
});

describe("maxDepth below the value's depth", () => {
  const shallow = ProtobufType.newBuilder(Node).maxDepth(3).build().createSerializer();

  test.each([
    ["next", { next: { next: { next: {} } } }, "Node.next(1).next(1).next(1)"],
    ["named", { named: { a: { next: {} } } }, 'Node.named(4)["a"].next(1)'],
  ])("toJson of a value %s-linked 4 deep throws what encode throws", (_via, init, path) => {
    const value = DynamicMessage.create(Node, init);
    const message = `cannot write Node: nesting depth 4 at ${path} exceeds maxDepth 3 (a map entry counts as a level); raise maxDepth or flatten the value`;
    expect(() => shallow.toBinary(value)).toThrow(message);
    expect(() => shallow.toJson(value)).toThrow(message);
  });

  test.each([
    ['{"next":{"next":{"next":{}}}}', "Node.next(1).next(1).next(1)", 4],
    ['{"kids":[{"kids":[{"kids":[{}]}]}]}', "Node.kids(3)[0].kids(3)[0].kids(3)[0]", 4],
    ['{"named":{"a":{"next":{}}}}', 'Node.named(4)["a"].next(1)', 4],
    ['{"any":{"a":{}}}', "Node.any(5).struct_value(5).fields(1)", 4],
    ['{"any":[[]]}', "Node.any(5).list_value(6).values(1)[0]", 4],
  ])("fromJsonString(%s)", (text, path, depth) => {
    try {
      shallow.fromJsonString(text);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(CodecError);
      expect((e as CodecError).code).toBe("DEPTH_LIMIT_EXCEEDED");
      expect((e as CodecError).path).toBe(path);
      expect((e as CodecError).message).toBe(
        `cannot read Node from JSON: nesting depth ${depth} at ${path} exceeds maxDepth 3 (a map entry counts as a level); raise maxDepth or reject the input`,
      );
    }
  });

  test("an empty map adds no level", () => {
    expect(shallow.fromJsonString('{"next":{"next":{"named":{}}}}').has("next")).toBe(true);
  });
});

test("JSON.stringify(message) writes ProtoJSON (within JSON.stringify's own recursion)", () => {
  const value = chain(500, "kids");
  expect(JSON.stringify(value)).toBe(ser.toJsonString(value));
});
