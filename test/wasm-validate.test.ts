// The core's validate-only walk (assembly/validate.ts) against walk (assembly/scan.ts): the same
// verdict and the same failure details on every input, for every fixture type of the walker.
import { create, toBinary, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { layoutOf } from "../src/codec/layout.js";
import { CodecError } from "../src/errors.js";
import { validateFrames, validateMessage, walkFrames, walkMessage, type ReadLimits } from "../src/wasm/ops.js";
import { ready, scratchAddress, tableAddress, views } from "../src/wasm/memory.js";
import { tableLength } from "../src/wasm/table.js";
import { registryFromDir } from "./support/buf.js";

const reg = registryFromDir("fixtures/core");
const types = ["Scalars", "Repeated", "Maps", "Node", "Sparse"].map((n) => reg.getMessage(`core.test.${n}`)!);
const Node = reg.getMessage("core.test.Node")!;
const Maps = reg.getMessage("core.test.Maps")!;
const limitSets: ReadLimits[] = [
  { maxMessageBytes: 1 << 20, maxDepth: 100 },
  { maxMessageBytes: 40, maxDepth: 3 },
];

function outcome(f: () => unknown): unknown {
  try {
    f();
    return "ok";
  } catch (e) {
    if (e instanceof CodecError) return { code: e.code, offset: e.offset, path: e.path, message: e.message };
    throw e;
  }
}

/** Asserts validate and walk agree under each limit set; returns walk's outcomes. */
function same(desc: DescMessage, bytes: Uint8Array): unknown[] {
  const t = layoutOf(desc).typeOffset;
  return limitSets.map((l) => {
    const walked = outcome(() => walkMessage(t, bytes, l));
    expect(outcome(() => validateMessage(t, bytes, l))).toEqual(walked);
    expect(outcome(() => validateFrames(t, bytes, l))).toEqual(outcome(() => walkFrames(t, bytes, l)));
    return walked;
  });
}

const nested = (depth: number): Uint8Array => {
  let v: Record<string, unknown> = { name: "leaf", v: 7 };
  for (let i = 0; i < depth; i++) v = { child: v, name: `n${i}é` };
  return toBinary(Node, create(Node, v));
};

describe("validate matches walk", () => {
  test("property: random bytes, for every fixture type and two limit sets", () => {
    fc.assert(
      fc.property(fc.constantFrom(...types), fc.uint8Array({ maxLength: 120 }), (desc, b) => {
        same(desc, b);
      }),
      { numRuns: 1500 },
    );
  });

  test("property: mutated nested messages and maps", () => {
    const seeds = [
      nested(6),
      toBinary(Maps, create(Maps, { ss: { k: "v", "ключ": "значение" }, nodeById: { 3: { name: "x", v: 1 } }, ub: { "9": new Uint8Array([1, 2]) }, colors: { "-4": 1 } })),
    ];
    fc.assert(
      fc.property(fc.nat({ max: 1 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }), (which, edits) => {
        const b = seeds[which]!.slice();
        for (const [at, v] of edits) b[at % b.length] = v;
        same(which === 0 ? Node : Maps, b);
      }),
      { numRuns: 800 },
    );
  });

  test.each([
    ["a flat message", () => toBinary(Node, create(Node, { name: "x", v: 1 })), 1],
    ["an empty message", () => new Uint8Array(0), 1],
    ["a chain of 3 nested messages", () => nested(3), 4],
    ["a chain of 6 nested messages", () => nested(6), 7],
  ] as const)("validateMessage returns the nesting height: %s", (_name, bytes, height) => {
    expect(validateMessage(layoutOf(Node).typeOffset, bytes(), { maxMessageBytes: 1 << 20, maxDepth: 100 })).toBe(height);
  });

  test("a map entry counts as a level of the height (as for maxDepth)", () => {
    const b = toBinary(Maps, create(Maps, { nodeById: { 3: { name: "x", v: 1 } } }));
    expect(validateMessage(layoutOf(Maps).typeOffset, b, { maxMessageBytes: 1 << 20, maxDepth: 100 })).toBe(3);
  });

  test("nesting deeper than maxDepth fails the same way at the same offset and path", () => {
    const [loose, tight] = same(Node, nested(2));
    expect(loose).toBe("ok");
    expect(tight).toBe("ok");
    const [deepLoose, deepTight] = same(Node, nested(3));
    expect(deepLoose).toBe("ok");
    expect(deepTight).toMatchObject({ code: "DEPTH_LIMIT_EXCEEDED", path: "core.test.Node.child(1).child(1).child(1)" });
  });

  // The 16-byte UTF-8 loads must never reach past linear memory: put Scalars { s: ... } so its
  // last byte is the last byte of memory and call the core directly (ops.ts keeps slack).
  test.each([0, 1, 2, 15, 16, 17, 31, 33])("a %i-byte string ending at the last byte of memory is checked without a trap", (n) => {
    const Scalars = reg.getMessage("core.test.Scalars")!;
    const type = layoutOf(Scalars).typeOffset;
    const e = ready();
    const stack = scratchAddress();
    const tape = stack + 1024;
    const end = views.u8.length;
    for (const last of [0x61, 0xff]) {
      const msg = Uint8Array.from([0x4a, n, ...Array(n).fill(0x61)]);
      if (n > 0) msg[msg.length - 1] = last;
      const base = end - msg.length;
      views.u8.set(msg, base);
      const want = n > 0 && last === 0xff ? -11 : 0;
      expect(e.validate(tableAddress(), tableLength(), type, base, msg.length, 1 << 20, 10, stack)).toBe(want);
      expect(e.walk(tableAddress(), tableLength(), type, base, msg.length, 1 << 20, 10, stack, tape, tape + 4096, tape + 4096, tape + 4096 + msg.length + 16)).toBe(want);
    }
  });
});

