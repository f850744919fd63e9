// Files of a normalized set (docs/design.md §4.3): one per strongly connected component of top-level
// declarations, named after its smallest full name, in dependency order with ties by name.
// Shared by normalization and the protobufjs lowering. Every pass works on integer ids and
// typed arrays, keeps its own stack (a chain of references is as long as the input makes it)
// and is linear but for the sorts by name.
import { compareNames } from "./closure.js";
import { invalid } from "./invalid.js";
import { MinHeap } from "./min-heap.js";

export const FileGroupCode = {
  CYCLE_SPANS_PACKAGES: "CYCLE_SPANS_PACKAGES",
} as const;

export interface FileGroup<T> {
  readonly name: string;
  readonly members: readonly T[];
  readonly dependencies: readonly string[];
}

/** A graph over ids 0..n-1: the successors of v are `to[from[v]]` .. `to[from[v + 1] - 1]`. */
interface Graph {
  readonly from: Int32Array;
  readonly to: Int32Array;
}

/**
 * Tarjan's algorithm with an explicit stack. Components are numbered in reverse topological
 * order: every component a component references has a smaller number.
 */
function stronglyConnected(n: number, g: Graph): { compOf: Int32Array; count: number } {
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack = new Int32Array(n);
  const work = new Int32Array(n);
  const cursor = new Int32Array(n);
  const compOf = new Int32Array(n);
  let sp = 0;
  let wp = 0;
  let counter = 0;
  let count = 0;
  const enter = (v: number): void => {
    index[v] = low[v] = counter++;
    stack[sp++] = v;
    onStack[v] = 1;
    cursor[v] = g.from[v]!;
    work[wp++] = v;
  };
  for (let s = 0; s < n; s++) {
    if (index[s] !== -1) continue;
    enter(s);
    while (wp > 0) {
      const v = work[wp - 1]!;
      if (cursor[v]! < g.from[v + 1]!) {
        const w = g.to[cursor[v]!++]!;
        if (index[w] === -1) enter(w);
        else if (onStack[w] === 1 && index[w]! < low[v]!) low[v] = index[w]!;
        continue;
      }
      wp--;
      if (wp > 0) {
        const u = work[wp - 1]!;
        if (low[v]! < low[u]!) low[u] = low[v]!;
      }
      if (low[v] === index[v]) {
        let w: number;
        do {
          w = stack[--sp]!;
          onStack[w] = 0;
          compOf[w] = count;
        } while (w !== v);
        count++;
      }
    }
  }
  return { compOf, count };
}

/**
 * Groups top-level declarations into files. `refs(t)` are the top-level declarations that t's
 * fields reference (members of `tops`). Throws CYCLE_SPANS_PACKAGES when a component spans
 * packages (one file has one package).
 */
export function groupIntoFiles<T>(
  rootName: string,
  tops: readonly T[],
  fullName: (t: T) => string,
  packageName: (t: T) => string,
  refs: (t: T) => Iterable<T>,
): FileGroup<T>[] {
  const n = tops.length;
  const id = new Map<T, number>();
  tops.forEach((t, i) => id.set(t, i));
  const names = tops.map(fullName);
  const from = new Int32Array(n + 1);
  const to: number[] = [];
  for (let v = 0; v < n; v++) {
    from[v] = to.length;
    for (const r of refs(tops[v]!)) {
      const w = id.get(r);
      if (w !== undefined) to.push(w);
    }
  }
  from[n] = to.length;
  const graph: Graph = { from, to: Int32Array.from(to) };
  const { compOf, count } = stronglyConnected(n, graph);

  const members: number[][] = Array.from({ length: count }, () => []);
  for (let v = 0; v < n; v++) members[compOf[v]!]!.push(v);
  const fileName: string[] = [];
  for (let c = 0; c < count; c++) {
    const m = members[c]!;
    m.sort((a, b) => compareNames(names[a]!, names[b]!));
    const first = m[0]!;
    const pkg = packageName(tops[first]!);
    for (const v of m) {
      const other = packageName(tops[v]!);
      if (other !== pkg) {
        throw invalid(
          rootName,
          FileGroupCode.CYCLE_SPANS_PACKAGES,
          `${names[first]} and ${names[v]} reference each other across packages ${pkg || "(none)"} and ${other || "(none)"}; move mutually recursive types into one package`,
        );
      }
    }
    fileName.push(`${names[first]}.proto`);
  }

  // The distinct components each component depends on, deduplicated by a stamp per component.
  const deps: number[][] = Array.from({ length: count }, () => []);
  const dependents: number[][] = Array.from({ length: count }, () => []);
  const stamp = new Int32Array(count).fill(-1);
  for (let c = 0; c < count; c++) {
    for (const v of members[c]!) {
      for (let e = from[v]!; e < from[v + 1]!; e++) {
        const d = compOf[graph.to[e]!]!;
        if (d === c || stamp[d] === c) continue;
        stamp[d] = c;
        deps[c]!.push(d);
        dependents[d]!.push(c);
      }
    }
  }
  // Kahn's algorithm, always taking the smallest ready name: a total, input-independent order.
  const remaining = Int32Array.from(deps, (d) => d.length);
  const ready = new MinHeap<number>((a, b) => fileName[a]! < fileName[b]!);
  for (let c = 0; c < count; c++) if (remaining[c] === 0) ready.push(c);
  const out: FileGroup<T>[] = [];
  while (ready.size > 0) {
    const c = ready.pop();
    out.push({
      name: fileName[c]!,
      members: members[c]!.map((v) => tops[v]!),
      dependencies: deps[c]!.map((d) => fileName[d]!).sort(compareNames),
    });
    for (const d of dependents[c]!) if (--remaining[d]! === 0) ready.push(d);
  }
  return out;
}
