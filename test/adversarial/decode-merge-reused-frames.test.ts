// The tape reader reuses one frame per nesting depth, and a frame remembers, per slot, which oneof
// member each closed singular sub-message set (so that a later occurrence of that field merges
// with last-member-wins). That memory belongs to one message: a frame that closed as a list
// element keeps it, and the next message opened at the same depth must not inherit it. If it did,
// a merge there would clear the slot the earlier message's member had, which in the new message's
// type can be an ordinary field: data silently lost. Each input below first leaves such memory at
// a depth (a list element whose child set a oneof member), then merges two occurrences of a
// singular field at the same depth whose child sets a member, with an ordinary field at the slot
// the stale memory names. Both kinds must read what protobuf-es reads.
import { createFileRegistry, equals, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../../src/index.js";
import { compileProtoText } from "../support/buf.js";
import { ld } from "./support.js";

const set = compileProtoText({
  "reuse.proto": `syntax = "proto3";
package adv;
// Members at slots 0-2: a3 set leaves "slot 2 is the member" behind.
message A { oneof o { int32 a1 = 1; int32 a2 = 2; int32 a3 = 3; } }
// Ordinary fields at slots 0-2, then the oneof.
message B { int32 keep1 = 1; int32 keep2 = 2; int32 keep3 = 3; oneof o { int32 b1 = 4; int32 b2 = 5; } }
message HolderA { A a = 1; }
message HolderB { B b = 1; }
message Root { repeated HolderA list = 1; HolderB single = 2; repeated Root more = 3; }`,
});
const reg = createFileRegistry(fromBinary(FileDescriptorSetSchema, set));
const Root = reg.getMessage("adv.Root") as DescMessage;
const ser = ProtobufType.of(Root).createSerializer();
const gen = ProtobufType.ofGenerated(Root).createSerializer();

const holderA = (a3: number): number[] => ld(1, ld(1, [0x18, a3]));
// single { b { keep3: v } } and single { b { b1: v } }: two occurrences that merge.
const singleKeep3 = (v: number): number[] => ld(2, ld(1, [0x18, v]));
const singleB1 = (v: number): number[] => ld(2, ld(1, [0x20, v]));

// The memory goes stale only when the merging occurrence is reopened without memory of its own:
// its first occurrence set no member (nothing to remember), and a list element at its depth set
// one in between.
const CASES: [string, number[]][] = [
  ["a first occurrence, a list element between, the second occurrence", [...singleKeep3(9), ...holderA(5), ...singleB1(1)]],
  ["two list elements between, then a third occurrence", [...singleKeep3(9), ...holderA(5), ...holderA(6), ...singleB1(1), ...ld(2, ld(1, [0x10, 4]))]],
  ["one level down, inside a repeated Root", ld(3, [...singleKeep3(9), ...holderA(5), ...singleB1(1)])],
  ["list elements before and between", [...holderA(4), ...singleKeep3(9), ...holderA(5), ...singleB1(1)]],
];

describe("a frame reused at the same depth does not inherit the last message's merge memory", () => {
  test.each(CASES)("%s: both kinds read what protobuf-es reads", (_name, wire) => {
    const bytes = Uint8Array.from(wire);
    const expected = fromBinary(Root, bytes);
    // The ordinary field the stale memory would clear survives the merge.
    type Es = { single?: { b?: { keep3: number; o: { case?: string } } }; more: Es[] };
    const es = expected as unknown as Es;
    const single = (es.single ?? es.more[0]?.single)!;
    expect(single.b?.keep3).toBe(9);
    expect(single.b?.o.case).toBe("b1");
    const ours = ser.fromBinary(bytes);
    expect(ours.equals(ser.fromBinary(toBinary(Root, expected)))).toBe(true);
    expect(ser.toBinary(ours)).toEqual(bytes);
    const oursGen = gen.fromBinary(bytes);
    expect(equals(Root, oursGen, expected)).toBe(true);
    // Framed, and in a batch after other frames (decodeAll reads them with one walk).
    const frame = ser.encode(DynamicMessage.create(Root, {}));
    const all = ser.decodeAll(Uint8Array.from([...frame, ...ser.encode(ours), ...frame]));
    expect(all[1]!.equals(ours)).toBe(true);
  });
});
