// The core (assembly/) and the TypeScript that drives it (src/wasm/) each name the numbers of
// their shared formats: status codes, the layout table, the decode tape and the control block.
// This test reads the core's constants from its source and pins every one to its TypeScript
// twin, as public-api.test.ts pins the export list. Where the two sides count in different
// units the names say so: a core `_BYTE`/`_BYTES` offset with no twin of its own name is a
// TypeScript `_WORD`/`_WORDS` index (value / 4).
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import * as ctrl from "../src/wasm/ctrl.js";
import * as status from "../src/wasm/status.js";
import * as table from "../src/wasm/table.js";
import * as tape from "../src/wasm/tape.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The `export const NAME: type = value;` lines of a core file, with their values. */
function coreConstants(file: string): Map<string, number | undefined> {
  const text = readFileSync(join(root, "assembly", file), "utf8");
  const out = new Map<string, number | undefined>();
  for (const m of text.matchAll(/^export const (\w+): \w+ = ([^;]+);/gm)) out.set(m[1]!, value(m[2]!.trim()));
  return out;
}

/** Literals and `a << b` only; anything else (e.g. `memory.data(...)`, an address) is undefined. */
function value(expr: string): number | undefined {
  let m = /^(-?\d+)$/.exec(expr);
  if (m) return Number(m[1]);
  m = /^0x([0-9a-f]+)$/i.exec(expr);
  if (m) return parseInt(m[1]!, 16);
  m = /^(\d+) << (\d+)$/.exec(expr);
  if (m) return Number(m[1]) << Number(m[2]);
  return undefined;
}

/** The TypeScript name and value of a core constant's twin (units converted). */
function twin(name: string, ts: Record<string, unknown>): [string, number, number] {
  // Same name, same unit (OP_BYTES and KIND_BYTES name the protobuf type, not a unit).
  if (name in ts) return [name, ts[name] as number, 1];
  let m = /^(\w+)_BYTE$/.exec(name);
  if (m) return [`${m[1]}_WORD`, ts[`${m[1]}_WORD`] as number, 4];
  m = /^(\w+)_BYTES$/.exec(name);
  if (m) return [`${m[1]}_WORDS`, ts[`${m[1]}_WORDS`] as number, 4];
  return [name, ts[name] as number, 1];
}

// Constants with no TypeScript twin, each for a reason.
const NO_TWIN = new Set([
  "CTRL", // the block's address: JS asks the core for it (ctrl())
]);

const files: [string, Record<string, unknown>][] = [
  ["status.ts", status],
  ["table.ts", table],
  ["tape.ts", tape],
  ["ctrl.ts", ctrl],
];

const rows = files.flatMap(([file, ts]) =>
  [...coreConstants(file)].filter(([name]) => !NO_TWIN.has(name)).map(([name, v]) => [file, name, v, ts] as const),
);

describe("every constant of the core has a TypeScript twin of the same value", () => {
  test("the core files declare the constants this test reads", () => {
    expect(rows.length).toBeGreaterThan(70);
    for (const [, name, v] of rows) expect([name, typeof v]).toEqual([name, "number"]);
  });

  test.each(rows.map(([file, name, v, ts]) => [`${file} ${name}`, name, v, ts] as const))("%s", (_, name, v, ts) => {
    const [tsName, tsValue, unit] = twin(name, ts);
    expect({ [tsName]: tsValue * unit }).toEqual({ [tsName]: v });
  });
});

test("no codec file keeps a private copy of a core constant", () => {
  const names = new Set(rows.map(([, name]) => name).concat(rows.map(([, name, , ts]) => twin(name, ts)[0])));
  const copies: string[] = [];
  for (const dir of ["codec", "message", "descriptor", "compat", "snapshot"]) {
    for (const f of readdirSync(join(root, "src", dir))) {
      if (!f.endsWith(".ts")) continue;
      const text = readFileSync(join(root, "src", dir, f), "utf8");
      for (const m of text.matchAll(/^(?:export )?const (\w+)\s*=/gm)) if (names.has(m[1]!)) copies.push(`src/${dir}/${f}: ${m[1]}`);
    }
  }
  expect(copies).toEqual([]);
});
