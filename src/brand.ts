// Brands registered with Symbol.for, so that the ESM and the CJS copy of this package (or two
// installed copies of one version) recognise each other's objects where `instanceof` fails and
// class names cannot be trusted (bundlers and minifiers rename classes). The number is the
// version of the object's internals: objects of a copy with other internals are not taken for ours.
export const MESSAGE_BRAND: unique symbol = Symbol.for("protokeel.DynamicMessage/1") as never;
export const TYPE_BRAND: unique symbol = Symbol.for("protokeel.ProtobufType/1") as never;

/** Whether `v` (an object, or a class's prototype) carries `brand`. */
export function hasBrand(v: unknown, brand: symbol): boolean {
  return (typeof v === "object" || typeof v === "function") && v !== null && (v as Record<symbol, unknown>)[brand] === true;
}

/** Whether `x` is a class whose instances carry `brand` (the DynamicMessage class of any copy). */
export function isBrandedClass(x: unknown, brand: symbol): boolean {
  return typeof x === "function" && hasBrand((x as { prototype?: unknown }).prototype, brand);
}
