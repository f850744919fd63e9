// google.protobuf.Struct fields of the generated kind are JSON objects (as protobuf-es holds them),
// converted to and from their message form without recursion (src/generated/struct.ts):
// - a JSON object that is cyclic or nested past maxDepth is refused on write with
//   DEPTH_LIMIT_EXCEEDED, naming the field (it was a RangeError from the recursive conversion);
//   nothing is written and the next write is unaffected;
// - a Struct as deep as any setting allows converts both ways, whatever the stack.
import { create, fromBinary, toBinary, type JsonObject } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { CodecError, FrameWriter, ProtobufType } from "../src/index.js";
import { structToLocal, structToMessage, StructTooDeep } from "../src/generated/struct.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";

type Json = Record<string, unknown>;

function nest(depth: number, inArrays = false): Json {
  let v: unknown = { leaf: 1 };
  for (let i = 1; i < depth; i++) v = inArrays ? { k: [v] } : { k: v };
  return v as Json;
}

function cyclic(kind: "object" | "array" | "wide"): Json {
  const o: Json = { a: 1 };
  if (kind === "object") o.self = o;
  else if (kind === "array") o.list = [1, o];
  // Three ways back at every level: converting every path first would be 3^depth objects.
  else Object.assign(o, { x: o, y: o, z: o });
  return o;
}

const ser = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();
const shallow = ProtobufType.newGeneratedBuilder(AllTypesSchema).maxDepth(10).build().createSerializer();

function failure(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof CodecError)) throw e;
    return { code: e.code, message: e.message };
  }
  throw new Error("expected a CodecError");
}

const good = create(AllTypesSchema, { fString: "after", wktStruct: { a: [1, "two", null, { b: true }] } });

describe("write: cyclic and too deep JSON objects are refused with DEPTH_LIMIT_EXCEEDED", () => {
  const tooDeep = (levels: number, maxDepth: number) =>
    `cannot write alltypes.AllTypes: google.protobuf.Struct at alltypes.AllTypes.wkt_struct(144) nests JSON objects and arrays more than ${levels} deep, past maxDepth ${maxDepth} (each is at least one level; a cyclic object never ends); raise maxDepth or flatten the value`;
  const cases: [string, Json, typeof ser, string][] = [
    ["a cycle through an object", cyclic("object"), ser, tooDeep(99, 100)],
    ["a cycle through an array", cyclic("array"), ser, tooDeep(99, 100)],
    ["three cycles at every level", cyclic("wide"), ser, tooDeep(99, 100)],
    ["objects 200,000 deep", nest(200_000), ser, tooDeep(99, 100)],
    ["objects in arrays 100,000 deep", nest(100_000, true), ser, tooDeep(99, 100)],
    ["one level past what maxDepth 10 allows", nest(10), shallow, tooDeep(9, 10)],
  ];
  test.each(cases)("%s", (_name, json, s, message) => {
    const value = create(AllTypesSchema, { fString: "before", wktStruct: json as JsonObject });
    for (const write of [() => s.toBinary(value), () => s.encode(value), () => s.encodeAll([good, value])]) {
      expect(failure(write)).toEqual({ code: "DEPTH_LIMIT_EXCEEDED", message });
    }
    const out = new FrameWriter();
    expect(() => s.serialize(value, out)).toThrow(CodecError);
    expect(out.length).toBe(0);
    // Nothing left behind: the next write is protobuf-es' own bytes.
    expect(s.toBinary(good)).toEqual(toBinary(AllTypesSchema, good));
  });

  test("within the JSON limit, the writer's own depth check still names the protobuf path", () => {
    // 9 JSON levels fit the conversion under maxDepth 10, not the 3 protobuf levels each takes.
    const e = failure(() => shallow.toBinary(create(AllTypesSchema, { wktStruct: nest(9) as JsonObject })));
    expect(e.code).toBe("DEPTH_LIMIT_EXCEEDED");
    expect(e.message).toMatch(/^cannot write alltypes\.AllTypes: nesting depth 11 at alltypes\.AllTypes\.wkt_struct\(144\)\.fields\(1\)\["k"\]/);
  });

  test("JSON as deep as maxDepth allows writes protobuf-es' bytes and reads back", () => {
    const value = create(AllTypesSchema, { wktStruct: nest(33, false) as JsonObject });
    const bytes = ser.toBinary(value);
    expect(bytes).toEqual(toBinary(AllTypesSchema, value));
    expect(ser.fromBinary(bytes)).toStrictEqual(fromBinary(AllTypesSchema, bytes));
  });
});

describe("the conversions use no recursion", () => {
  test("JSON 200,000 containers deep becomes a Struct message and back", () => {
    const json = nest(100_000, true); // an object and an array per level: 199,999 containers deep
    const msg = structToMessage(json, 1, 199_999);
    expect(() => structToMessage(json, 1, 199_998)).toThrow(StructTooDeep);
    const back = structToLocal(msg);
    let a: unknown = back;
    let b: unknown = json;
    for (let i = 1; i < 100_000; i++) {
      a = ((a as Json).k as unknown[])[0];
      b = ((b as Json).k as unknown[])[0];
    }
    expect(a).toEqual({ leaf: 1 });
    expect(b).toEqual({ leaf: 1 });
  });

  test("key order, __proto__ keys and every JSON kind survive both ways", () => {
    const json = JSON.parse('{"z":1,"a":[true,null,"s",{"__proto__":{"x":[]}}],"__proto__":2.5,"m":{}}') as Json;
    const back = structToLocal(structToMessage(json, 1, 10));
    expect(JSON.stringify(back)).toBe(JSON.stringify(json));
    expect(Object.keys(back)).toEqual(["z", "a", "__proto__", "m"]);
  });
});
