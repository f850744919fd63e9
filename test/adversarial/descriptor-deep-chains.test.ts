// Chains of message types T0 → T1 → … (hardening, descriptors items 3 and 5): top-level, as one
// recursive cycle, across files and packages, and nested. No pass may recurse along a chain, and
// a failure leaves nothing behind that changes the next call. Correctness at these sizes, never
// time: the machine is shared.
import { describe, expect, test } from "vitest";
import protobuf from "protobufjs";
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { ProtobufType, evaluateSchemaChange } from "../../src/index.js";
import { bytesOf, chain, chainFiles, messageOf, nestedChain } from "../../stress/schemas.mjs";
import { expectRoundTrips } from "./support/round-trip.js";

const UINT32 = 13;

/** The path of `v(1)` in the last of `n` chained types. */
const lastValuePath = (n: number): string => `s.T0${".next(2)".repeat(n - 1)}.v(1)`;

const typeChanged = (path: string) => ({
  rule: "FIELD_TYPE_CHANGED",
  path,
  message: `field ${path} changed type from int32 to uint32: both use the varint wire type, so saved values parse, but the sign changes meaning (a negative value reads as a large unsigned number); keep int32 or add a new field with a new number instead (and reserve this one)`,
});

function filesOf(t: ProtobufType) {
  return fromBinary(FileDescriptorSetSchema, t.normalizedDescriptorSet()).file;
}

describe("a chain of 10,000 top-level types", () => {
  const N = 10_000;
  const saved = messageOf(chain(N), "s.T0");
  const type = ProtobufType.of(saved);

  test("normalizes into one file per type, the last type's file first", () => {
    const files = filesOf(type);
    expect(files.length).toBe(N);
    expect(files[0]!.name).toBe(`s.T${N - 1}.proto`);
    expect(files[0]!.dependency).toEqual([]);
    expect(files[N - 1]!.name).toBe("s.T0.proto");
    expect(files[N - 1]!.dependency).toEqual(["s.T1.proto"]);
  });

  test("evaluates to one finding at the end of a 10,000-long path", () => {
    expect(evaluateSchemaChange(saved, messageOf(chain(N, { variant: "current" }), "s.T0"))).toEqual({
      compatible: false,
      incompatibilities: [typeChanged(lastValuePath(N))],
      notes: [],
    });
  });

  test("findings come root first, then by field number, depth first", () => {
    const current = chain(N);
    const changed = [0, 2_500, 5_000, 9_999];
    for (const i of changed) current.file[0]!.messageType[i]!.field[0]!.type = UINT32;
    const result = evaluateSchemaChange(saved, messageOf(current, "s.T0"));
    expect(result.incompatibilities).toEqual(changed.map((i) => typeChanged(lastValuePath(i + 1))));
  });

  test("round-trips through the transfer form and a snapshot", () => {
    expectRoundTrips(type);
  });
});

describe("a cycle of 10,000 mutually recursive types", () => {
  const N = 10_000;
  const saved = messageOf(chain(N, { cycle: true }), "s.T0");
  const type = ProtobufType.of(saved);

  test("normalizes into one file named after its smallest name, messages by name", () => {
    const files = filesOf(type);
    expect(files.map((f) => f.name)).toEqual(["s.T0.proto"]);
    const names = files[0]!.messageType.map((m) => m.name);
    expect(names.length).toBe(N);
    expect(names.slice(0, 4)).toEqual(["T0", "T1", "T10", "T100"]);
  });

  test("evaluates once per pair: one finding, then the cycle closes", () => {
    const result = evaluateSchemaChange(saved, messageOf(chain(N, { cycle: true, variant: "current" }), "s.T0"));
    expect(result.incompatibilities).toEqual([typeChanged(lastValuePath(N))]);
  });

  test("round-trips through the transfer form and a snapshot", () => {
    expectRoundTrips(type);
  });
});

describe("a chain across 10,000 files and packages", () => {
  const N = 10_000;
  test.each(["dependencies-first", "dependents-first"] as const)("listed %s, it builds one identical type", (order) => {
    const type = ProtobufType.of({ fileDescriptorSet: bytesOf(chainFiles(N, { order })), messageName: "p0.T" });
    const reference = ProtobufType.of(messageOf(chainFiles(N), "p0.T"));
    expect(type.equals(reference)).toBe(true);
    expect(filesOf(type).length).toBe(N);
  });

  test.each<[string, (files: ReturnType<typeof chainFiles>["file"]) => void, string, string]>([
    [
      "a missing import",
      (files) => {
        files.splice(N - 1, 1); // dependents first: the last file is p9999/t.proto
      },
      "UNRESOLVED_TYPE",
      `invalid descriptor p0.T: the file descriptor set does not resolve (Cannot find p${N - 1}/t.proto, imported by p${N - 2}/t.proto); include every imported file (protoc --include_imports)`,
    ],
    [
      "an import cycle through every file",
      (files) => {
        files[N - 1]!.dependency = ["p0/t.proto"];
      },
      "DESCRIPTOR_SET_INVALID",
      `invalid descriptor p0.T: file p${N - 1}/t.proto imports p0/t.proto, which imports it back (directly or through other files); protobuf forbids import cycles, pass the set that protoc or buf wrote`,
    ],
  ])("%s fails exactly, and again on a second call", (_name, breakIt, code, message) => {
    const set = chainFiles(N, { order: "dependents-first" });
    breakIt(set.file);
    const input = { fileDescriptorSet: bytesOf(set), messageName: "p0.T" };
    const expected = expect.objectContaining({ name: "InvalidDescriptorError", code, message });
    expect(() => ProtobufType.of(input)).toThrow(expected);
    expect(() => ProtobufType.of(input)).toThrow(expected);
  });
});

