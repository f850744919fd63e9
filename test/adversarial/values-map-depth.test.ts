// Hardening item 10: a map entry is a nesting level in both directions. The writer did not count
// it while the reader did, so with maxDepth(2) a serializer wrote Holder{ map<string, Leaf> }
// values that it then refused to read.
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../../src/index.js";
import { pbjsType } from "./support.js";

const SCHEMA = `message Leaf { int32 x = 1; } message Holder { map<string, Leaf> leaves = 1; map<string, int32> counts = 2; Leaf one = 3; }`;
const Holder = pbjsType(SCHEMA, "Holder");

function codecError(fn: () => unknown): CodecError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    return e as CodecError;
  }
  throw new Error("expected a CodecError");
}

describe("a map entry counts as a level, writing and reading", () => {
  test.each([
    // value, the least maxDepth that reads and writes it
    [{ one: { x: 1 } }, 2],
    [{ counts: { a: 1 } }, 2],
    [{ leaves: { a: { x: 1 } } }, 3],
  ])("%j needs maxDepth %i", (init, least) => {
    for (let maxDepth = 1; maxDepth <= 4; maxDepth++) {
      const type = ProtobufType.newBuilder(Holder).maxDepth(maxDepth).build();
      const ser = type.createSerializer();
      const loose = ProtobufType.newBuilder(Holder).maxDepth(10).build().createSerializer();
      const value = DynamicMessage.create(type.descriptor, init);
      const bytes = loose.toBinary(DynamicMessage.create(loose.type.descriptor, init));
      if (maxDepth >= least) {
        expect(ser.fromBinary(ser.toBinary(value)).equals(value)).toBe(true);
        expect(ser.fromBinary(bytes).toObject()).toEqual(value.toObject());
      } else {
        const w = codecError(() => ser.toBinary(value));
        const r = codecError(() => ser.fromBinary(bytes));
        expect(w.code).toBe("DEPTH_LIMIT_EXCEEDED");
        expect(r.code).toBe("DEPTH_LIMIT_EXCEEDED");
        expect(() => ser.validate(bytes)).toThrow(CodecError);
      }
    }
  });

  test("the write error names the map field and the limit", () => {
    const ser = ProtobufType.newBuilder(Holder).maxDepth(1).build().createSerializer();
    const e = codecError(() => ser.toBinary(DynamicMessage.create(ser.type.descriptor, { counts: { a: 1 } })));
    expect(e.message).toBe(
      "cannot write Holder: nesting depth 2 at Holder.counts(2) exceeds maxDepth 1 (a map entry counts as a level); raise maxDepth or flatten the value",
    );
    const two = ProtobufType.newBuilder(Holder).maxDepth(2).build().createSerializer();
    const e2 = codecError(() => two.toBinary(DynamicMessage.create(two.type.descriptor, { leaves: { k: { x: 1 } } })));
    expect(e2.message).toBe(
      'cannot write Holder: nesting depth 3 at Holder.leaves(1)["k"] exceeds maxDepth 2 (a map entry counts as a level); raise maxDepth or flatten the value',
    );
  });

  test("a decoded value relayed under a smaller maxDepth is checked with the same count", () => {
    const loose = ProtobufType.newBuilder(Holder).maxDepth(10).build().createSerializer();
    const decoded = loose.fromBinary(loose.toBinary(DynamicMessage.create(loose.type.descriptor, { leaves: { a: { x: 1 } } })));
    expect(loose.toBinary(decoded).length).toBeGreaterThan(0);
    const tight = ProtobufType.newBuilder(loose.type.descriptor).maxDepth(2).build().createSerializer();
    expect(codecError(() => tight.toBinary(decoded)).code).toBe("DEPTH_LIMIT_EXCEEDED");
  });
});

describe("the generated kind counts the same levels", () => {
  test.each([
    [{ one: { x: 1 } }, 2],
    [{ counts: { a: 1 } }, 2],
    [{ leaves: { a: { x: 1 } } }, 3],
  ])("%j needs maxDepth %i", (init, least) => {
    const desc = ProtobufType.of(Holder).descriptor;
    const value = create(desc, init as never);
    const bytes = toBinary(desc, value);
    for (let maxDepth = 1; maxDepth <= 4; maxDepth++) {
      const ser = ProtobufType.newGeneratedBuilder(desc).maxDepth(maxDepth).build().createSerializer();
      if (maxDepth >= least) {
        expect(ser.toBinary(value)).toEqual(bytes);
        expect(ser.fromBinary(bytes)).toEqual(value);
      } else {
        expect(codecError(() => ser.toBinary(value)).code).toBe("DEPTH_LIMIT_EXCEEDED");
        expect(codecError(() => ser.fromBinary(bytes)).code).toBe("DEPTH_LIMIT_EXCEEDED");
      }
    }
  });
});
