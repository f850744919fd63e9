// Differential properties of the JS writer: what protokeel writes, @bufbuild/protobuf (which passes
// the conformance suite) and protobufjs read back as the same content; deterministic output is
// byte-identical to @bufbuild/protobuf's where its field order is defined.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import protobuf from "protobufjs";
import { describe, expect, test } from "vitest";
import { MessageWriter } from "../src/codec/writer.js";
import { DynamicMessage } from "../src/index.js";
import { resolveSettings } from "../src/settings.js";
import { messageArb } from "./support/arbitrary-message.js";
import { registryFromDir } from "./support/buf.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const pbjsRoot = protobuf.loadSync(new URL("./fixtures/all-types/all_types.proto", import.meta.url).pathname);
const PbjsAll = pbjsRoot.lookupType("alltypes.AllTypes");

// @bufbuild/protobuf's create() takes JSON for Struct, Value and ListValue fields; those types are
// checked against protobufjs alone below.
const JSON_TYPES = ["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"];

const plain = new MessageWriter(All, { settings: resolveSettings() });
const det = new MessageWriter(All, { settings: resolveSettings({ deterministic: true }) });

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}

/** @bufbuild/protobuf's canonical re-encoding of bytes it decoded. */
function esCanonical(bytes: Uint8Array): string {
  return hex(toBinary(All, fromBinary(All, bytes)));
}

describe("protokeel bytes read back as the same content", () => {
  test.each([
    [1, 500],
    [2, 120],
  ])("in @bufbuild/protobuf and protobufjs, both modes (nesting %i, %i messages)", (depth, numRuns) => {
    fc.assert(
      fc.property(messageArb(All, depth, { skipTypes: JSON_TYPES }), (s) => {
        const msg = DynamicMessage.create(All, s.ours);
        const expected = hex(toBinary(All, create(All, s.es as never)));
        for (const w of [plain, det]) {
          const ours = w.toBinary(msg);
          expect(esCanonical(ours)).toBe(expected);
        }
        const viaPbjs = PbjsAll.encode(PbjsAll.decode(plain.toBinary(msg))).finish();
        expect(esCanonical(viaPbjs)).toBe(expected);
      }),
      { numRuns },
    );
  });

  test("deterministic bytes equal @bufbuild/protobuf's when map order is not in play", () => {
    fc.assert(
      fc.property(messageArb(All, 1, { maxMapEntries: 1, skipTypes: JSON_TYPES }), (s) => {
        const msg = DynamicMessage.create(All, s.ours);
        expect(hex(det.toBinary(msg))).toBe(hex(toBinary(All, create(All, s.es as never))));
      }),
      { numRuns: 500 },
    );
  });

  test("Struct, Value and ListValue read back in protobufjs byte for byte", () => {
    const Struct = registry.getMessage("google.protobuf.Struct")!;
    const PbjsStruct = pbjsRoot.lookupType("google.protobuf.Struct");
    const w = new MessageWriter(Struct, { settings: resolveSettings() });
    fc.assert(
      fc.property(messageArb(Struct, 4, { maxMapEntries: 1 }), (s) => {
        const ours = w.toBinary(DynamicMessage.create(Struct, s.ours));
        expect(hex(PbjsStruct.encode(PbjsStruct.decode(ours)).finish())).toBe(hex(ours));
      }),
      { numRuns: 500 },
    );
  });

  test("long packed runs (typed-array copies, memoized sizes) match @bufbuild/protobuf", () => {
    fc.assert(
      fc.property(messageArb(All, 0, { maxItems: 40, maxMapEntries: 1, skipTypes: JSON_TYPES }), (s) => {
        const msg = DynamicMessage.create(All, s.ours);
        const expected = hex(toBinary(All, create(All, s.es as never)));
        expect(hex(det.toBinary(msg))).toBe(expected);
        expect(hex(det.toBinary(msg))).toBe(expected); // again, from the memoized sizes
      }),
      { numRuns: 150 },
    );
  });

  test("deterministic map entries are sorted by key; the default keeps insertion order", () => {
    const msg = DynamicMessage.create(All, {
      m_sint64: new Map([
        [5n, "a"],
        [-7n, "b"],
        [0n, "c"],
      ]),
      m_string: new Map([
        ["b", "1"],
        ["a", "2"],
      ]),
      m_bool: new Map([
        [true, "t"],
        [false, "f"],
      ]),
    });
    const Entries = registry.getMessage("alltypes.MapAsEntries")!;
    const back = (w: MessageWriter) => {
      const m = fromBinary(Entries, w.toBinary(msg)) as unknown as Record<string, { key: unknown }[]>;
      return [m.mSint64!.map((e) => e.key), m.mString!.map((e) => e.key), m.mBool!.map((e) => e.key)];
    };
    expect(back(det)).toEqual([[-7n, 0n, 5n], ["a", "b"], [false, true]]);
    expect(back(plain)).toEqual([[5n, -7n, 0n], ["b", "a"], [true, false]]);
  });

  test("deterministic string keys sort by UTF-8 bytes, not UTF-16 code units", () => {
    // U+E000 is EE 80 80 in UTF-8, U+1F600 is F0 9F 98 80: by bytes U+E000 comes first, though its
    // UTF-16 unit (0xE000) is above the emoji's high surrogate (0xD83D).
    const keys = ["\u{1F600}", "\uE000", "z", "\u00e9", ""];
    const msg = DynamicMessage.create(All, { m_string: new Map(keys.map((k) => [k, "v"])) });
    const Entries = registry.getMessage("alltypes.MapAsEntries")!;
    const m = fromBinary(Entries, det.toBinary(msg)) as unknown as { mString: { key: string }[] };
    const got = m.mString.map((e) => e.key);
    const byBytes = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(byBytes).toEqual(["", "z", "\u00e9", "\uE000", "\u{1F600}"]);
    expect(got).toEqual(byBytes);
  });
});

