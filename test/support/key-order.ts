/**
 * Every object's own keys in order, recursively (arrays by index, typed arrays and other values as
 * their type): equal for two values exactly when their objects list the same keys in the same order.
 */
export function keyOrder(v: unknown): unknown {
  if (v === null || typeof v !== "object" || ArrayBuffer.isView(v)) return typeof v;
  if (Array.isArray(v)) return v.map(keyOrder);
  return Object.keys(v).map((k) => [k, keyOrder((v as Record<string, unknown>)[k])]);
}