describe("nested chains", () => {
  // A message inside 98 messages is at decode level 101: protoc and @bufbuild/protobuf stop at 100.
  const tooDeep = (root: string, depth: number) =>
    expect.objectContaining({
      name: "InvalidDescriptorError",
      code: "NESTING_TOO_DEEP",
      message: `invalid descriptor ${root}: message s${".N".repeat(depth + 1)} is nested ${depth} levels deep, above 97; protoc and @bufbuild/protobuf read a descriptor set only to 100 levels of nesting, so this schema could never be read back; declare it at top level or nearer to it`,
    });

  test("1,200 levels (a DescMessage) fail at the first type past 97, every time, and other types still build", () => {
    const deep = messageOf(nestedChain(1_200), "s.N");
    expect(() => ProtobufType.of(deep)).toThrow(tooDeep("s.N", 98));
    expect(() => evaluateSchemaChange(deep, deep)).toThrow(tooDeep("s.N", 98));
    expect(() => ProtobufType.of(deep)).toThrow(tooDeep("s.N", 98));
    expect(ProtobufType.of(messageOf(chain(1_200), "s.T0")).fullName).toBe("s.T0");
  });

  test("a root nested 1,199 levels deep fails at the root itself", () => {
    const set = nestedChain(1_200);
    const name = `s${".N".repeat(1_200)}`;
    const root = messageOf(set, name);
    expect(() => ProtobufType.of(root)).toThrow(
      expect.objectContaining({
        code: "NESTING_TOO_DEEP",
        message: `invalid descriptor ${name.slice(0, 120)}…(${name.length} chars): message ${name.slice(0, 120)}…(${name.length} chars) is nested 1199 levels deep, above 97; protoc and @bufbuild/protobuf read a descriptor set only to 100 levels of nesting, so this schema could never be read back; declare it at top level or nearer to it`,
      }),
    );
  });

  test("1,200 levels of protobufjs types fail the same way before any registry is built", () => {
    const root = new protobuf.Root();
    const ns = root.define("s");
    const top = new protobuf.Type("N");
    ns.add(top);
    let at = top;
    for (let i = 0; i < 1_200; i++) {
      const inner = new protobuf.Type("N");
      at.add(inner);
      at.add(new protobuf.Field("next", 1, "N"));
      at = inner;
    }
    at.add(new protobuf.Field("v", 1, "int32"));
    expect(() => ProtobufType.of(top)).toThrow(tooDeep("s.N", 98));
    expect(() => ProtobufType.of(top)).toThrow(tooDeep("s.N", 98));
  });

  test("1,200 levels of encoded FileDescriptorSet stop at the decoder's limit", () => {
    const tagged = (field: number, body: number[]): number[] => {
      const out = [(field << 3) | 2];
      let n = body.length;
      for (; n > 0x7f; n >>>= 7) out.push((n & 0x7f) | 0x80);
      out.push(n);
      return out.concat(body);
    };
    let message = tagged(1, [0x4e]); // DescriptorProto { name: "N" }
    for (let i = 0; i < 1_200; i++) message = tagged(1, [0x4e]).concat(tagged(3, message));
    const set = Uint8Array.from(tagged(1, tagged(2, [0x73]).concat(tagged(4, message)))); // file { package: "s" }
    expect(() => ProtobufType.of({ fileDescriptorSet: set, messageName: "s.N" })).toThrow(
      expect.objectContaining({
        code: "DESCRIPTOR_SET_INVALID",
        message:
          "invalid descriptor s.N: the file descriptor set does not decode (cannot decode message google.protobuf.DescriptorProto from binary: maximum recursion depth of 100 reached); pass the bytes written by protoc --descriptor_set_out or buf build",
      }),
    );
  });

  test("at the limit: 96 levels with a field build and round-trip, 97 fail at the rebuild, 98 by rule", () => {
    expectRoundTrips(ProtobufType.of(messageOf(nestedChain(96), "s.N")));
    expect(() => ProtobufType.of(messageOf(nestedChain(97), "s.N"))).toThrow(
      expect.objectContaining({
        code: "REBUILD_FAILED",
        message:
          "invalid descriptor s.N: the descriptor set does not decode (cannot decode message google.protobuf.FieldDescriptorProto from binary: maximum recursion depth of 100 reached)",
      }),
    );
    expect(() => ProtobufType.of(messageOf(nestedChain(98), "s.N"))).toThrow(tooDeep("s.N", 98));
  });
});
