// What a DynamicMessage hands out of its own state (a repeated field's array, a map field's Map,
// the unknown-field map) is the value's state itself: values are immutable, and writers trust
// that (a value accepted once is written again unchecked, docs/design.md §13). An element pushed
// onto an array `get` returned was written unchecked ("zz" in a fixed32 list as 0, -5 as
// 0xfffffffb), and a `set` on the shared empty map showed in every value's empty map fields. So
// what `get` returns refuses writes: arrays are frozen, and a Map (which has no frozen form: its
// entries are not properties) gets own `set`, `delete` and `clear` that throw. Done as they are
// handed out, not when values are built: a decode builds arrays nobody may ask for, and freezing
// an array of doubles boxes its elements. Own methods do not stop `Map.prototype.set.call(map,
// …)`, so a map field's Map is handed out as a copy (made once per Map, then the same one): a
// string key put into an int32 map that way made the next write throw Node's ERR_INVALID_ARG_TYPE,
// and an entry deleted from a map of messages vanished from the bytes but not from equals.

function refuse(name: string): () => never {
  return () => {
    throw new TypeError(
      `cannot ${name} on a map of a DynamicMessage: values are immutable; build a changed value with msg.toBuilder().put(...) or DynamicMessage.create, or copy the map with new Map(map)`,
    );
  };
}

const REFUSALS: readonly [string, () => never][] = [
  ["set", refuse("set")],
  ["delete", refuse("delete")],
  ["clear", refuse("clear")],
];

/** `m`, its own `set`, `delete` and `clear` refusing (once: then frozen). */
export function readOnlyMap<K, V>(m: Map<K, V>): ReadonlyMap<K, V> {
  if (!Object.isFrozen(m)) {
    for (const [name, fn] of REFUSALS) Object.defineProperty(m, name, { value: fn });
    Object.freeze(m);
  }
  return m;
}

/** The read-only copies handed out, by the value's own Map. */
const handedOut = new WeakMap<Map<unknown, unknown>, ReadonlyMap<unknown, unknown>>();

/** A repeated or map field's value as `get` hands it out (see the file comment). */
export function readOnlyValue(v: unknown): unknown {
  if (v instanceof Map) {
    let out = handedOut.get(v);
    if (out === undefined) handedOut.set(v, (out = readOnlyMap(new Map(v))));
    return out;
  }
  if (Array.isArray(v) && !Object.isFrozen(v)) Object.freeze(v);
  return v;
}
