// Deterministic output orders map entries by key, as protobuf's C++ and Go deterministic modes
// do; everything else (fields by number, unknown fields last) is the writer's one order anyway.

export function keyOrder(a: unknown, b: unknown): number {
  if (typeof a === "string") return utf8Order(a, b as string);
  // number, bigint and boolean (false < true) compare with <.
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

/**
 * String keys sort by their UTF-8 bytes, as protobuf's C++ and Go deterministic modes do. That is
 * code point order, which differs from JavaScript's UTF-16 order only where a surrogate (a code
 * point above U+FFFF) meets U+E000..U+FFFF: lifting surrogates above 0xFFFF fixes exactly that.
 */
function utf8Order(a: string, b: string): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && x < 0xe000) x += 0x10000;
    if (y >= 0xd800 && y < 0xe000) y += 0x10000;
    return x - y;
  }
  return a.length - b.length;
}

/** The keys of a map in the order they are written. */
export function mapKeys(m: ReadonlyMap<unknown, unknown>, sorted: boolean): unknown[] {
  const keys = [...m.keys()];
  return sorted && keys.length > 1 ? keys.sort(keyOrder) : keys;
}
