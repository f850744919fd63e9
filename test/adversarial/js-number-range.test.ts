// 64-bit fields with [jstype = JS_NUMBER] are held as JS numbers, which hold every integer only up
// to ±(2^53 − 1). Found by the random-schema corrupt-input property (differential-random-schema,
// seed 4243 with PROTOKEEL_RUNS_SCALE=5): a wire value beyond that decoded to a rounded number,
// validate() accepted it, and a relay wrote the rounded value back (uint64 2^64 − 1 came back as
// 10 00, a zero). The bytes are valid protobuf (writers that ignore jstype write such values), so
// the rule is: such a value is refused with UNSAFE_INTEGER, identically by validate, fromBinary
// (eager and lazy), decode and the frame readers, at the same offset; every value within the range
// reads back exactly; the serializer works afterwards.
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../../src/index.js";
import { ld, pbjsType, tag, varint } from "./support.js";

const type = ProtobufType.of(
  pbjsType(
    `message M {
      int64 n = 1 [jstype = JS_NUMBER];
      uint64 u = 2 [jstype = JS_NUMBER];
      repeated sint64 r = 3 [jstype = JS_NUMBER];
      fixed64 f = 4 [jstype = JS_NUMBER];
      sfixed64 sf = 5 [jstype = JS_NUMBER];
      repeated fixed64 rf = 6 [jstype = JS_NUMBER];
      int64 big = 7;
      map<string, int64> m = 8;
      bytes pad = 9;
    }`,
    "M",
  ),
);
const ser = type.createSerializer();
const det = ProtobufType.newBuilder(type.descriptor).deterministic(true).build().createSerializer();

const SAFE = 2n ** 53n - 1n;
const u64 = (v: bigint) => BigInt.asUintN(64, v);
const zigzag = (v: bigint) => u64((v << 1n) ^ (v >> 63n));
const fixed = (v: bigint) => Array.from(new Uint8Array(new BigUint64Array([u64(v)]).buffer));
const packed = (num: number, elems: number[][]) => ld(num, elems.flat());

// [name, bytes of the field, offset of the refused value's tag or element from the field's start]
const REFUSED: [string, number[], number][] = [
  ["int64 2^53", [...tag(1, 0), ...varint(SAFE + 1n)], 0],
  ["int64 -(2^53)", [...tag(1, 0), ...varint(u64(-(SAFE + 1n)))], 0],
  ["int64 -2^63", [...tag(1, 0), ...varint(u64(-(2n ** 63n)))], 0],
  ["uint64 2^64 - 1", [...tag(2, 0), ...varint(2n ** 64n - 1n)], 0],
  ["uint64 2^53", [...tag(2, 0), ...varint(SAFE + 1n)], 0],
  ["fixed64 2^53", [...tag(4, 1), ...fixed(SAFE + 1n)], 0],
  ["sfixed64 -(2^53)", [...tag(5, 1), ...fixed(-(SAFE + 1n))], 0],
  // Packed: the offset of the first element out of range.
  ["packed sint64, third element 2^60 + 1", packed(3, [varint(zigzag(1n)), varint(zigzag(-SAFE)), varint(zigzag(2n ** 60n + 1n))]), 2 + 1 + 8],
  ["packed fixed64, second element 2^63", packed(6, [fixed(1n), fixed(2n ** 63n)]), 2 + 8],
  ["unpacked sint64 -(2^53)", [...tag(3, 0), ...varint(zigzag(-(SAFE + 1n)))], 0],
];

// Within range, and the fields the rule does not cover (a bigint field, map values, which are bigint).
const KEPT: [string, number[]][] = [
  ["int64 2^53 - 1", [...tag(1, 0), ...varint(SAFE)]],
  ["int64 -(2^53 - 1)", [...tag(1, 0), ...varint(u64(-SAFE))]],
  ["uint64 2^53 - 1", [...tag(2, 0), ...varint(SAFE)]],
  ["fixed64 2^53 - 1", [...tag(4, 1), ...fixed(SAFE)]],
  ["sfixed64 -(2^53 - 1)", [...tag(5, 1), ...fixed(-SAFE)]],
  ["packed sint64 ±(2^53 - 1)", packed(3, [varint(zigzag(SAFE)), varint(zigzag(-SAFE))])],
  ["packed fixed64 2^53 - 1", packed(6, [fixed(SAFE), fixed(0n)])],
  ["int64 without jstype, 2^63 - 1", [...tag(7, 0), ...varint(2n ** 63n - 1n)]],
  ["map<string, int64> value 2^63 - 1", ld(8, [...ld(1, [0x6b]), ...tag(2, 0), ...varint(2n ** 63n - 1n)])],
];

