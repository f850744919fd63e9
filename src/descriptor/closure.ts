// The type-reachable closure of a root message (docs/design.md §4.3): the top-level messages and enums
// reachable through field, map-value and enum types, each with all of its nested types. The
// import graph does not matter: unused and option-only imports never enter the closure.
import type { DescEnum, DescField, DescMessage } from "@bufbuild/protobuf";
import type { InvalidDescriptorError } from "../errors.js";
import { invalid } from "./invalid.js";
import { shortName } from "./names.js";

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

/**
 * The deepest nesting of a declaration (the number of messages around it) that can still decode.
 * protoc and @bufbuild/protobuf stop decoding a descriptor set at 100 levels of messages, and a
 * message inside k messages is at level k + 3 (the set, the file, the k protos around it, its
 * own): past 97 no normalized set can be read back. At 96 or 97 its fields and options may
 * still pass level 100; rule 8 (the rebuild at construction) rejects those as REBUILD_FAILED.
 */
export const MAX_NESTING_DEPTH = 97;

export const ClosureCode = {
  NESTING_TOO_DEEP: "NESTING_TOO_DEEP",
} as const;

/** The error for a declaration `what` (e.g. `message acme.A.B`) nested `depth` levels deep. */
export function nestingTooDeep(root: string, what: string, depth: number): InvalidDescriptorError {
  return invalid(
    root,
    ClosureCode.NESTING_TOO_DEEP,
    `${what} is nested ${depth} levels deep, above ${MAX_NESTING_DEPTH}; protoc and @bufbuild/protobuf read a descriptor set only to 100 levels of nesting, so this schema could never be read back; declare it at top level or nearer to it`,
  );
}

function what(d: Decl): string {
  return `${d.kind} ${shortName(d.typeName)}`;
}

/**
 * The top-level declaration around `d`. Climbing stops past MAX_NESTING_DEPTH with
 * NESTING_TOO_DEEP, so a reference into a deep nest costs at most that many steps.
 */
function topOf(rootName: string, d: Decl): Decl {
  let t: Decl = d;
  let depth = 0;
  while (t.parent !== undefined) {
    t = t.parent;
    if (++depth > MAX_NESTING_DEPTH) {
      for (let p = t.parent; p !== undefined; p = p.parent) depth++;
      throw nestingTooDeep(rootName, what(d), depth);
    }
  }
  return t;
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

/**
 * Collects the closure of `root`. Throws NESTING_TOO_DEEP for a reachable declaration nested
 * deeper than MAX_NESTING_DEPTH. Nesting and chains come from the input, so the walk keeps its
 * own stack and never recurses.
 */
export function collectClosure(root: DescMessage): Closure {
  const rootName = root.typeName;
  const tops = new Set<Decl>();
  const messages: DescMessage[] = [];
  const enums: DescEnum[] = [];
  const edges = new Map<Decl, Set<Decl>>();
  const queue: Decl[] = [];
  const reach = (d: Decl): Decl => {
    const top = topOf(rootName, d);
    if (!tops.has(top)) {
      tops.add(top);
      queue.push(top);
    }
    return top;
  };
  reach(root);
  const stack: Array<{ decl: Decl; depth: number }> = [];
  while (queue.length > 0) {
    const top = queue.pop()!;
    const out = new Set<Decl>();
    edges.set(top, out);
    stack.push({ decl: top, depth: 0 });
    while (stack.length > 0) {
      const { decl: d, depth } = stack.pop()!;
      if (depth > MAX_NESTING_DEPTH) throw nestingTooDeep(rootName, what(d), depth);
      if (d.kind === "enum") {
        enums.push(d);
        continue;
      }
      if (isMapEntry(d)) continue;
      messages.push(d);
      for (const f of d.fields) {
        const ref = referencedType(f);
        if (ref !== undefined) out.add(reach(ref));
      }
      for (const e of d.nestedEnums) stack.push({ decl: e, depth: depth + 1 });
      for (const m of d.nestedMessages) stack.push({ decl: m, depth: depth + 1 });
    }
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
