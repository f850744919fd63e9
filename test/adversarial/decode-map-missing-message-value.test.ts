// A map entry without its value reads as the value type's zero; for a message value that is the
// value type's default instance, a message one level below the entry. The decoded value's nesting
// height (the writer's memo, read-plan.ts `accepted`) did not count that level on any read path
// (TypeScript reader, core tape, lazy validate, batches): a serializer with maxDepth 2 read
// `m { key: 1 }` (depth 2 on the wire), and then wrote the value as `m { key: 1, value: {} }`
// (depth 3) without a DEPTH_LIMIT_EXCEEDED, bytes that the same serializer refuses to read. The
// same content built by create is refused with maxDepth 2, as it must be (a map entry counts as a
// level, docs/design.md §5). Deterministic output depends on content only: the decoded value and
// its equal fresh copy must get the same verdict.
import { afterEach, describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType, type ProtobufSerializer } from "../../src/index.js";
import { setLazyDecodeThreshold, setSmallDecodeThreshold } from "../../src/codec/reader.js";
import { ld, tag, typeOf, varint } from "./support.js";

const SCHEMA = `message Inner { int32 a = 1; }
message M { map<int32, Inner> m = 1; map<string, Inner> s = 2; }
message Outer { M mm = 1; }`;
const outerType = typeOf(SCHEMA, "Outer");
const M = outerType.descriptor.fields[0]!.message!;
const Outer = outerType.descriptor;
const serOf = (maxDepth: number, deterministic = false): ProtobufSerializer =>
  ProtobufType.newBuilder(M).maxDepth(maxDepth).deterministic(deterministic).build().createSerializer();

const depthError = (key: number): string =>
  `DEPTH_LIMIT_EXCEEDED: cannot write M: nesting depth 3 at M.m(1)[${key}] exceeds maxDepth 2 (a map entry counts as a level); raise maxDepth or flatten the value`;

// Entries of M.m without a value: key only, nothing at all, key twice, an unknown field instead.
// [name, body of M, the entry's key]
const INPUTS: [string, number[], number][] = [
  ["key only", ld(1, [...tag(1, 0), 1]), 1],
  ["empty entry", ld(1, []), 0],
  ["key twice", ld(1, [...tag(1, 0), 1, ...tag(1, 0), 1]), 1],
  ["key and an unknown field", ld(1, [...tag(1, 0), 1, ...tag(9, 0), 5]), 1],
];

const PATHS: [string, number, number][] = [
  ["TypeScript reader", Infinity, Infinity],
  ["core", 0, Infinity],
  ["lazy", 0, 0],
];

let restore: (() => void) | undefined;
afterEach(() => restore?.());
function paths(small: number, lazy: number): void {
  const s = setSmallDecodeThreshold(small);
  const l = setLazyDecodeThreshold(lazy);
  restore = () => {
    setSmallDecodeThreshold(s);
    setLazyDecodeThreshold(l);
  };
}

function thrown(f: () => unknown): string {
  try {
    f();
    return "no error";
  } catch (e) {
    return e instanceof CodecError ? `${e.code}: ${e.message}` : String(e);
  }
}

describe.each(PATHS)("%s", (_path, small, lazy) => {
  test.each(INPUTS)("%s: a deterministic maxDepth-2 write refuses the decoded value as it refuses its equal fresh copy", (_name, body, key) => {
    paths(small, lazy);
    const ser = serOf(2, true);
    const input = Uint8Array.from(body);
    const v = ser.fromBinary(input);
    const fresh = DynamicMessage.create(M, v.toObject() as never);
    expect(v.equals(fresh)).toBe(true);
    expect(thrown(() => ser.toBinary(fresh))).toBe(depthError(key));
    // Fails now: writes 0a0408011200 (depth 3), which ser.fromBinary refuses.
    expect(thrown(() => ser.toBinary(v))).toBe(depthError(key));
  });

  test.each(INPUTS)("%s: a nested decoded value (no source bytes to relay) is refused by a maxDepth-2 writer", (_name, body, key) => {
    paths(small, lazy);
    const outer = ProtobufType.newBuilder(Outer).maxDepth(3).build().createSerializer();
    const mm = outer.fromBinary(Uint8Array.from(ld(1, body))).get("mm") as DynamicMessage;
    // Fails now: the trusted write emits 0a0408011200, depth 3.
    expect(thrown(() => serOf(2).toBinary(mm))).toBe(depthError(key));
  });
});

test.each(INPUTS)("decodeAll (both batch paths) %s: no maxDepth-2 write emits bytes that maxDepth 2 refuses", (_name, body) => {
  for (const small of [Infinity, 0]) {
    paths(small, Infinity);
    const ser = serOf(2, true);
    const frame = Uint8Array.from([...varint(body.length), ...body]);
    const [v] = ser.decodeAll(Uint8Array.from([...frame, ...frame]));
    let out: Uint8Array | undefined;
    try {
      out = ser.toBinary(v!);
    } catch (e) {
      expect((e as CodecError).code).toBe("DEPTH_LIMIT_EXCEEDED");
    }
    if (out !== undefined) expect(thrown(() => ser.fromBinary(out))).toBe("no error");
  }
});
