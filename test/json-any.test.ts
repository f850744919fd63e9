// google.protobuf.Any in ProtoJSON: the content type comes from a registry the caller passes
// (either form), content is read and written by a serializer of that type with the outer limits,
// Any inside Any nests without recursion, and what cannot be resolved is a typed error.
import { create, createRegistry, fromJson, toBinary, toJson } from "@bufbuild/protobuf";
import { AnySchema, anyPack } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { L, T, acme, messageOf } from "./support/descriptors.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const Leaf = registry.getMessage("alltypes.Leaf")!;
const AnyDesc = registry.getMessage("google.protobuf.Any")!;
const ser = ProtobufType.of(All).createSerializer();
const ANY_URL = "type.googleapis.com/google.protobuf.Any";
const LEAF_URL = "type.googleapis.com/alltypes.Leaf";

const leafBytes = (name: string) => toBinary(Leaf, create(Leaf, { name }));
const withAny = (type_url: string, value: Uint8Array) => DynamicMessage.create(All, { wkt_any: { type_url, value } });

describe("registries", () => {
  const value = withAny(LEAF_URL, leafBytes("x"));
  const expected = { wktAny: { "@type": LEAF_URL, name: "x" } };

  test.each([
    ["a @bufbuild/protobuf file registry", registry],
    ["a @bufbuild/protobuf registry of one type", createRegistry(Leaf)],
    ["a list of DescMessage", [Leaf]],
    ["a list of ProtobufType", [ProtobufType.of(Leaf)]],
  ])("%s", (_name, reg) => {
    expect(ser.toJson(value, { registry: reg })).toEqual(expected);
    expect(ser.fromJson(expected, { registry: reg }).equals(value)).toBe(true);
  });

  test("a registry lacking the type, and no registry, are typed errors in both directions", () => {
    for (const options of [{ registry: [All] }, {}]) {
      expect(() => ser.toJson(value, options)).toThrow(expect.objectContaining({ code: "JSON_ANY_TYPE_UNKNOWN", path: "alltypes.AllTypes.wkt_any(143)" }));
      expect(() => ser.fromJson(expected, options)).toThrow(expect.objectContaining({ code: "JSON_ANY_TYPE_UNKNOWN", path: "alltypes.AllTypes.wkt_any(143)" }));
    }
  });

  test("the type name is what follows the last / of the URL, whatever the host", () => {
    const custom = withAny("example.com/types/alltypes.Leaf", leafBytes("y"));
    expect(ser.toJson(custom, { registry })).toEqual({ wktAny: { "@type": "example.com/types/alltypes.Leaf", name: "y" } });
    expect(ser.fromJson(ser.toJson(custom, { registry }), { registry }).equals(custom)).toBe(true);
  });
});