/** The error `f` throws, or "ok". */
function outcome(f: () => unknown): CodecError | "ok" {
  try {
    f();
    return "ok";
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    return e as CodecError;
  }
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
/** The field bytes, then a 5000-byte pad (field 9, written last): a bare message of over 4 KiB is decoded lazily. */
const padded = (field: number[]) => new Uint8Array([...field, ...ld(9, new Uint8Array(5000))]);
const frame = (b: Uint8Array) => new Uint8Array([...varint(b.length), ...b]);

describe("values beyond ±(2^53 − 1) in a jstype = JS_NUMBER field are refused", () => {
  test.each(REFUSED)("%s: UNSAFE_INTEGER from every read path, at the same offset", (_name, field, at) => {
    const bytes = new Uint8Array(field);
    const e = outcome(() => ser.validate(bytes)) as CodecError;
    expect(e).not.toBe("ok");
    expect(e.code).toBe("UNSAFE_INTEGER");
    expect(e.offset).toBe(at);
    expect(e.message).toMatch(/^cannot decode M: field M\.\w+\(\d\) at byte \d+ holds an? \w+ value beyond ±\(2\^53 − 1\), which the field's jstype = JS_NUMBER cannot hold exactly; remove jstype = JS_NUMBER \(or use JS_STRING\) to read such values, or have the writer keep the field within Number\.MAX_SAFE_INTEGER$/);
    expect((outcome(() => ser.fromBinary(bytes)) as CodecError).message).toBe(e.message);
    // Framed: offsets count from the start of the input (a 1-byte empty frame, then the prefix).
    const prefix = varint(bytes.length).length;
    const two = new Uint8Array([...frame(new Uint8Array()), ...frame(bytes)]);
    for (const [read, offset] of [
      [() => ser.decode(frame(bytes)), prefix + at],
      [() => ser.decodeAll(two), 1 + prefix + at],
      [() => ser.validateAll(two), 1 + prefix + at],
    ] as const) {
      const r = outcome(read) as CodecError;
      expect([r.code, r.offset]).toEqual(["UNSAFE_INTEGER", offset]);
    }
    // Lazy: refused by fromBinary itself, not at first access.
    const lazy = padded(field);
    const l = outcome(() => ser.fromBinary(lazy)) as CodecError;
    expect(l.code).toBe("UNSAFE_INTEGER");
    expect(l.offset).toBe(at);
    expect((outcome(() => ser.validate(lazy)) as CodecError).offset).toBe(l.offset);
  });

  test("a packed run longer than the tape window is checked in every window", () => {
    // 300,000 elements of 8 bytes decoded: more than one 1 MiB window.
    const ok = varint(zigzag(SAFE));
    const elems = Array.from({ length: 300_000 }, () => ok);
    elems.push(varint(zigzag(SAFE + 1n)));
    const bytes = new Uint8Array(packed(3, elems));
    const e = outcome(() => ser.fromBinary(bytes)) as CodecError;
    expect(e.code).toBe("UNSAFE_INTEGER");
    expect(e.offset).toBe(bytes.length - varint(zigzag(SAFE + 1n)).length);
    expect((outcome(() => ser.validate(bytes)) as CodecError).offset).toBe(e.offset);
    const good = new Uint8Array(packed(3, elems.slice(0, -1)));
    expect(ser.fromBinary(good).get("r")).toHaveLength(300_000);
  });
});

describe("values within range read back exactly", () => {
  test.each(KEPT)("%s: validate accepts, eager and lazy reads relay the same bytes", (_name, field) => {
    for (const bytes of [new Uint8Array(field), padded(field)]) {
      expect(outcome(() => ser.validate(bytes))).toBe("ok");
      expect(hex(det.toBinary(ser.fromBinary(bytes)))).toBe(hex(bytes));
    }
  });

  test("the serializer reads and writes after a refusal", () => {
    outcome(() => ser.fromBinary(new Uint8Array([...tag(1, 0), ...varint(SAFE + 1n)])));
    const v = ser.fromBinary(new Uint8Array([...tag(1, 0), ...varint(SAFE)]));
    expect(v.get("n")).toBe(Number(SAFE));
    expect(ser.fromBinary(ser.toBinary(v)).get("n")).toBe(Number(SAFE));
  });
});

const M = type.descriptor;

describe("values given to create, set and the writer follow the same rule", () => {
  // A bigint or decimal string beyond ±(2^53 − 1) was stored as Number(value), rounded: the
  // bytes written were not the caller's value (2^60 + 1 written as 2^60).
  const over = [
    ["n", SAFE + 1n],
    ["n", -(SAFE + 1n)],
    ["u", 2n ** 60n + 1n],
    ["f", 2n ** 64n - 1n],
    ["sf", -(2n ** 63n)],
  ] as const;
  test.each(over)("%s = %s is a RangeError naming the field, and nothing is written", (name, value) => {
    for (const attempt of [
      () => DynamicMessage.create(M, { [name]: value }),
      () => DynamicMessage.newBuilder(M).set(name, value),
      () => ser.toBinary({ [name]: value } as never),
    ]) {
      let e: Error | undefined;
      try {
        attempt();
      } catch (thrown) {
        e = thrown as Error;
      }
      expect(e).toBeInstanceOf(RangeError);
      expect(e!.message).toContain(`M.${name}`);
      expect(e!.message).toContain("within ±(2^53 − 1) (the field is declared jstype = JS_NUMBER, and a JS number would round this value)");
    }
  });

  test("list elements name their index; the edge values are kept exactly", () => {
    expect(() => DynamicMessage.create(M, { r: [1n, SAFE + 2n] })).toThrow(
      new RangeError(
        "field M.r(3)[1] expects sint64 within ±(2^53 − 1) (the field is declared jstype = JS_NUMBER, and a JS number would round this value), got bigint 9007199254740993n; remove the option, or use JS_STRING, to hold such values",
      ),
    );
    const v = DynamicMessage.create(M, { n: SAFE, u: SAFE, r: [-SAFE, 0n], m: { k: 2n ** 63n - 1n } });
    expect(v.get("n")).toBe(Number.MAX_SAFE_INTEGER);
    expect(v.get("r")).toEqual([-Number.MAX_SAFE_INTEGER, 0]);
    expect(ser.fromBinary(ser.toBinary(v)).equals(v)).toBe(true);
  });
});

describe("ProtoJSON follows the same rule", () => {
  test.each([
    ['{"n":"9007199254740992"}', "n(1)"],
    ['{"n":9007199254740993}', "n(1)"],
    ['{"u":"18446744073709551615"}', "u(2)"],
    ['{"r":["1","-9007199254740992"]}', "r(3)[1]"],
  ])("%s is JSON_INVALID_VALUE at its path", (text, path) => {
    const e = outcome(() => ser.fromJsonString(text)) as CodecError;
    expect(e.code).toBe("JSON_INVALID_VALUE");
    expect(e.path).toBe(`M.${path}`);
    expect(e.message).toMatch(/within ±\(2\^53 − 1\) \(the field is declared jstype = JS_NUMBER, and a JS number would round this value\)/);
  });

  test("values within range and map values (bigint) are read", () => {
    expect(ser.fromJsonString('{"n":"-9007199254740991"}').get("n")).toBe(-9007199254740991);
    expect((ser.fromJsonString('{"m":{"k":"9223372036854775807"}}').get("m") as Map<string, bigint>).get("k")).toBe(2n ** 63n - 1n);
  });
});

// protobuf-es holds jstype = JS_NUMBER fields as bigint (only JS_STRING changes the form), so the
// rule's reason does not hold for the generated kind: it reads every such value as protobuf-es
// does, writes it back, and validate agrees. (It refused them with UNSAFE_INTEGER while its
// writer wrote them: a value it wrote, it could not read.)
describe("the generated kind: 64-bit values of jstype = JS_NUMBER fields are bigint, none refused", () => {
  const desc = type.descriptor;
  const gen = ProtobufType.ofGenerated(desc).createSerializer();
  test.each([...REFUSED.map(([name, field]) => [name, field] as const), ...KEPT])("%s: protobuf-es' value, bare, padded and framed", (_name, field) => {
    for (const bytes of [new Uint8Array(field), padded(field)]) {
      gen.validate(bytes);
      const v = gen.fromBinary(bytes);
      expect(v).toEqual(fromBinary(desc, bytes));
      expect(Buffer.compare(gen.toBinary(v), toBinary(desc, v))).toBe(0);
      const two = new Uint8Array([...frame(new Uint8Array()), ...frame(bytes)]);
      gen.validateAll(two);
      expect(gen.decodeAll(two)).toEqual([fromBinary(desc, new Uint8Array()), v]);
      expect(gen.decode(frame(bytes))).toEqual(v);
    }
  });

  test("the dynamic kind still refuses them after the generated kind read them (its own layout)", () => {
    const bytes = new Uint8Array([...tag(1, 0), ...varint(SAFE + 1n)]);
    expect((gen.fromBinary(bytes) as unknown as { n: bigint }).n).toBe(SAFE + 1n);
    expect((outcome(() => ser.fromBinary(bytes)) as CodecError).code).toBe("UNSAFE_INTEGER");
    expect((outcome(() => ser.validate(bytes)) as CodecError).code).toBe("UNSAFE_INTEGER");
    expect((gen.fromBinary(bytes) as unknown as { n: bigint }).n).toBe(SAFE + 1n);
  });
  // ProtoJSON: the generated serializer has no JSON methods yet (docs/design.md §11).
});
