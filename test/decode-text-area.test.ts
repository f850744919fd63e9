// The walker copies the bytes of every ASCII string field into a text area, back to back in
// tape order, and the reader takes one string of it and slices each field out (src/wasm/ops.ts
// tapeText). These tests pin what that must preserve: every string at its field, whatever mix of
// ASCII, non-ASCII, empty, map, oneof and frames, strings ending at the last byte of the input
// and of linear memory, texts spread over many tape windows, and strings longer than a window's
// whole text area.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { layoutOf } from "../src/codec/layout.js";
import { DynamicMessage, FrameReader, ProtobufType } from "../src/index.js";
import { ready, scratchAddress, tableAddress, views } from "../src/wasm/memory.js";
import { resumeWalk, setWindowSizes, tapeText, walkFrames, walkMessage, type TapeResult } from "../src/wasm/ops.js";
import { tableLength } from "../src/wasm/table.js";
import { registryFromDir } from "./support/buf.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const limits = { maxMessageBytes: 256 * 1024 * 1024, maxDepth: 100 };

const ascii = (n: number, salt = 0): string => Array.from({ length: n }, (_, i) => String.fromCharCode(33 + ((i * 7 + salt) % 94))).join("");
const wide = (n: number, salt = 0): string => Array.from({ length: n }, (_, i) => ["é", "ж", "€", "𝄞", "a"][(i + salt) % 5]).join("");

/** Bytes written by @bufbuild/protobuf from its init form. */
function encode(init: Record<string, unknown>): Uint8Array {
  return toBinary(All, create(All, init as never));
}

/** protokeel's value of `bytes` has every string @bufbuild/protobuf reads from them. */
function expectSame(value: DynamicMessage, bytes: Uint8Array): void {
  const es = fromBinary(All, bytes) as unknown as Record<string, unknown>;
  expect(value.get("f_string")).toBe(es.fString);
  expect(value.get("f_max_number")).toBe(es.fMaxNumber);
  expect(value.get("o_string")).toBe(es.oString);
  expect(value.get("r_string")).toEqual(es.rString);
  expect(value.get("m_string")).toEqual(new Map(Object.entries(es.mString as object)));
  expect(value.get("m_int32")).toEqual(new Map(Object.entries(es.mInt32 as object).map(([k, v]) => [Number(k), v])));
  const leaves = (es.rMessage as { name: string }[]).map((l) => l.name);
  expect(((value.get("r_message") ?? []) as DynamicMessage[]).map((l) => l.get("name"))).toEqual(leaves);
  const mv = new Map(Object.entries(es.mvMessage as Record<string, { name: string }>).map(([k, v]) => [k, v.name]));
  expect(new Map([...((value.get("mv_message") as Map<string, DynamicMessage> | undefined) ?? new Map())].map(([k, v]) => [k, v.get("name")]))).toEqual(mv);
  const choice = es.choice as { case?: string; value?: unknown };
  expect(value.get("c_string")).toBe(choice.case === "cString" ? choice.value : undefined);
  expect(value.get("f_bytes")).toEqual(es.fBytes);
  const decoded = ser.fromBinary(bytes);
  expect(decoded.equals(value)).toBe(true);
}

function roundTrip(init: Record<string, unknown>): DynamicMessage {
  const bytes = encode(init);
  const value = ser.fromBinary(bytes);
  expectSame(value, bytes);
  return value;
}

