// Malformed input through the serializer: every failure is a CodecError with a path and, where
// known, the byte offset; never another exception, never a hang, never a partial value.
import { fromBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, FrameReader, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();

function codecError(fn: () => unknown): CodecError {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof CodecError)) throw e;
    return e;
  }
  throw new Error("expected a CodecError");
}

const sample = DynamicMessage.create(All, {
  f_int64: -5n,
  f_string: "héllo",
  f_message: { name: "leaf", value: 3 },
  r_sint64: [1n, -2n, 3n],
  r_message: [{ name: "a" }, { name: "b" }],
  m_string: { k: "v" },
  c_bytes: new Uint8Array([1, 2, 3]),
  f_max_number: "z",
});
const frame = ser.encode(sample);
const bare = ser.toBinary(sample);

describe("truncations", () => {
  test("every proper prefix of a frame is a CodecError", () => {
    for (let n = 0; n < frame.length; n++) {
      const prefix = frame.subarray(0, n);
      if (n === 0) {
        expect(codecError(() => ser.decode(prefix)).code).toBe("NOT_ONE_FRAME");
        continue;
      }
      const e = codecError(() => ser.decode(prefix));
      expect(e.code).toMatch(/^(FRAME_TRUNCATED|TRUNCATED|LENGTH_PAST_END)$/);
      expect(e.offset).toBeTypeOf("number");
      expect(codecError(() => ser.deserialize(new FrameReader(prefix))).code).toMatch(/TRUNCATED/);
    }
  });

  test("every proper prefix of a bare message either decodes to a prefix of fields or is a CodecError", () => {
    for (let n = 0; n < bare.length; n++) {
      try {
        const v = ser.fromBinary(bare.subarray(0, n));
        expect(v.descriptor).toBe(All);
      } catch (e) {
        expect(e).toBeInstanceOf(CodecError);
        expect((e as CodecError).path).toMatch(/^alltypes\.AllTypes/);
      }
    }
  });

  test("a batch with a truncated last frame fails as a whole", () => {
    const two = ser.encodeAll([sample, sample]);
    const e = codecError(() => ser.decodeAll(two.subarray(0, two.length - 1)));
    expect(e.code).toBe("FRAME_TRUNCATED");
    expect(e.offset).toBe(frame.length);
  });

  test("trailing bytes after one frame", () => {
    const extra = new Uint8Array([...frame, 0x00]);
    expect(codecError(() => ser.decode(extra)).code).toMatch(/^(NOT_ONE_FRAME|FRAME_TRUNCATED)$/);
  });
});

describe("hostile bytes", () => {
  test("random bytes never throw anything but CodecError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        for (const op of [() => ser.fromBinary(bytes), () => ser.decodeAll(bytes)]) {
          try {
            op();
          } catch (e) {
            expect(e).toBeInstanceOf(CodecError);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });

  test("single-byte corruptions of a valid message never throw anything but CodecError", () => {
    for (let i = 0; i < bare.length; i++) {
      for (const b of [0x00, 0x07, 0x80, 0xff]) {
        const c = bare.slice();
        c[i] = b;
        try {
          ser.fromBinary(c);
        } catch (e) {
          expect(e).toBeInstanceOf(CodecError);
        }
      }
    }
  });

  test("a nesting bomb stops at maxDepth", () => {
    // field 122 (recursive), length-delimited, nested 10,000 times: each level adds 3+ bytes.
    let body = new Uint8Array(0);
    for (let i = 0; i < 10_000; i++) {
      const len = body.length;
      const prefix: number[] = [0xd2, 0x07];
      let v = len;
      while (v > 0x7f) {
        prefix.push((v & 0x7f) | 0x80);
        v >>>= 7;
      }
      prefix.push(v);
      const next = new Uint8Array(prefix.length + len);
      next.set(prefix);
      next.set(body, prefix.length);
      body = next;
    }
    const e = codecError(() => ser.fromBinary(body));
    expect(e.code).toBe("DEPTH_LIMIT_EXCEEDED");
    expect(e.path).toBe(`alltypes.AllTypes${".recursive(122)".repeat(100)}`);
  });

  test("invalid UTF-8 in a string field", () => {
    const bytes = new Uint8Array([0x4a, 0x02, 0xc3, 0x28]); // f_string = C3 28
    const e = codecError(() => ser.fromBinary(bytes));
    expect(e.code).toBe("INVALID_UTF8");
    expect(e.offset).toBe(2);
    expect(e.path).toBe("alltypes.AllTypes.f_string(9)");
  });

  test("a field number above 536,870,911", () => {
    const bytes = new Uint8Array([0x80, 0x80, 0x80, 0x80, 0x20, 0x00]); // field 536870912, varint
    const e = codecError(() => ser.fromBinary(bytes));
    expect(e.code).toBe("FIELD_NUMBER_TOO_LARGE");
    expect(e.offset).toBe(0);
  });

  test("a group (wire type 3) is rejected", () => {
    expect(codecError(() => ser.fromBinary(new Uint8Array([0xfb, 0x07]))).code).toMatch(/WIRE_TYPE/);
  });

  test("a frame over maxMessageBytes is refused from its prefix", () => {
    const small = ProtobufType.newBuilder(All).maxMessageBytes(10).build().createSerializer();
    const e = codecError(() => small.decode(frame));
    expect(e.code).toBe("FRAME_TOO_LARGE");
    const reader = new FrameReader(frame);
    expect(codecError(() => small.deserialize(reader)).code).toBe("FRAME_TOO_LARGE");
    expect(reader.position).toBe(0);
  });
});

