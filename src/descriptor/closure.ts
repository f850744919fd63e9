// The type-reachable closure of a root message (DESIGN §4.3): the top-level messages and enums
// reachable through field, map-value and enum types, each with all of its nested types. The
// import graph does not matter: unused and option-only imports never enter the closure.
import type { DescEnum, DescField, DescMessage } from "@bufbuild/protobuf";

export type Decl = DescMessage | DescEnum;

export interface Closure {
  readonly root: DescMessage;
  /** Top-level declarations, sorted by full name. */
  readonly tops: readonly Decl[];
  /** Every message of the closure, map entries excluded (they are derived from their map field). */
  readonly messages: readonly DescMessage[];
  /** Every enum of the closure. */
  readonly enums: readonly DescEnum[];
  /** For each top-level declaration, the top-level declarations its fields reference (itself included). */
  readonly edges: ReadonlyMap<Decl, ReadonlySet<Decl>>;
}

export function topOf(desc: Decl): Decl {
  let d: Decl = desc;
  while (d.parent !== undefined) d = d.parent;
  return d;
}

export function isMapEntry(m: DescMessage): boolean {
  return m.proto.options?.mapEntry === true;
}

/** The message or enum a field refers to (list element, map value), if any. */
export function referencedType(field: DescField): Decl | undefined {
  switch (field.fieldKind) {
    case "message":
      return field.message;
    case "enum":
      return field.enum;
    case "list":
      return field.listKind === "message" ? field.message : field.listKind === "enum" ? field.enum : undefined;
    case "map":
      return field.mapKind === "message" ? field.message : field.mapKind === "enum" ? field.enum : undefined;
    default:
      return undefined;
  }
}

export function collectClosure(root: DescMessage): Closure {
  const tops = new Set<Decl>();
  const messages: DescMessage[] = [];
  const enums: DescEnum[] = [];
  const edges = new Map<Decl, Set<Decl>>();
  const queue: Decl[] = [];
  const reach = (d: Decl): Decl => {
    const top = topOf(d);
    if (!tops.has(top)) {
      tops.add(top);
      queue.push(top);
    }
    return top;
  };
  reach(root);
  while (queue.length > 0) {
    const top = queue.pop()!;
    const out = new Set<Decl>();
    edges.set(top, out);
    const walk = (d: Decl): void => {
      if (d.kind === "enum") {
        enums.push(d);
        return;
      }
      if (isMapEntry(d)) return;
      messages.push(d);
      for (const f of d.fields) {
        const ref = referencedType(f);
        if (ref !== undefined) out.add(reach(ref));
      }
      for (const e of d.nestedEnums) walk(e);
      for (const m of d.nestedMessages) walk(m);
    };
    walk(top);
  }
  const byName = (a: Decl, b: Decl): number => compareNames(a.typeName, b.typeName);
  return {
    root,
    tops: [...tops].sort(byName),
    messages: messages.sort(byName),
    enums: enums.sort(byName),
    edges,
  };
}

/** Code-unit order: the same in every JS engine and locale, so normalized bytes never depend on one. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