describe("ASCII strings through the text area", () => {
  test.each([0, 1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257, 300, 4097])("strings of %i bytes in every position", (n) => {
    roundTrip({
      fString: ascii(n),
      fBytes: new TextEncoder().encode(ascii(n, 3)),
      oString: ascii(n, 1),
      rString: [ascii(n, 2), "", ascii(n + 1, 4), wide(n), ascii(n, 5)],
      mString: { [ascii(n, 6)]: ascii(n, 7), "": "", [wide(n, 1) + "k"]: ascii(n, 8) },
      mInt32: { 1: ascii(n, 9), 2: "", 3: wide(n, 2) },
      rMessage: [{ name: ascii(n, 10) }, { name: wide(n, 3) }, { name: "" }, { name: ascii(n, 11) }],
      mvMessage: { [ascii(n, 12)]: { name: ascii(n, 13) }, [wide(n, 4) + "m"]: { name: wide(n, 5) } },
      choice: { case: "cString", value: ascii(n, 14) },
      fMaxNumber: ascii(n, 15),
    });
  });

  test("a string ending at the last byte of the input, for every length up to 40", () => {
    for (let n = 0; n <= 40; n++) {
      for (const s of [ascii(n), wide(n)]) {
        // f_max_number (536870911) is written last.
        const bytes = encode({ rString: ["x", wide(2)], fMaxNumber: s });
        const tail = new TextEncoder().encode(s);
        expect(bytes.subarray(bytes.length - tail.length)).toEqual(tail);
        const value = ser.fromBinary(bytes);
        expectSame(value, bytes);
        expect(value.get("f_max_number")).toBe(s);
      }
    }
  });

  test("empty strings keep the following strings in place", () => {
    const v = roundTrip({ rString: ["", "", "a", "", "bc", ""], fString: "", oString: "", choice: { case: "cString", value: "" } });
    expect(v.get("r_string")).toEqual(["", "", "a", "", "bc", ""]);
    expect(v.has("o_string")).toBe(true);
    expect(v.whichOneof("choice")).toBe("c_string");
  });

  test("a singular string read twice keeps the later occurrence and the text stays in step", () => {
    const a = encode({ fString: "first", rString: ["one"] });
    const b = encode({ fString: "second-and-longer", rString: ["two"], oString: "three" });
    const both = new Uint8Array([...a, ...b]);
    const v = ser.fromBinary(both);
    expect(v.get("f_string")).toBe("second-and-longer");
    expect(v.get("r_string")).toEqual(["one", "two"]);
    expect(v.get("o_string")).toBe("three");
  });

  test.each([
    ["one window", {}],
    ["4 KiB windows with 100-byte text areas", { tape: 4096, text: 100 }],
    ["64-byte windows with 20-byte text areas", { tape: 64, text: 20 }],
  ])("many short strings over %s: every string at its field, each window's text in order", (_, sizes) => {
    const many = Array.from({ length: 30000 }, (_, i) => (i % 7 === 0 ? "" : i % 11 === 0 ? wide(1, i) : ascii(1 + (i % 3), i)));
    const bytes = encode({ rString: many, fMaxNumber: "end" });
    const prev = setWindowSizes(sizes);
    try {
      const value = ser.fromBinary(bytes);
      expectSame(value, bytes);
      expect(value.get("r_string")).toEqual(many);
      let t: TapeResult = walkMessage(layoutOf(All).typeOffset, bytes, limits);
      let text = tapeText(t);
      while (!t.done) {
        t = resumeWalk(t);
        text += tapeText(t);
      }
      expect(text).toBe(many.filter((x) => /^[\x00-\x7f]*$/.test(x)).join("") + "end");
    } finally {
      setWindowSizes(prev);
    }
  });

  test("a string longer than a window's whole text area is read from the input, its neighbours from the text", () => {
    // 2 MiB against the 1 MiB text area: unflagged (the walk pauses first when the area already
    // holds text, so that only a string longer than the whole area is left out).
    const big = ascii(2 * 1024 * 1024, 5);
    const bytes = encode({ fString: big, rString: ["a", wide(2), "b"], fMaxNumber: "end" });
    let t: TapeResult = walkMessage(layoutOf(All).typeOffset, bytes, limits);
    let text = tapeText(t);
    while (!t.done) {
      t = resumeWalk(t);
      text += tapeText(t);
    }
    expect(text).toBe("abend");
    const value = ser.fromBinary(bytes);
    expect(value.get("f_string") === big).toBe(true);
    expect(value.get("r_string")).toEqual(["a", wide(2), "b"]);
    expect(value.get("f_max_number")).toBe("end");
    const frames = ser.decodeAll(ser.encodeAll([value, value]));
    expect(frames.map((v) => v.get("f_string") === big)).toEqual([true, true]);
  });

  test("the text area of a tape is every ASCII string, in tape order", () => {
    const bytes = encode({ fString: "ab", fBytes: new Uint8Array([0x63, 0x64]), rString: ["ef", "é", "gh"], mString: { ij: "kl" }, fMaxNumber: "mn" });
    const t = walkMessage(layoutOf(All).typeOffset, bytes, limits);
    expect(tapeText(t)).toBe("abefghijklmn");
    expect(t.textLength).toBe(12);
    const none = walkMessage(layoutOf(All).typeOffset, encode({ fInt32: 5, rString: ["ö"] }), limits);
    expect(none.textLength).toBe(0);
    expect(tapeText(none)).toBe("");
  });
});

