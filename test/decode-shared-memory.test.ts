// Input in a SharedArrayBuffer that another thread writes while it is decoded. The core validates
// its own copy of the input, and a relay (a decoded value written unchanged) and a lazy value
// read the reader's source copy: taken from shared memory one after the other, the two were of
// different bytes. A relay then wrote bytes that disagreed with the value (~10% of decodes of a
// 104-byte input), lazy values held lone surrogates, and the generated kind threw the engine's
// RangeError. Such input is now copied once, privately, before it is read: whatever a decode
// returns is one state of the input, and its relay is that state.
import { create, createFileRegistry, fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { afterEach, describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType, type DynamicInit } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";
import { flipper, type Flipper } from "./support/flipper.js";

const PROTO = `syntax = "proto3";
package shared;
message M { int64 id = 1; string name = 2; bytes data = 3; repeated int32 nums = 4; M child = 5; }
`;
const reg = createFileRegistry(fromBinary(FileDescriptorSetSchema, compileProtoText({ "shared.proto": PROTO })));
const M = reg.getMessage("shared.M")!;

let running: Flipper | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

const ROUNDS = 3000;

// Sizes for each read path: the TypeScript small reader, the core's tape, lazy values.
describe.each([100, 1000, 6000])("a %i-character string rewritten by another thread", (size) => {
  // The input as a Uint8Array and as a Node Buffer over the shared memory (a Buffer's slice() is
  // a view of the same memory, not a copy); read as a bare message and as one frame; with the
  // default settings and with bytes aliased (views of the caller's input).
  test.each([
    ["a Uint8Array", "fromBinary", 0],
    ["a Node Buffer", "fromBinary", 0],
    ["a Uint8Array", "decode", 0],
    ["a Node Buffer", "decode", 0],
    ["a Uint8Array", "fromBinary", 1],
    ["a Node Buffer", "decode", 1],
  ] as const)("a dynamic value's relay is the state it was read from: %s, %s, aliasThreshold %i", async (form, read, aliasThreshold) => {
    const ser = ProtobufType.newBuilder(M).aliasThreshold(aliasThreshold).build().createSerializer();
    // Every mix of the two states is a valid message: only the letters of one string differ.
    const encode = read === "fromBinary" ? (v: DynamicInit) => ser.toBinary(v) : (v: DynamicInit) => ser.encode(v);
    const a = encode({ id: 1n, name: "A".repeat(size), data: new Uint8Array([1, 2]) });
    const b = encode({ id: 1n, name: "B".repeat(size), data: new Uint8Array([1, 2]) });
    running = flipper(a, b);
    const shared = running.input;
    const input = form === "a Node Buffer" ? Buffer.from(shared.buffer, shared.byteOffset, shared.length) : shared;
    let differ = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const v = read === "fromBinary" ? ser.fromBinary(input) : ser.decode(input);
      const relayed = ser.toBinary(v);
      if (ser.fromBinary(relayed).get("name") !== v.get("name")) differ++;
    }
    expect(differ).toBe(0);
  });

  test("values of both kinds read from two different messages are one or the other's, or a typed error", async () => {
    const ser = ProtobufType.of(M).createSerializer();
    const gser = ProtobufType.ofGenerated(M).createSerializer();
    const a = toBinary(M, create(M, { id: 7n, name: "é".repeat(size / 2), data: new Uint8Array(size).fill(1), nums: [1, 2, 3] }));
    const b = toBinary(M, create(M, { child: { name: "x".repeat(size), nums: [-1] }, data: new Uint8Array(5) }));
    running = flipper(a, b);
    const input = running.input;
    // The same memory as a Node Buffer, whose slice() is a view, not a copy.
    const buffer = Buffer.from(input.buffer, input.byteOffset, input.length);
    const wrong: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      for (const read of [() => ser.fromBinary(input), () => gser.fromBinary(input), () => ser.fromBinary(buffer), () => gser.fromBinary(buffer)]) {
        let v: unknown;
        try {
          v = read();
        } catch (e) {
          if (!(e instanceof CodecError)) wrong.push(`untyped ${String(e)}`);
          continue;
        }
        // Its own bytes, read back by protobuf-es, are the value; its strings are well-formed.
        const bytes = v instanceof DynamicMessage ? ser.toBinary(v) : gser.toBinary(v as never);
        const back = fromBinary(M, bytes) as unknown as { name: string; child?: { name: string } };
        const name = back.name + (back.child?.name ?? "");
        if (/[\uD800-\uDFFF]/.test(name.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ""))) wrong.push("a lone surrogate");
        if (v instanceof DynamicMessage ? v.get("name") !== back.name : (v as { name: string }).name !== back.name) wrong.push("relay differs");
      }
    }
    expect(wrong.slice(0, 3)).toEqual([]);
  });
});
