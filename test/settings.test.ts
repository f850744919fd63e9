import { describe, expect, test } from "vitest";
import { DEFAULT_SETTINGS, resolveSettings } from "../src/settings.js";

describe("settings", () => {
  test("defaults", () => {
    expect(resolveSettings()).toEqual(DEFAULT_SETTINGS);
  });

  test.each([
    [{ maxMessageBytes: 0 }, "setting maxMessageBytes must be an integer in 1..2147483647, got 0"],
    [{ maxMessageBytes: 2 ** 31 }, "setting maxMessageBytes must be an integer in 1..2147483647, got 2147483648"],
    [{ maxMessageBytes: 1.5 }, "setting maxMessageBytes must be an integer in 1..2147483647, got 1.5"],
    [{ maxDepth: 0 }, "setting maxDepth must be an integer in 1..10000, got 0"],
    [{ maxDepth: 10_001 }, "setting maxDepth must be an integer in 1..10000, got 10001"],
    [{ aliasThreshold: -1 }, "setting aliasThreshold must be an integer in 0..67108864, got -1"],
    [{ maxMessageBytes: 10, aliasThreshold: 11 }, "setting aliasThreshold must be an integer in 0..10, got 11"],
    [{ deterministic: "yes" as unknown as boolean }, 'setting deterministic must be a boolean, got "yes"'],
    // null was taken for the default.
    [{ maxDepth: null as unknown as number }, "setting maxDepth must be an integer in 1..10000, got null"],
    [{ maxMessageBytes: null as unknown as number }, "setting maxMessageBytes must be an integer in 1..2147483647, got null"],
    [{ deterministic: null as unknown as boolean }, "setting deterministic must be a boolean, got null"],
    [{ aliasThreshold: null as unknown as number }, "setting aliasThreshold must be an integer in 0..67108864, got null"],
  ])("rejects %o", (partial, message) => {
    expect(() => resolveSettings(partial)).toThrow(new RangeError(message));
    expect(() => resolveSettings(partial)).toThrow(RangeError);
  });

  test("a setting present as undefined takes its default, unless strict (a builder's setter)", () => {
    expect(resolveSettings({ maxDepth: undefined })).toEqual(DEFAULT_SETTINGS);
    expect(() => resolveSettings({ maxDepth: undefined }, true)).toThrow(new RangeError("setting maxDepth must be an integer in 1..10000, got undefined"));
  });

  test("settings that are not an object are a TypeError", () => {
    expect(() => resolveSettings(null as never)).toThrow(new TypeError("settings must be an object ({ maxMessageBytes?, maxDepth?, deterministic?, aliasThreshold? }), got null"));
  });

  test("accepts the range ends", () => {
    expect(resolveSettings({ maxMessageBytes: 1, maxDepth: 1, aliasThreshold: 1 })).toEqual({
      maxMessageBytes: 1,
      maxDepth: 1,
      deterministic: false,
      aliasThreshold: 1,
    });
    expect(resolveSettings({ maxMessageBytes: 2_147_483_647, maxDepth: 10_000 }).maxDepth).toBe(10_000);
  });
});
