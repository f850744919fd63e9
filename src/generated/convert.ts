// The generated kind's reference write path (docs/design.md §11), run only for a value that the
// direct writer (src/codec/generated-writer.ts) refused, to name its fault: protobuf-es message
// objects (`$typeName`, fields by local name, oneofs as `{ case, value }`, maps as plain objects,
// `$unknown` as `{ no, wireType, data }` with the payload after the tag) to the dynamic writer's
// value form, through a plan per descriptor instance computed once. `fromGenerated` checks a
// protobuf-es object against the paired declaration (its `$typeName`, each field with
// DynamicMessage.create's rules) and gives the writer a value bound to that declaration, so that
// every write check (unknown-field collisions, limits, depth, deterministic order) is the dynamic
// kind's, with its errors. The direct writer makes the same checks; any it fails, this path names.
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { StructTooDeep, structToMessage } from "./struct.js";
import { isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { bytesValue, isBytes, MAX_FIELD_NUMBER, varintBytes } from "../bytes.js";
import { CodecError } from "../errors.js";
import { coerceValueField, describeValue, listForWrite, mapInput, rooted } from "../message/coerce.js";
import { prototypePolluted } from "../message/create.js";
import { DynamicMessage } from "../message/dynamic-message.js";
import { K_LIST, K_MAP, K_MESSAGE, messageInfo, type FieldInfo } from "../message/field-info.js";
import type { UnknownField } from "../message/unknown-fields.js";
import { keySegment, quoted, shortPath } from "../descriptor/names.js";

/** How a message-valued field is held by protobuf-es. */
const M_PLAIN = 0;
/** A google.protobuf wrapper in a singular field outside a oneof: the bare scalar. */
const M_WRAPPER = 1;
/** google.protobuf.Struct in a field of any message but google.protobuf.Value: a JsonObject. */
const M_STRUCT = 2;

interface FieldPlan {
  readonly fi: FieldInfo;
  readonly local: string;
  /** The oneof's local name for a member, else undefined. */
  readonly oneof: string | undefined;
  readonly message: number;
  /** Explicit presence outside a oneof: read as an own property only (as the writer and protobuf-es read it). */
  readonly presence: boolean;
  /** `.name(number)`, for error paths. */
  readonly seg: string;
  child: GenPlan | undefined;
}

interface GenPlan {
  readonly desc: DescMessage;
  readonly typeName: string;
  readonly fields: readonly FieldPlan[];
  /** Local names of fields and oneofs, and `$typeName`, `$unknown`. */
  readonly known: ReadonlySet<string>;
  /** Local names of the oneofs. */
  readonly oneofs: readonly string[];
  /** Per oneof (as in `oneofs`), its members' local names: the cases it declares. */
  readonly cases: readonly ReadonlySet<string>[];
}

const plans = new WeakMap<DescMessage, GenPlan>();

/** As protobuf-es (and src/codec/generated-reader.ts): Struct first, wrappers in singular fields only. */
function messageMode(f: DescField): number {
  if (f.message?.typeName === "google.protobuf.Struct" && f.parent.typeName !== "google.protobuf.Value") return M_STRUCT;
  if (f.fieldKind === "message" && f.oneof === undefined && isWrapperDesc(f.message)) return M_WRAPPER;
  return M_PLAIN;
}

/** The plan of `desc` and of every message type it reaches, without recursion. */
export function genPlanOf(desc: DescMessage): GenPlan {
  const known = plans.get(desc);
  if (known !== undefined) return known;
  const built: GenPlan[] = [];
  const work: DescMessage[] = [desc];
  const fresh = new Map<DescMessage, GenPlan>();
  while (work.length > 0) {
    const d = work.pop()!;
    if (plans.has(d) || fresh.has(d)) continue;
    const info = messageInfo(d);
    const fields = info.fields.map((fi): FieldPlan => {
      const f = fi.field;
      if (f.message !== undefined) work.push(f.message);
      return {
        fi,
        local: f.localName,
        oneof: f.oneof?.localName,
        message: fi.elemKind === K_MESSAGE ? messageMode(f) : M_PLAIN,
        presence: fi.explicit && fi.oneof < 0,
        seg: `.${fi.name}(${fi.number})`,
        child: undefined,
      };
    });
    const names = new Set<string>(["$typeName", "$unknown"]);
    for (const m of d.members) names.add(m.localName);
    const plan: GenPlan = {
      desc: d,
      typeName: d.typeName,
      fields,
      known: names,
      oneofs: d.oneofs.map((x) => x.localName),
      cases: d.oneofs.map((x) => new Set(x.fields.map((f) => f.localName))),
    };
    fresh.set(d, plan);
    built.push(plan);
  }
  for (const plan of built) {
    for (const fp of plan.fields) {
      const m = fp.fi.field.message;
      if (m !== undefined) fp.child = plans.get(m) ?? fresh.get(m)!;
    }
  }
  for (const plan of built) plans.set(plan.desc, plan);
  return plans.get(desc)!;
}

// --- write: protobuf-es objects → values bound to the paired declaration ---

/** The path of the value being converted, for errors: the root's full name, then segments. */
class Trail {
  readonly parts: string[] = [];
  constructor(readonly root: string) {}
  toString(): string {
    return this.root + this.parts.join("");
  }
}

function writeError(t: Trail, code: string, what: string): CodecError {
  const path = t.toString();
  return new CodecError(code, `cannot write ${t.root}: ${what.replace("{path}", () => shortPath(path, t.root))}`, { path });
}

function unknownFromEs(t: Trail, u: unknown, typeName: string): UnknownField[] | undefined {
  if (u === undefined) return undefined;
  if (!Array.isArray(u)) throw writeError(t, "GENERATED_UNKNOWN_INVALID", `$unknown at {path} is ${describeValue(u)}, not an array of { no, wireType, data }; keep the $unknown that protobuf-es or protokeel gave`);
  if (u.length === 0) return undefined;
  const out: UnknownField[] = [];
  for (const e of u as unknown[]) {
    const { no, wireType, data: given } = (e ?? {}) as { no?: unknown; wireType?: unknown; data?: unknown };
    const data = isBytes(given) ? bytesValue(given) : given;
    if (typeof no !== "number" || !Number.isInteger(no) || typeof wireType !== "number" || !Number.isInteger(wireType) || wireType < 0 || wireType > 7 || !isBytes(data)) {
      throw writeError(t, "GENERATED_UNKNOWN_INVALID", `$unknown at {path} holds ${describeValue(e)}, not { no, wireType, data: Uint8Array }; keep the $unknown that protobuf-es or protokeel gave`);
    }
    // The dynamic kind's error (acceptance.ts), before the tag is made: no * 8 of a number past
    // ~2.2e307 is Infinity, whose varint never ends.
    if (no < 1 || no > MAX_FIELD_NUMBER) throw writeError(t, "UNKNOWN_FIELD_NUMBER_INVALID", `unknown field number ${no} at {path} is outside 1..${MAX_FIELD_NUMBER}; remove it`);
    const tag = varintBytes(no * 8 + wireType);
    const full = new Uint8Array(tag.length + data.length);
    full.set(tag, 0);
    full.set(data, tag.length);
    out.push({ number: no, data: full });
  }
  return out;
}

/** One protobuf-es object being converted (the conversion keeps its open objects on a stack). */
interface Task {
  readonly o: Record<string, unknown>;
  readonly plan: GenPlan;
  readonly values: unknown[];
  /** Nesting depth (the root is 1; a map entry counts as a level). */
  readonly depth: number;
  /** Own properties with a value seen so far (see `present` in `open`). */
  present: number;
  /** Next field. */
  i: number;
  /** The message-holding list or map field in progress: its elements (and keys), next element, stored form. */
  items: readonly unknown[] | undefined;
  keys: readonly unknown[] | undefined;
  j: number;
  acc: DynamicMessage[] | Map<unknown, DynamicMessage> | undefined;
  /** The trail's length when the object was opened: the parts that lead to it. */
  readonly trail: number;
}

/**
 * Checks an object's $typeName and starts its conversion. The object is converted where the
 * paired declaration `plan.desc` is read.
 */
function open(obj: unknown, plan: GenPlan, t: Trail, depth: number, maxDepth: number): Task {
  if (depth > maxDepth) {
    throw writeError(t, "DEPTH_LIMIT_EXCEEDED", `nesting depth ${depth} at {path} exceeds maxDepth ${maxDepth} (a map entry counts as a level); raise maxDepth or flatten the value`);
  }
  if (obj === null || typeof obj !== "object") {
    throw writeError(t, "NOT_A_GENERATED_MESSAGE", `expected a protobuf-es message ${plan.typeName} at {path}, got ${describeValue(obj)}; build it with create(${shortSchema(plan.typeName)}, init)`);
  }
  const o = obj as Record<string, unknown>;
  const typeName = o.$typeName;
  if (typeName !== plan.typeName) {
    if (typeof typeName !== "string") {
      throw writeError(t, "NOT_A_GENERATED_MESSAGE", `expected a protobuf-es message ${plan.typeName} at {path}, got ${describeValue(obj)} without a $typeName; build it with create(${shortSchema(plan.typeName)}, init)`);
    }
    throw writeError(
      t,
      "INCOMPATIBLE_VALUE_DESCRIPTOR",
      `value at {path} is a protobuf-es message of ${typeName}, which the paired declaration ${plan.typeName} does not accept: full name changed from ${typeName} to ${plan.typeName} (MESSAGE_NAME_CHANGED at ${plan.typeName}); build the value with create(${shortSchema(plan.typeName)}, init)`,
    );
  }
  // Own properties with a value: $typeName, $unknown and the declared ones, counted to skip the
  // search for undeclared properties when there can be none.
  let present = ownUnknown(o) === undefined ? 1 : 2;
  const oneofs = plan.oneofs;
  for (let i = 0; i < oneofs.length; i++) {
    const c = o[oneofs[i]!];
    if (c === undefined) continue;
    present++;
    oneofCase(c, oneofs[i]!, plan.cases[i]!, plan.typeName, t);
  }
  return { o, plan, values: new Array<unknown>(plan.fields.length), depth, present, i: 0, items: undefined, keys: undefined, j: 0, acc: undefined, trail: t.parts.length };
}

/** Ends a task: the undeclared-property check, the unknown fields, the value. */
function close(task: Task, t: Trail): DynamicMessage {
  const o = task.o;
  const plan = task.plan;
  if (Object.keys(o).length !== task.present) undeclared(o, plan, t);
  return DynamicMessage._fromDecoded(plan.desc, task.values, unknownFromEs(t, ownUnknown(o), plan.typeName), undefined);
}

/** `$unknown` as an own property only (the generated writer never reads an inherited one). */
function ownUnknown(o: Record<string, unknown>): unknown {
  return Object.hasOwn(o, "$unknown") ? o.$unknown : undefined;
}

/**
 * A message element under field `fp`: a value at once (an unboxed wrapper), or the object to
 * convert (a Struct held as JSON is turned into its message form first).
 */
function element(t: Trail, task: Task, fp: FieldPlan, v: unknown, depth: number, maxDepth: number): DynamicMessage | { readonly obj: unknown } {
  const child = fp.child!;
  switch (fp.message) {
    case M_WRAPPER: {
      let x: unknown;
      try {
        x = coerceValueField(child.fields[0]!.fi, v);
      } catch (e) {
        // Named from the object that holds the wrapper; fromGenerated roots that object's name.
        throw rooted(e, child.typeName, task.plan.typeName + t.parts.slice(task.trail).join(""));
      }
      const values = new Array<unknown>(1);
      if (x !== undefined) values[0] = x;
      return DynamicMessage._fromDecoded(child.desc, values, undefined, undefined);
    }
    case M_STRUCT:
      if (v === null || typeof v !== "object" || Array.isArray(v)) {
        throw writeError(t, "GENERATED_VALUE_INVALID", `google.protobuf.Struct at {path} is held as a JSON object by protobuf-es, got ${describeValue(v)}`);
      }
      try {
        return { obj: structToMessage(v, depth, maxDepth) };
      } catch (e) {
        if (!(e instanceof StructTooDeep)) throw e;
        throw writeError(
          t,
          "DEPTH_LIMIT_EXCEEDED",
          `google.protobuf.Struct at {path} nests JSON objects and arrays more than ${e.levels} deep, past maxDepth ${maxDepth} (each is at least one level; a cyclic object never ends); raise maxDepth or flatten the value`,
        );
      }
    default:
      return { obj: v };
  }
}

/**
 * A value bound to `plan.desc` (the paired declaration) for the writer, from a protobuf-es object.
 * Its `$typeName` must be the declaration's full name: objects carry no schema, so one of another
 * message type is refused (`INCOMPATIBLE_VALUE_DESCRIPTOR`), and a property the declaration does not
 * declare must hold no data (an object of an earlier version of the schema may still carry a
 * removed field's zero), else `GENERATED_FIELD_NOT_DECLARED`: nothing is dropped silently. Nested
 * objects are converted with an explicit stack, never by recursion, so any depth up to
 * `maxDepth` converts, and a cyclic object ends at `maxDepth` with DEPTH_LIMIT_EXCEEDED.
 */
export function fromGenerated(obj: unknown, plan: GenPlan, t: Trail, maxDepth: number): DynamicMessage {
  const stack: Task[] = [open(obj, plan, t, 1, maxDepth)];
  try {
    return convert(stack, t, maxDepth, prototypePolluted());
  } catch (e) {
    // A value error names the type its field is declared in: it gets the path of the object.
    if (stack.length < 2) throw e;
    const top = stack[stack.length - 1]!;
    throw rooted(e, top.plan.typeName, shortPath(t.root + t.parts.slice(0, top.trail).join(""), t.root));
  }
}

/** The conversion of fromGenerated, from its stack of open objects. */
function convert(stack: Task[], t: Trail, maxDepth: number, polluted: boolean): DynamicMessage {
  for (;;) {
    const task = stack[stack.length - 1]!;
    if (task.items !== undefined) {
      // A message list or map in progress: the next element, or the field's end.
      const fp = task.plan.fields[task.i]!;
      if (task.j < task.items.length) {
        const j = task.j++;
        const key = task.keys === undefined ? undefined : task.keys[j];
        t.parts.push(key === undefined ? `[${j}]` : keySegment(String(key)));
        const depth = task.depth + (key === undefined ? 1 : 2);
        const e = element(t, task, fp, task.items[j], depth, maxDepth);
        if (e instanceof DynamicMessage) {
          t.parts.pop();
          if (key === undefined) (task.acc as DynamicMessage[]).push(e);
          else (task.acc as Map<unknown, DynamicMessage>).set(key, e);
        } else {
          stack.push(open(e.obj, fp.child!, t, depth, maxDepth));
        }
        continue;
      }
      task.values[task.i] = task.acc;
      task.items = task.keys = task.acc = undefined;
      t.parts.pop();
      task.i++;
      continue;
    }
    const fields = task.plan.fields;
    const o = task.o;
    const values = task.values;
    // Locals in the field loop, written back when it stops for a nested object.
    let i = task.i;
    let present = task.present;
    let opened = false;
    for (; i < fields.length; i++) {
      const fp = fields[i]!;
      let raw: unknown;
      // Inherited values as the generated writer reads them (its ownKeys): with Object.prototype
      // polluted none, and a field with explicit presence only as an own property. (This path
      // names the fault of a value the writer refused: an inherited value it skipped was named.)
      if (fp.oneof !== undefined) {
        if (polluted && !Object.hasOwn(o, fp.oneof)) continue;
        const c = o[fp.oneof] as { case?: unknown; value?: unknown } | undefined;
        if (c === undefined || c === null || c.case !== fp.local) continue;
        raw = c.value;
      } else {
        raw = o[fp.local];
        if (raw === undefined || ((fp.presence || polluted) && !Object.hasOwn(o, fp.local))) continue;
        present++;
      }
      if (raw === null) continue;
      const fi = fp.fi;
      if (fi.elemKind !== K_MESSAGE) {
        const stored = fi.kind === K_LIST ? listForWrite(fi, raw) : coerceValueField(fi, raw);
        if (stored !== undefined) values[i] = stored;
        continue;
      }
      if (fi.kind === K_LIST) {
        if (!Array.isArray(raw)) throw new TypeError(`field ${fi.label} is repeated and expects an array, got ${describeValue(raw)}`);
        if (raw.length === 0) continue;
        t.parts.push(fp.seg);
        task.items = raw;
        task.keys = undefined;
        task.acc = [];
        task.j = 0;
        opened = true;
        break;
      }
      if (fi.kind === K_MAP) {
        const entries = mapInput(fi, raw);
        if (entries.length === 0) continue;
        t.parts.push(fp.seg);
        task.items = entries.map((e) => e[1]);
        task.keys = entries.map((e) => e[0]);
        task.acc = new Map();
        task.j = 0;
        opened = true;
        break;
      }
      // A singular message: a value at once, or an object converted on top of this one.
      t.parts.push(fp.seg);
      const e = element(t, task, fp, raw, task.depth + 1, maxDepth);
      if (e instanceof DynamicMessage) {
        t.parts.pop();
        values[i] = e;
        continue;
      }
      task.i = i;
      task.present = present;
      stack.push(open(e.obj, fp.child!, t, task.depth + 1, maxDepth));
      opened = true;
      break;
    }
    task.i = i;
    task.present = present;
    if (opened) continue;
    // Every field of the top task is done.
    const done = close(task, t);
    stack.pop();
    if (stack.length === 0) return done;
    const parent = stack[stack.length - 1]!;
    // The element's segment, or the singular field's.
    t.parts.pop();
    if (parent.items !== undefined) {
      const key = parent.keys === undefined ? undefined : parent.keys[parent.j - 1];
      if (key === undefined) (parent.acc as DynamicMessage[]).push(done);
      else (parent.acc as Map<unknown, DynamicMessage>).set(key, done);
    } else {
      parent.values[parent.i++] = done;
    }
  }
}

/**
 * Throws for a oneof that holds data the write would drop: a value that is not `{ case, value }`,
 * or a case naming no member of this oneof (a member an earlier version of the schema had, or one
 * of another oneof). protobuf-es' toBinary writes nothing for either; nothing is dropped silently.
 */
function oneofCase(c: unknown, oneof: string, cases: ReadonlySet<string>, typeName: string, t: Trail): void {
  if (c === null) return;
  if (typeof c !== "object") {
    if (!holdsData(c)) return;
    throw writeError(t, "GENERATED_VALUE_INVALID", `oneof ${oneof} at {path} is held as { case, value } by protobuf-es, got ${describeValue(c)}; set { case: "<member>", value }`);
  }
  const name = (c as { case?: unknown }).case;
  if (name === undefined || (typeof name === "string" && cases.has(name))) return;
  throw writeError(
    t,
    "GENERATED_FIELD_NOT_DECLARED",
    `value at {path} has oneof ${oneof} set to case ${typeof name === "string" ? quoted(name) : describeValue(name)}, which is not a member of ${typeName}'s oneof ${oneof} (an object of another version of the schema?); the write would drop it, so set a declared member or write with a serializer of the schema that declares it`,
  );
}

/** Throws for an own property that the declaration does not declare and that holds data. */
function undeclared(o: Record<string, unknown>, plan: GenPlan, t: Trail): void {
  for (const key of Object.keys(o)) {
    if (plan.known.has(key)) continue;
    const v = o[key];
    if (!holdsData(v)) continue;
    throw writeError(
      t,
      "GENERATED_FIELD_NOT_DECLARED",
      `value at {path} has property "${key}" holding ${describeValue(v)}, which ${plan.typeName} does not declare (an object of another version of the schema?); the write would drop it, so remove it or write with a serializer of the schema that declares it`,
    );
  }
}

/** True unless `v` is what protobuf-es holds for an unset field (a zero, empty list/map, unset oneof). */
export function holdsData(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === 0n || v === "") return false;
  if (v instanceof Uint8Array) return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") {
    const c = v as { case?: unknown };
    if ("case" in c && c.case === undefined) return false;
    if (Object.getPrototypeOf(v) === Object.prototype && Object.keys(v).length === 0) return false;
    return true;
  }
  return true;
}

/** `acme.Order` → `OrderSchema`: how protoc-gen-es names the schema of a message. */
export function shortSchema(typeName: string): string {
  return `${typeName.slice(typeName.lastIndexOf(".") + 1)}Schema`;
}

export { Trail };
