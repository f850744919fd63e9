// Negative int32 and enum values are sign-extended to ten-byte varints (protobuf encoding rules);
// the writer emits them without the 64-bit loop, so every bit position of the low word is checked
// against @bufbuild/protobuf in each position they can occupy: singular, optional, packed and
// unpacked lists, enums, and the sizes of the lists that hold them.
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { MessageWriter } from "../src/codec/writer.js";
import { DynamicMessage } from "../src/index.js";
import { resolveSettings } from "../src/settings.js";
import { registryFromDir } from "./support/buf.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const writer = new MessageWriter(All, { settings: resolveSettings({ deterministic: true }) });

const VALUES = [-1, -2, -127, -128, -129, -16384, -(2 ** 21), -(2 ** 28) + 1, -(2 ** 28), -(2 ** 28) - 1, -(2 ** 31) + 1, -(2 ** 31), -123456789];

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}

describe("negative int32 and enum values write as @bufbuild/protobuf does", () => {
  test.each(VALUES.map((v) => [v]))("%i", (v) => {
    const mixed = [v, 5, v, 300, -1, 0];
    const ours = writer.toBinary(
      DynamicMessage.create(All, {
        f_int32: v,
        f_enum: v,
        o_int32: v,
        o_enum: v,
        r_int32: mixed,
        r_enum: mixed,
        u_int32: mixed,
      }),
    );
    const theirs = toBinary(
      All,
      create(All, { fInt32: v, fEnum: v, oInt32: v, oEnum: v, rInt32: mixed, rEnum: mixed, uInt32: mixed }),
    );
    expect(hex(ours)).toBe(hex(theirs));
  });
});
