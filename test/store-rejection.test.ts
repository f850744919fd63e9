// Issue 15, verification 2: each unsupported change fails to open on both backends with a
// StateStoreError carrying the evaluator's findings (rule ids and paths), against an accepted
// control that differs only in that change; nothing on disk is modified by the refused open.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { ProtobufType } from "../src/index.js";
import { DRIVERS, everything, fill, readingType, scratch, specsOf } from "./support/store.js";

const LIMITS = { maxDepth: 64, maxMessageBytes: 1 << 20 };
const SAVED = readingType("v1", LIMITS);

/** [change, the unsupported current type, the accepted control, the findings the error carries]. */
const UNSUPPORTED: [string, ProtobufType, ProtobufType, [string, string][]][] = [
  ["type change (int32 → uint32; control int32 → int64)", readingType("int32-uint32", LIMITS), readingType("int32-int64", LIMITS), [["FIELD_TYPE_CHANGED", "acme.Reading.count(2)"]]],
  ["removal without reservation (control: number reserved)", readingType("field-removed-not-reserved", LIMITS), readingType("field-removed-reserved", LIMITS), [["FIELD_REMOVED_NOT_RESERVED", "acme.Reading.note(4)"]]],
  ["explicit → implicit presence (control: unchanged)", readingType("explicit-implicit", LIMITS), readingType("v1", LIMITS), [["PRESENCE_EXPLICIT_TO_IMPLICIT", "acme.Reading.tag(6)"]]],
  ["message renamed (control: unchanged)", readingType("renamed", LIMITS), readingType("v1", LIMITS), [["MESSAGE_NAME_CHANGED", "acme.Sample"]]],
  ["lower maxDepth (control: the same maxDepth)", readingType("v1", { ...LIMITS, maxDepth: 32 }), readingType("v1", LIMITS), [["MAX_DEPTH_LOWERED", "acme.Reading"]]],
  ["lower maxMessageBytes (control: a higher one)", readingType("v1", { ...LIMITS, maxMessageBytes: 1 << 19 }), readingType("v1", { ...LIMITS, maxMessageBytes: 1 << 21 }), [["MAX_MESSAGE_BYTES_LOWERED", "acme.Reading"]]],
];

function digestOf(file: string): string {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

describe.each(DRIVERS)("$name backend", (driver) => {
  test.each(UNSUPPORTED)("%s", async (_change, bad, control, findings) => {
    const dir = scratch(`store-reject-${driver.name}`);
    const where = driver.name === "memory" ? join(dir, "state.ckpt") : dir;
    const dataFile = driver.name === "memory" ? where : join(dir, "data.mdb");
    const first = await driver.open(where, specsOf(SAVED), { fresh: true });
    await fill(first.store, SAVED);
    await first.close();
    const before = digestOf(dataFile);

    const err = await driver.open(where, specsOf(bad)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ name: "StateStoreError", code: "STATE_SCHEMA_INCOMPATIBLE", state: "current" });
    const e = err as { message: string; incompatibilities: { rule: string; path: string }[] };
    expect(e.incompatibilities.map((f) => [f.rule, f.path])).toEqual(findings);
    expect(e.message).toContain(`state "current" cannot be opened: its data was written with acme.Reading and the current ${bad.fullName} cannot read it (rules: ${findings.map(([r, p]) => `${r} at ${p}`).join(", ")}); the store was not modified`);
    expect(digestOf(dataFile)).toBe(before);

    // The control differs only in that change: it opens and reads every value.
    const ok = await driver.open(where, specsOf(control));
    expect(everything(ok.store)).toHaveLength(9);
    if (driver.name === "lmdb") await ok.close();
  });

  test("a state saved as one kind and declared as another does not open", async () => {
    const dir = scratch(`store-kind-${driver.name}`);
    const where = driver.name === "memory" ? join(dir, "state.ckpt") : dir;
    const first = await driver.open(where, specsOf(SAVED), { fresh: true });
    await fill(first.store, SAVED);
    await first.close();
    const { listState, mapState, valueState } = await import("../src/store/index.js");
    const swapped = { current: listState(SAVED), history: listState(SAVED), byDevice: mapState(SAVED) };
    void valueState;
    await expect(driver.open(where, swapped as never)).rejects.toMatchObject({
      name: "StateStoreError",
      code: "STATE_KIND_CHANGED",
      state: "current",
      message: 'state "current" was saved as value state and is declared as list state; the store does not convert between state kinds: declare it as value state, or give the new state another name',
    });
  });
});