describe("aliasing", () => {
  test("bytes of at least aliasThreshold bytes are views into the input; shorter ones are copies", () => {
    const T = ProtobufType.newBuilder(All).aliasThreshold(4).build();
    const s = T.createSerializer();
    // A buffer of its own (outputs are cut from a shared slab).
    const input = new Uint8Array(s.toBinary(DynamicMessage.create(All, { f_bytes: new Uint8Array([1, 2, 3, 4, 5]), o_bytes: new Uint8Array([9]) })));
    const v = s.fromBinary(input);
    const big = v.get("f_bytes") as Uint8Array;
    const small = v.get("o_bytes") as Uint8Array;
    expect(big.buffer).toBe(input.buffer);
    expect(small.buffer).not.toBe(input.buffer);
    // Default settings never alias.
    expect((ser.fromBinary(input).get("f_bytes") as Uint8Array).buffer).not.toBe(input.buffer);
  });
});

// The generated kind reads with the same core and must fail alike: for every input below, the
// dynamic kind's error (code, message, path, offset), or, where that reads, protobuf-es' value.
describe("the generated kind: the same inputs, the same errors, protobuf-es' values", () => {
  const gen = ProtobufType.ofGenerated(All).createSerializer();
  type Op = "fromBinary" | "decode" | "decodeAll" | "validate" | "deserialize";
  const dynOps: Record<Op, (b: Uint8Array) => unknown> = {
    fromBinary: (b) => ser.fromBinary(b),
    decode: (b) => ser.decode(b),
    decodeAll: (b) => ser.decodeAll(b),
    validate: (b) => ser.validate(b),
    deserialize: (b) => ser.deserialize(new FrameReader(b)),
  };
  const genOps: Record<Op, (b: Uint8Array) => unknown> = {
    fromBinary: (b) => gen.fromBinary(b),
    decode: (b) => gen.decode(b),
    decodeAll: (b) => gen.decodeAll(b),
    validate: (b) => gen.validate(b),
    deserialize: (b) => gen.deserialize(new FrameReader(b)),
  };
  const run = (f: () => unknown): { value: unknown } | { error: string } => {
    try {
      return { value: f() };
    } catch (e) {
      if (!(e instanceof CodecError)) throw e;
      return { error: JSON.stringify([e.code, e.message, e.path, e.offset]) };
    }
  };
  const det = ProtobufType.newBuilder(All).deterministic(true).build().createSerializer();
  /**
   * protobuf-es' value of `bytes`, which the dynamic kind read as `v`. A tag written in more than
   * 5 bytes is a legal non-minimal varint (protokeel reads it, as protobuf C++ and upb do) that
   * protobuf-es refuses; then `v` re-encoded. (Relayed values are re-encoded for the same reason.)
   */
  const esOf = (bytes: Uint8Array, v: DynamicMessage): unknown => {
    try {
      return fromBinary(All, bytes);
    } catch (e) {
      if (!String(e).includes("varint overflows uint32")) throw e;
      return esOfValue(v);
    }
  };
  /**
   * protobuf-es' value of `v` re-encoded. Deterministic output writes unknown fields as stored,
   * tag included, so a long tag there still reaches protobuf-es (decode-malformed's seed
   * -1886356136): then the generated kind, which reads it, makes protobuf-es' value.
   */
  const esOfValue = (v: DynamicMessage): unknown => {
    const b = det.toBinary(v);
    try {
      return fromBinary(All, b);
    } catch (e) {
      if (!String(e).includes("varint overflows uint32")) throw e;
      return gen.fromBinary(b);
    }
  };
  /** Mismatches of `op` on `bytes` between the kinds, as text (empty when they agree). */
  function differences(op: Op, bytes: Uint8Array): string[] {
    const d = run(() => dynOps[op](bytes));
    const g = run(() => genOps[op](bytes));
    if ("error" in d || "error" in g) return "error" in d && "error" in g && d.error === g.error ? [] : [`${op} ${Buffer.from(bytes).toString("hex")}: ${JSON.stringify(d)} vs ${JSON.stringify(g)}`];
    if (op === "fromBinary") expect(g.value).toEqual(esOf(bytes, d.value as DynamicMessage));
    // Frames: each value as protobuf-es reads the dynamic kind's bytes of the same frame.
    if (op === "decodeAll") (d.value as DynamicMessage[]).forEach((v, i) => expect((g.value as unknown[])[i]).toEqual(esOfValue(v)));
    return [];
  }

  test("every proper prefix of a frame and of a bare message, a batch cut, trailing bytes", () => {
    const wrong: string[] = [];
    for (let n = 0; n < frame.length; n++) for (const op of ["decode", "deserialize", "decodeAll"] as const) wrong.push(...differences(op, frame.subarray(0, n)));
    for (let n = 0; n < bare.length; n++) for (const op of ["fromBinary", "validate"] as const) wrong.push(...differences(op, bare.subarray(0, n)));
    const two = ser.encodeAll([sample, sample]);
    wrong.push(...differences("decodeAll", two.subarray(0, two.length - 1)));
    wrong.push(...differences("decode", new Uint8Array([...frame, 0x00])));
    // The wrong form: a frame to fromBinary, a bare message to decode (the errors carry a hint).
    wrong.push(...differences("fromBinary", frame), ...differences("decode", bare), ...differences("decodeAll", bare));
    expect(wrong).toEqual([]);
  });

  test("random bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect([...differences("fromBinary", bytes), ...differences("decodeAll", bytes)]).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  test("single-byte corruptions of a valid message", () => {
    const wrong: string[] = [];
    for (let i = 0; i < bare.length; i++) {
      for (const b of [0x00, 0x07, 0x80, 0xff]) {
        const c = bare.slice();
        c[i] = b;
        wrong.push(...differences("fromBinary", c));
      }
    }
    expect(wrong).toEqual([]);
  });

  test.each([
    ["invalid UTF-8", [0x4a, 0x02, 0xc3, 0x28]],
    ["a field number above 536,870,911", [0x80, 0x80, 0x80, 0x80, 0x20, 0x00]],
    ["a group", [0xfb, 0x07]],
    ["a tag in 8 bytes (legal; protobuf-es refuses it)", [0xb1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 40, 172, 2, 74, 11, 104, 195, 169]],
  ])("%s", (_name, bytes) => {
    expect(differences("fromBinary", Uint8Array.from(bytes))).toEqual([]);
  });

  test("a nesting bomb stops at maxDepth with the same error", () => {
    let body: number[] = [];
    for (let i = 0; i < 200; i++) body = [0xd2, 0x07, ...(body.length > 0x7f ? [(body.length & 0x7f) | 0x80, body.length >>> 7] : [body.length]), ...body];
    expect(differences("fromBinary", Uint8Array.from(body))).toEqual([]);
    expect(run(() => gen.fromBinary(Uint8Array.from(body)))).toMatchObject({ error: expect.stringContaining("DEPTH_LIMIT_EXCEEDED") });
  });

  test("a frame over maxMessageBytes is refused from its prefix; the reader does not move", () => {
    const small = ProtobufType.newGeneratedBuilder(All).maxMessageBytes(10).build().createSerializer();
    const dyn = ProtobufType.newBuilder(All).maxMessageBytes(10).build().createSerializer();
    const [g, d] = [codecError(() => small.decode(frame)), codecError(() => dyn.decode(frame))];
    expect([g.code, g.message, g.offset]).toEqual([d.code, d.message, d.offset]);
    const reader = new FrameReader(frame);
    expect(codecError(() => small.deserialize(reader)).code).toBe("FRAME_TOO_LARGE");
    expect(reader.position).toBe(0);
  });

  test("bytes of at least aliasThreshold bytes are views into the input; shorter ones are copies", () => {
    const s = ProtobufType.newGeneratedBuilder(All).aliasThreshold(4).build().createSerializer();
    const input = new Uint8Array(ser.toBinary(DynamicMessage.create(All, { f_bytes: new Uint8Array([1, 2, 3, 4, 5]), o_bytes: new Uint8Array([9]) })));
    const v = s.fromBinary(input) as unknown as { fBytes: Uint8Array; oBytes: Uint8Array };
    expect(v.fBytes.buffer).toBe(input.buffer);
    expect(v.oBytes.buffer).not.toBe(input.buffer);
    expect((gen.fromBinary(input) as unknown as { fBytes: Uint8Array }).fBytes.buffer).not.toBe(input.buffer);
  });
});
