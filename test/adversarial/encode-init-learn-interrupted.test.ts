// serializer.encode / toBinary of a plain init object goes through the direct writer
// (src/codec/generated-writer.ts), which caches the key order of the last object per type in
// plan.seqKeys / plan.seqCodes (learn()). Both are plain arrays grown by index assignment, which
// runs an index setter installed on Array.prototype; when that setter throws after
// `seqKeys[at] = k` and before `seqCodes[at] = code`, the cache holds the key with no code, and
// every later write of an object with that key order reads `fields[undefined].oi`: a raw
// TypeError ("Cannot read properties of undefined (reading 'oi')") from every encode of that
// serializer's type, for the life of the process. After an exception from user code, the next
// call must behave as on a fresh serializer.
import { afterEach, expect, test } from "vitest";
import { DynamicMessage } from "../../src/index.js";
import { typeOf } from "./support.js";

const SCHEMA = `message Leaf { int32 x = 1; Leaf kid = 2; }
message Item { int32 id = 1; Leaf leaf = 4; repeated Leaf leaves = 9; }`;
const value = { id: 5, leaf: { x: 1, kid: { x: 2 } }, leaves: [{ x: 4 }] };
const expected = typeOf(SCHEMA, "Item").createSerializer().encode(value);
const INDEXES = ["0", "1", "2", "3", "4", "5", "6", "7"];

afterEach(() => {
  for (const p of INDEXES) delete (Array.prototype as unknown as Record<string, unknown>)[p];
});

/** Encodes `value` with index setters on Array.prototype that throw at their n-th call; true when one threw. */
function interrupted(encode: () => unknown, n: number): boolean {
  let count = 0;
  let fired = false;
  for (const p of INDEXES) {
    Object.defineProperty(Array.prototype, p, {
      configurable: true,
      set(this: unknown[], v: unknown) {
        if (++count === n) {
          fired = true;
          throw new Error("application code failed");
        }
        Object.defineProperty(this, p, { value: v, writable: true, enumerable: true, configurable: true });
      },
    });
  }
  try {
    encode();
  } catch (e) {
    expect((e as Error).message).toBe("application code failed");
  } finally {
    for (const p of INDEXES) delete (Array.prototype as unknown as Record<string, unknown>)[p];
  }
  return fired;
}

// Every point of a first encode where the setter runs (the writes of the key-order cache among them).
test.each(Array.from({ length: 12 }, (_, i) => i + 1))("encode interrupted at index store %i: the next encode is a fresh serializer's", (n) => {
  const ser = typeOf(SCHEMA, "Item").createSerializer();
  if (!interrupted(() => ser.encode(value), n)) return;
  // Fails now for n = 2, 4, 6, 8, 10: TypeError: Cannot read properties of undefined (reading 'oi').
  expect(ser.encode(value)).toEqual(expected);
  expect(ser.toBinary(value)).toEqual(expected.subarray(1));
  expect(ser.encodeAll([value, value])).toEqual(Uint8Array.from([...expected, ...expected]));
});

// The dynamic writer keeps the same kind of memo for init objects (create.ts initValues:
// lastKeys and lastFields, a name and its field per position); grown by two pushes, a setter that
// threw between them left the names one ahead of the fields. An init object holding a
// DynamicMessage is written by that writer (the direct writer takes plain data only).
test.each(Array.from({ length: 12 }, (_, i) => i + 1))("a mixed init object interrupted at index store %i: the next write is a fresh serializer's", (n) => {
  const type = typeOf(SCHEMA, "Item");
  const mixed = (t: typeof type) => ({ id: 5, leaf: DynamicMessage.create(t.descriptor.fields.find((f) => f.name === "leaf")!.message!, { x: 1 }), leaves: [{ x: 4 }] });
  const want = type.createSerializer().encode(mixed(type));
  const fresh = typeOf(SCHEMA, "Item");
  const ser = fresh.createSerializer();
  if (!interrupted(() => ser.encode(mixed(fresh)), n)) return;
  expect(ser.encode(mixed(fresh))).toEqual(want);
  expect(ser.toBinary(mixed(fresh))).toEqual(want.subarray(1));
});