describe("values at the edges", () => {
  test.each([
    ["f_double", Number.NaN, "09000000000000f87f"],
    ["f_double", -0, "090000000000000080"],
    ["f_double", Infinity, "09000000000000f07f"],
    ["f_float", -Infinity, "15000080ff"],
    ["f_int64", -1n, "18ffffffffffffffffff01"],
    ["f_int64", -(2n ** 63n), "1880808080808080808001"],
    ["f_uint64", 2n ** 64n - 1n, "20ffffffffffffffffff01"],
    ["f_int32", -1, "28ffffffffffffffffff01"],
    ["f_sint32", -2147483648, "70ffffffff0f"],
    ["f_sint64", -(2n ** 63n), "78ffffffffffffffffff01"],
    ["f_sfixed64", -2n, "69feffffffffffffff"],
    ["f_fixed32", 4294967295, "3dffffffff"],
    ["f_uint32", 4294967295, "58ffffffff0f"],
    ["f_string", "😀", "4a04f09f9880"],
    ["f_string", "é", "4a02c3a9"],
    ["f_enum", -1, "8001ffffffffffffffffff01"],
    ["f_max_number", "x", "faffffff0f0178"],
    ["js_string_int64", "-1", "9808ffffffffffffffffff01"],
  ])("%s = %o", (name, value, bytes) => {
    const m = DynamicMessage.create(All, { [name]: value });
    expect(hex(plain.toBinary(m))).toBe(bytes);
    expect(hex(toBinary(All, fromBinary(All, plain.toBinary(m))))).toBe(bytes);
  });

  test("long strings of every width go through both string paths", () => {
    for (const len of [0, 1, 42, 43, 127, 128, 129, 1000, 20000]) {
      for (const unit of ["a", "é", "語", "😀"]) {
        const s = unit.repeat(len);
        const m = DynamicMessage.create(All, { f_string: s, r_string: [s, "z"] });
        const back = fromBinary(All, plain.toBinary(m)) as unknown as { fString: string; rString: string[] };
        expect(back.fString).toBe(s);
        expect(back.rString).toEqual([s, "z"]);
      }
    }
  });

  test("JS_NUMBER fields write their numbers", () => {
    const J = registry.getMessage("alltypes.JsNumber")!;
    const w = new MessageWriter(J, { settings: resolveSettings() });
    const bytes = w.toBinary(DynamicMessage.create(J, { n: -5, ns: [1, -1] }));
    const back = fromBinary(J, bytes) as unknown as { n: bigint; ns: bigint[] };
    expect(back.n).toBe(-5n);
    expect(back.ns).toEqual([1n, -1n]);
  });
});