describe("content", () => {
  test("an Any inside an Any, as @bufbuild/protobuf writes it", () => {
    const inner = create(AnySchema, anyPack(Leaf, create(Leaf, { name: "deep" })));
    const value = withAny(ANY_URL, toBinary(AnySchema, inner));
    const json = ser.toJson(value, { registry });
    expect(json).toEqual({ wktAny: { "@type": ANY_URL, value: { "@type": LEAF_URL, name: "deep" } } });
    expect(json).toEqual(toJson(All, fromJson(All, json as never, { registry }), { registry }));
    expect(ser.fromJson(json, { registry }).equals(value)).toBe(true);
  });

  test("content with unknown fields follows discardUnknownFields", () => {
    const value = withAny(LEAF_URL, new Uint8Array([0x0a, 0x01, 0x78, 0x48, 0x01]));
    expect(() => ser.toJson(value, { registry })).toThrow(
      expect.objectContaining({ code: "JSON_UNKNOWN_FIELDS", path: "alltypes.AllTypes.wkt_any(143)<alltypes.Leaf>" }),
    );
    expect(ser.toJson(value, { registry, discardUnknownFields: true })).toEqual({ wktAny: { "@type": LEAF_URL, name: "x" } });
  });

  test("content that is not a valid message of its type is the reader's error, at the Any's path", () => {
    const e = (() => {
      try {
        ser.toJson(withAny(LEAF_URL, new Uint8Array([0x0a, 0x05])), { registry });
      } catch (e) {
        return e as CodecError;
      }
      throw new Error("expected an error");
    })();
    expect(e).toBeInstanceOf(CodecError);
    expect(e.code).toBe("LENGTH_PAST_END");
    expect(e.message).toMatch(/^cannot write alltypes\.AllTypes to JSON: the content of google\.protobuf\.Any at alltypes\.AllTypes\.wkt_any\(143\): cannot decode alltypes\.Leaf: /);
  });

  // Paths are joined into text only for an error (a path per Any made deep chains quadratic,
  // see stress/families/json-any-per-level.mjs): errors two Anys down still name the whole path.
  const inAny = (type_url: string, value: Uint8Array) => toBinary(AnySchema, create(AnySchema, { typeUrl: type_url, value }));
  const proto2 = () => messageOf([acme({ syntax: "proto2", messageType: [{ name: "Old", field: [{ name: "a", number: 1, type: T.INT32, label: L.OPTIONAL }] }] })], "acme.Old");
  const OUTER = "alltypes.AllTypes.wkt_any(143)";
  const INNER = `${OUTER}<google.protobuf.Any>`;
  test.each([
    [
      "toJson: content that is not a valid Leaf, two Anys down",
      () => ser.toJson(withAny(ANY_URL, inAny(LEAF_URL, new Uint8Array([0x0a, 0x05]))), { registry }),
      "LENGTH_PAST_END",
      `${INNER}/alltypes.Leaf.name(1)`,
      `cannot write alltypes.AllTypes to JSON: the content of google.protobuf.Any at ${INNER}: cannot decode alltypes.Leaf: `,
    ],
    [
      "toJson: a content type that breaks the payload rules, two Anys down",
      () => ser.toJson(withAny(ANY_URL, inAny("type.googleapis.com/acme.Old", new Uint8Array([0x08, 0x01]))), { registry: [AnyDesc, proto2()] }),
      "JSON_ANY_TYPE_INVALID",
      INNER,
      `cannot write alltypes.AllTypes to JSON: ${INNER} is a google.protobuf.Any of type acme.Old, whose schema protokeel cannot use: `,
    ],
    [
      "fromJson: a content type that breaks the payload rules, two Anys down",
      () => ser.fromJson({ wktAny: { "@type": ANY_URL, value: { "@type": "type.googleapis.com/acme.Old", a: 1 } } }, { registry: [AnyDesc, proto2()] }),
      "JSON_ANY_TYPE_INVALID",
      INNER,
      `cannot read alltypes.AllTypes from JSON: ${INNER} is a google.protobuf.Any of type acme.Old, whose schema protokeel cannot use: `,
    ],
  ])("%s names the whole path", (_name, run, code, path, head) => {
    let caught: unknown;
    try {
      run();
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(CodecError);
    expect(caught).toMatchObject({ code, path });
    expect((caught as CodecError).message.startsWith(head)).toBe(true);
  });

  test("a content type that breaks the payload rules is JSON_ANY_TYPE_INVALID", () => {
    const proto2 = messageOf([acme({ syntax: "proto2", messageType: [{ name: "Old", field: [{ name: "a", number: 1, type: T.INT32, label: L.OPTIONAL }] }] })], "acme.Old");
    const value = withAny("type.googleapis.com/acme.Old", new Uint8Array([0x08, 0x01]));
    expect(() => ser.toJson(value, { registry: [proto2] })).toThrow(expect.objectContaining({ code: "JSON_ANY_TYPE_INVALID" }));
    expect(() => ser.fromJson({ wktAny: { "@type": "type.googleapis.com/acme.Old", a: 1 } }, { registry: [proto2] })).toThrow(
      expect.objectContaining({ code: "JSON_ANY_TYPE_INVALID" }),
    );
  });
});

describe("Any inside Any", () => {
  /** An Any holding an Any … `levels` times, around a Leaf, as bytes and as JSON text. */
  function nested(levels: number): { bytes: Uint8Array; text: string } {
    let bytes = toBinary(AnySchema, create(AnySchema, anyPack(Leaf, create(Leaf, { name: "core" }))));
    let text = `{"@type":"${LEAF_URL}","name":"core"}`;
    for (let i = 1; i < levels; i++) {
      bytes = toBinary(AnySchema, create(AnySchema, { typeUrl: ANY_URL, value: bytes }));
      text = `{"@type":"${ANY_URL}","value":${text}}`;
    }
    return { bytes, text };
  }
  const AnyType = ProtobufType.newBuilder(AnyDesc).maxDepth(2_000).build();
  const anySer = AnyType.createSerializer();

  test("1,000 levels read and write, each level one nesting level", () => {
    const { bytes, text } = nested(1_000);
    const value = anySer.fromBinary(bytes);
    expect(anySer.toJsonString(value, { registry })).toBe(text);
    expect(anySer.fromJsonString(text, { registry }).equals(value)).toBe(true);
  });

  test("deeper than maxDepth is DEPTH_LIMIT_EXCEEDED although the binary form is one level", () => {
    const shallow = ProtobufType.newBuilder(AnyDesc).maxDepth(10).build().createSerializer();
    // 10 Anys around a Leaf: 11 levels.
    const { bytes, text } = nested(10);
    const value = shallow.fromBinary(bytes);
    expect(() => shallow.toJson(value, { registry })).toThrow(expect.objectContaining({ code: "DEPTH_LIMIT_EXCEEDED" }));
    expect(() => shallow.fromJsonString(text, { registry })).toThrow(expect.objectContaining({ code: "DEPTH_LIMIT_EXCEEDED" }));
    expect(shallow.toJsonString(shallow.fromBinary(nested(9).bytes), { registry })).toBe(nested(9).text);
  });
});