describe("strings across frames", () => {
  const values = Array.from({ length: 40 }, (_, i) =>
    DynamicMessage.create(All, {
      f_string: i % 3 === 0 ? wide(i, i) : ascii(i, i),
      r_string: [ascii(i % 5), "", i % 2 === 0 ? "ü" : "u"],
      m_string: { [ascii(3, i)]: i % 4 === 0 ? wide(2) : ascii(2, i) },
      c_string: i % 6 === 0 ? "" : ascii(i % 20, i),
      f_max_number: ascii(i % 17, i),
    }),
  );
  const batch = ser.encodeAll(values);

  test("decodeAll reads every frame's strings from one text", () => {
    const t = walkFrames(layoutOf(All).typeOffset, batch, limits);
    const expected = values
      .flatMap((v) => [v.get("f_string"), ...(v.get("r_string") as string[]), ...[...(v.get("m_string") as Map<string, string>)].flat(), v.get("c_string"), v.get("f_max_number")])
      .filter((s) => /^[\x00-\x7f]*$/.test(s as string))
      .join("");
    expect(tapeText(t)).toBe(expected);
    const decoded = ser.decodeAll(batch);
    expect(decoded).toHaveLength(values.length);
    decoded.forEach((d, i) => expect(d.equals(values[i])).toBe(true));
  });

  test("FrameReader reads each frame with its own text", () => {
    const reader = new FrameReader(batch);
    for (const v of values) expect(ser.deserialize(reader).equals(v)).toBe(true);
    expect(reader.hasMore()).toBe(false);
  });
});

describe("the walker's text area in linear memory", () => {
  const Scalars = registryFromDir("fixtures/core").getMessage("core.test.Scalars")!;
  const ctrlText = () => views.u32[(ready().ctrl() >>> 2) + 10]!;

  /** Scalars bytes `msg` in scratch memory after the stack, a 4 KiB tape after them, then `text`. */
  function placed(msg: Uint8Array): { tape: number; text: number; walk: (text: number, textEnd: number) => number } {
    const stack = scratchAddress();
    const base = stack + 1024;
    const tape = base + 1024;
    views.u8.set(msg, base);
    const walk = (text: number, textEnd: number): number =>
      ready().walk(tableAddress(), tableLength(), layoutOf(Scalars).typeOffset, base, msg.length, 1 << 20, 10, stack, tape, tape + 4096, text, textEnd);
    return { tape, text: tape + 4096, walk };
  }

  // Scalars.s (field 9) with n bytes, ending at the last byte of memory: the core's 16-byte loads
  // must not reach past it, and the text must still be exact.
  test.each([0, 1, 2, 15, 16, 17, 31, 33, 300])("a %i-byte string ending at the last byte of memory is copied without a trap", (n) => {
    const type = layoutOf(Scalars).typeOffset;
    const e = ready();
    const stack = scratchAddress();
    const tape = stack + 1024;
    const text = tape + 4096;
    const end = views.u8.length;
    const msg = Uint8Array.from([0x4a, ...(n < 128 ? [n] : [0x80 | (n & 0x7f), n >> 7]), ...Array.from(ascii(n), (c) => c.charCodeAt(0))]);
    const base = end - msg.length;
    views.u8.set(msg, base);
    expect(e.walk(tableAddress(), tableLength(), type, base, msg.length, 1 << 20, 10, stack, tape, tape + 4096, text, text + n + 16)).toBe(0);
    expect(ctrlText()).toBe(n);
    expect(Buffer.from(views.u8.subarray(text, text + n)).toString("latin1")).toBe(ascii(n));
  });

  // The text area itself at the end of memory, sized exactly (no slack for 16-byte stores): the
  // core must copy exactly instead of storing past it.
  test.each([1, 5, 16, 17, 40, 300])("a %i-byte text area ending at the last byte of memory is filled exactly", (n) => {
    const msg = Uint8Array.from([0x4a, ...(n < 128 ? [n] : [0x80 | (n & 0x7f), n >> 7]), ...Array.from(ascii(n, 1), (c) => c.charCodeAt(0))]);
    const { walk } = placed(msg);
    const end = views.u8.length;
    expect(walk(end - n, end)).toBe(0);
    expect(ctrlText()).toBe(n);
    expect(Buffer.from(views.u8.subarray(end - n, end)).toString("latin1")).toBe(ascii(n, 1));
  });

  test("a string longer than the whole text area is left unflagged, and nothing is written past the area", () => {
    const n = 20;
    const { tape, text, walk } = placed(Uint8Array.from([0x4a, n, ...Array.from(ascii(n), (c) => c.charCodeAt(0))]));
    views.u8.fill(0xee, text, text + 64);
    expect(walk(text, text + n - 1)).toBe(0);
    expect(ctrlText()).toBe(0);
    // The BYTES entry (the second) carries no ASCII flag: the reader decodes it from the input.
    expect(views.u32[(tape >>> 2) + 4]).toBe(6 | (8 << 8));
    expect([...views.u8.subarray(text, text + 64)].every((b) => b === 0xee)).toBe(true);
    // A reversed region is an empty one.
    expect(walk(text, text - 16)).toBe(0);
    expect(ctrlText()).toBe(0);
  });

  test("a string that does not fit in what is left of the text area pauses the walk before it", () => {
    // Scalars.s twice (a singular string read twice): 10 bytes, then 30, in a 35-byte area.
    const msg = Uint8Array.from([0x4a, 10, ...Array.from(ascii(10), (c) => c.charCodeAt(0)), 0x4a, 30, ...Array.from(ascii(30, 1), (c) => c.charCodeAt(0))]);
    const { tape, text, walk } = placed(msg);
    const e = ready();
    expect(walk(text, text + 35)).toBe(2);
    expect([views.u32[(ready().ctrl() >>> 2) + 5], ctrlText()]).toEqual([2, 10]);
    expect(Buffer.from(views.u8.subarray(text, text + 10)).toString("latin1")).toBe(ascii(10));
    // The next window starts with the second string, in an empty text area.
    expect(e.walkResume()).toBe(0);
    expect([views.u32[(ready().ctrl() >>> 2) + 5], ctrlText()]).toEqual([2, 30]);
    expect(views.u32[(tape >>> 2)]! & 0xff).toBe(6 | (1 << 4));
    expect(Buffer.from(views.u8.subarray(text, text + 30)).toString("latin1")).toBe(ascii(30, 1));
  });
});

