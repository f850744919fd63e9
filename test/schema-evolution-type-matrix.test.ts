import { expect, test } from "vitest";
import { evaluateSchemaChange } from "../src/index.js";
import { messageFromDir } from "./support/buf.js";

// Every saved → current pair of field types, on `acme.Value.v(1)` with implicit presence.
// test/fixtures/compat-matrix/<type>/ holds the same schema with only the type of `v` changed
// (`kind` is the enum acme.Kind, `box` the message acme.Box).
const TYPES = [
  "double", "float", "int64", "uint64", "int32", "fixed64", "fixed32", "bool", "string",
  "bytes", "uint32", "sfixed32", "sfixed64", "sint32", "sint64", "kind", "box",
] as const;
type T = (typeof TYPES)[number];

// Besides the identical type, the only changes that keep every saved value and its meaning.
const READABLE: Partial<Record<T, readonly T[]>> = {
  int32: ["int64"],
  uint32: ["uint64", "int64"],
  sint32: ["sint64"],
  string: ["bytes"],
  kind: ["int32", "int64"],
};

function expectedRule(saved: T, current: T): string | undefined {
  if (saved === current || READABLE[saved]?.includes(current)) return undefined;
  // An empty saved message is zero bytes, which implicit-presence bytes reads as absent.
  if (saved === "box" && current === "bytes") return "MESSAGE_TO_BYTES_WITHOUT_PRESENCE";
  return "FIELD_TYPE_CHANGED";
}

const desc = Object.fromEntries(TYPES.map((t) => [t, messageFromDir(`fixtures/compat-matrix/${t}`, "acme.Value")]));
const pairs = TYPES.flatMap((s) => TYPES.map((c) => [s, c, expectedRule(s, c)] as const));

test.each(pairs)("%s → %s: %s", (saved, current, rule) => {
  const result = evaluateSchemaChange(desc[saved]!, desc[current]!);
  expect(result.incompatibilities.map((f) => [f.rule, f.path])).toEqual(
    rule === undefined ? [] : [[rule, "acme.Value.v(1)"]],
  );
  expect(result.notes).toEqual([]);
});