describe("without Buffer.prototype.latin1Slice (browsers)", () => {
  test("the core reads the text area with one TextDecoder call, the TypeScript reader strings of up to 64 bytes with none; same strings", async () => {
    const { vi } = await import("vitest");
    vi.resetModules();
    // A Buffer without latin1Slice (vitest's .wasm loader still needs Buffer.from).
    const Real = Buffer;
    vi.stubGlobal("Buffer", { from: (...a: Parameters<typeof Buffer.from>) => Real.from(...a) });
    try {
      const fresh = await import("../src/index.js");
      const s = fresh.ProtobufType.of(All).createSerializer();
      const init = { fString: ascii(40), rString: ["", "a", wide(3), ascii(17, 2)], mString: { k: "v", [wide(2)]: ascii(5) }, fMaxNumber: "end" };
      const bytes = encode(init);
      const decode = vi.spyOn(TextDecoder.prototype, "decode");
      const v = s.fromBinary(bytes);
      // The fresh modules have the default thresholds (the projects set theirs on the first
      // instance), so this input of under 256 bytes is read by the TypeScript reader: ASCII
      // strings of up to 64 bytes are built in JavaScript (asciiString), non-ASCII ones this
      // short too: no call.
      expect(decode).toHaveBeenCalledTimes(0);
      expect(v.get("f_string")).toBe(init.fString);
      expect(v.get("r_string")).toEqual(init.rString);
      expect(v.get("m_string")).toEqual(new Map(Object.entries(init.mString)));
      expect(v.get("f_max_number")).toBe("end");
      // A batch is read by the core here (the TypeScript reader reads batches only where the
      // batch's text is one latin1Slice): one call for the text area of both frames.
      const batch = s.encodeAll([v, v]);
      decode.mockClear();
      const all = s.decodeAll(batch);
      expect(decode).toHaveBeenCalledTimes(1);
      expect(all.map((x) => x.get("r_string"))).toEqual([init.rString, init.rString]);
      expect(all.map((x) => x.get("f_string"))).toEqual([init.fString, init.fString]);
      // A batch with a frame of 256 bytes or more is read by the core: one call for the text
      // area of all its frames, one for the long non-ASCII string.
      const mixed = new Uint8Array([...batch.subarray(0, batch.length / 2), ...s.encode(s.fromBinary(encode({ ...init, rString: [...init.rString, wide(100)] })))]);
      decode.mockClear();
      const both = s.decodeAll(mixed);
      expect(decode).toHaveBeenCalledTimes(2);
      expect(both.map((x) => x.get("f_string"))).toEqual([init.fString, init.fString]);
      expect(both[1]!.get("r_string")).toEqual([...init.rString, wide(100)]);
      // An ASCII string over 64 bytes in a small message: the TypeScript reader reads the input
      // as one string (one call) and cuts it, as with latin1Slice.
      decode.mockClear();
      const long = s.fromBinary(encode({ fString: ascii(100, 3) }));
      expect(decode).toHaveBeenCalledTimes(1);
      expect(long.get("f_string")).toBe(ascii(100, 3));
    } finally {
      vi.restoreAllMocks();
      vi.unstubAllGlobals();
      vi.resetModules();
    }
  });
});
