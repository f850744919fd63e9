// Builds DynamicMessage values from init objects (DynamicMessage.create, builder setters). Nested
// plain init objects are converted with an explicit stack, never by recursion, so an init object
// nested as deep as maxDepth allows is fine, and one that contains itself is refused by name
// instead of overflowing the stack.
import type { DescMessage } from "@bufbuild/protobuf";
import { coerceValueField, describeValue, isPlainObject, listForWrite, listInput, mapInput, rooted } from "./coerce.js";
import { DynamicMessage, isDynamicMessage } from "./dynamic-message.js";
import { K_LIST, K_MAP, K_MESSAGE, levels, messageInfo, type FieldInfo, type MessageInfo } from "./field-info.js";
import { EMPTY_UNKNOWN } from "./unknown-fields.js";
import { newValues } from "./values.js";
import { keySegment, quoted, shortPath } from "../descriptor/names.js";

/** The FieldInfo of a proto field name, or a TypeError that says which name to use. */
export function fieldByName(info: MessageInfo, name: unknown): FieldInfo {
  if (typeof name !== "string") {
    throw new TypeError(`${info.desc.typeName} field names are strings, got ${describeValue(name)}`);
  }
  const fi = info.byName.get(name);
  if (fi !== undefined) return fi;
  const alt = info.fields.find((f) => f.field.localName === name || f.jsonName === name);
  if (alt !== undefined) {
    throw new TypeError(`${info.desc.typeName} has no field ${quoted(name)}; use the proto field name "${alt.name}"`);
  }
  throw new TypeError(`${info.desc.typeName} has no field ${quoted(name)}; use a field name as declared in the .proto file`);
}

/** One init object being converted. */
interface Task {
  readonly desc: DescMessage;
  readonly info: MessageInfo;
  readonly init: Readonly<Record<string, unknown>>;
  readonly names: readonly string[];
  /** Next name of `names`. */
  n: number;
  readonly values: unknown[];
  readonly oneofSet: (string | undefined)[];
  /** The message-holding field in progress, its input (list elements or map entries) and stored form. */
  fi: FieldInfo | undefined;
  items: readonly unknown[] | undefined;
  j: number;
  stored: unknown[] | Map<unknown, unknown> | undefined;
  /** Where this task's value goes: the parent's field and the element's key (for a cycle's path). */
  readonly parent: Task | undefined;
  readonly key: unknown;
}

function task(desc: DescMessage, init: Readonly<Record<string, unknown>>, parent: Task | undefined, key: unknown): Task {
  const info = messageInfo(desc);
  return {
    desc, info, init, names: Object.keys(init), n: 0, values: newValues(info.fields.length),
    oneofSet: newValues(info.oneofs.length) as (string | undefined)[], fi: undefined, items: undefined, j: 0,
    stored: undefined, parent, key,
  };
}

/** `acme.Node.next(1).items(2)[0]`: where a task's init object sits in the root init object. */
function pathOf(t: Task): string {
  const parts: string[] = [];
  for (let c: Task = t; c.parent !== undefined; c = c.parent) {
    const fi = c.parent.fi!;
    parts.push(`.${fi.name}(${fi.number})${keySegment(c.key)}`);
  }
  let root = t;
  while (root.parent !== undefined) root = root.parent;
  return root.desc.typeName + parts.reverse().join("");
}

function messageExpected(where: string, fi: FieldInfo, v: unknown): TypeError {
  return new TypeError(`${where} expects a DynamicMessage or a plain object for ${fi.field.message!.typeName}, got ${describeValue(v)}`);
}

/**
 * The stored value of `init` for `desc`: the iterative conversion behind DynamicMessage.create
 * (which checked that `init` is a plain object).
 */
export function build(desc: DescMessage, init: Readonly<Record<string, unknown>>): DynamicMessage {
  const stack: Task[] = [task(desc, init, undefined, undefined)];
  // The init objects being converted, root to top, once the stack is deep: one met again is a
  // cycle. A cycle always gets deep, and shallow trees (nearly all) skip the set's hashing.
  let open: Set<object> | undefined;
  let done: DynamicMessage | undefined;
  for (;;) {
    const t = stack[stack.length - 1]!;
    if (done !== undefined) {
      // A nested init object just became a value: it goes where its task was started.
      const fi = t.fi!;
      if (fi.kind === K_MESSAGE) {
        t.values[fi.index] = done;
        t.fi = undefined;
      } else if (fi.kind === K_LIST) (t.stored as unknown[]).push(done);
      else (t.stored as Map<unknown, unknown>).set((t.items![t.j - 1] as [unknown, unknown])[0], done);
      done = undefined;
    }
    // A list or map of messages in progress first, then the next fields.
    let child: Task | undefined;
    try {
      child = (t.fi !== undefined ? elements(t) : undefined) ?? fields(t);
    } catch (e) {
      throw t.parent === undefined ? e : rooted(e, t.desc.typeName, shortPath(pathOf(t), desc.typeName));
    }
    if (child !== undefined) {
      stack.push(child);
      if (open === undefined && stack.length > CYCLE_CHECK_DEPTH) open = new Set(stack.slice(0, -1).map((x) => x.init));
      if (open !== undefined) {
        if (open.has(child.init)) throw cycleError(desc, stack);
        open.add(child.init);
      }
      continue;
    }
    const value = acceptBuilt(DynamicMessage._fromDecoded(t.desc, t.values, EMPTY_UNKNOWN, undefined), t.info);
    stack.pop();
    if (open !== undefined) {
      open.delete(t.init);
      if (stack.length <= CYCLE_CHECK_DEPTH) open = undefined;
    }
    if (stack.length === 0) return value;
    done = value;
  }
}

/**
 * Marks `m`, a value create or a builder just made (every field checked), as accepted for its own
 * descriptor when a write of it by a serializer of that descriptor would check nothing more: it
 * holds no unknown fields, and every message below it is a value of this copy bound to its
 * field's declared type and accepted so itself. Its height is the one the writer computes (1 with
 * no nested message; a map entry is a level). A first write then takes the trusted path (writer.ts,
 * trustedFields) instead of a frame per message: a fresh value is what most writes write.
 */
export function acceptBuilt(m: DynamicMessage, info: MessageInfo): DynamicMessage {
  if (m._unknown.length > 0) return m;
  const values = m._values;
  const nested = info.levelFields;
  let h = 1;
  for (let i = 0; i < nested.length; i++) {
    const fi = nested[i]!;
    const v = values[fi.index];
    if (v === undefined) continue;
    if (fi.elemKind !== K_MESSAGE) {
      // A map of scalars: its entries are a level.
      if (h < 2) h = 2;
      continue;
    }
    const declared = fi.field.message!;
    const up = levels(fi);
    if (fi.kind === K_MESSAGE) {
      const c = heightIfAccepted(v, declared);
      if (c < 0) return m;
      if (c + up > h) h = c + up;
    } else {
      for (const x of fi.kind === K_LIST ? (v as readonly unknown[]) : (v as ReadonlyMap<unknown, unknown>).values()) {
        const c = heightIfAccepted(x, declared);
        if (c < 0) return m;
        if (c + up > h) h = c + up;
      }
    }
  }
  m._okFor = m.descriptor;
  m._height = h;
  return m;
}

/** The height of `v` when it is this copy's value of `declared` accepted for it, else -1. */
function heightIfAccepted(v: unknown, declared: DescMessage): number {
  return v instanceof DynamicMessage && v.descriptor === declared && v._okFor === declared && v._height > 0 ? v._height : -1;
}

/** Init objects this deep are checked for cycles (see build). */
const CYCLE_CHECK_DEPTH = 64;

/** Names the first init object of `stack` that is one of its own ancestors. */
function cycleError(desc: DescMessage, stack: readonly Task[]): TypeError {
  const seen = new Set<object>();
  let at = stack[stack.length - 1]!;
  for (const t of stack) {
    if (seen.has(t.init)) {
      at = t;
      break;
    }
    seen.add(t.init);
  }
  return new TypeError(
    `DynamicMessage.create(${desc.typeName}): the init object at ${pathOf(at)} is one of its own enclosing init objects (a cycle); a message value is a tree: build each level once`,
  );
}

/** Continues the init object's fields; returns a nested init object to convert first, if any. */
function fields(t: Task): Task | undefined {
  const { info, init, names, values } = t;
  while (t.n < names.length) {
    const name = names[t.n++]!;
    const fi = fieldByName(info, name);
    const raw = init[name];
    if (raw === undefined || raw === null) continue;
    if (fi.oneof >= 0) {
      const other = t.oneofSet[fi.oneof];
      if (other !== undefined) {
        throw new TypeError(
          `oneof ${t.desc.typeName}.${info.oneofs[fi.oneof]!.name} has two members set: "${other}" and "${fi.name}"; set at most one`,
        );
      }
      t.oneofSet[fi.oneof] = fi.name;
    }
    if (fi.elemKind !== K_MESSAGE) {
      const stored = coerceValueField(fi, raw);
      if (stored !== undefined) values[fi.index] = stored;
      continue;
    }
    if (fi.kind === K_MESSAGE) {
      if (isDynamicMessage(raw)) {
        values[fi.index] = raw;
        continue;
      }
      if (!isPlainObject(raw)) throw messageExpected(`field ${fi.label}`, fi, raw);
      t.fi = fi;
      return task(fi.field.message!, raw, t, undefined);
    }
    // A list or a map of messages: its elements one by one (elements() resumes it).
    t.fi = fi;
    t.j = 0;
    if (fi.kind === K_LIST) {
      t.items = listInput(fi, raw);
      t.stored = [];
    } else {
      t.items = mapInput(fi, raw);
      t.stored = new Map();
    }
    const next = elements(t);
    if (next !== undefined) return next;
  }
  return undefined;
}

/** Continues the list or map of messages in progress; returns a nested init object, if any. */
function elements(t: Task): Task | undefined {
  const fi = t.fi!;
  const items = t.items!;
  const isList = fi.kind === K_LIST;
  while (t.j < items.length) {
    const j = t.j++;
    const key = isList ? j : (items[j] as [unknown, unknown])[0];
    const v = isList ? items[j] : (items[j] as [unknown, unknown])[1];
    if (isDynamicMessage(v)) {
      if (isList) (t.stored as unknown[]).push(v);
      else (t.stored as Map<unknown, unknown>).set(key, v);
      continue;
    }
    if (!isPlainObject(v)) throw messageExpected(`field ${fi.label}${keySegment(key)}`, fi, v);
    return task(fi.field.message!, v, t, key);
  }
  const stored = t.stored!;
  const size = Array.isArray(stored) ? stored.length : stored.size;
  if (size > 0) t.values[fi.index] = stored;
  t.fi = undefined;
  t.items = undefined;
  t.stored = undefined;
  return undefined;
}

/**
 * Stored form of a whole field value (builder `set`): messages from DynamicMessage values or plain
 * init objects; `undefined` when the value means "absent".
 */
export function storedField(fi: FieldInfo, v: unknown): unknown {
  if (fi.elemKind !== K_MESSAGE) return coerceValueField(fi, v);
  if (fi.kind === K_MESSAGE) return storedMessage(`field ${fi.label}`, fi, v);
  if (fi.kind === K_LIST) {
    const input = listInput(fi, v);
    if (input.length === 0) return undefined;
    // A list of its own, not input.map's: an Array subclass's `map` may return an array the
    // caller keeps (and build() copies with the list's own `slice`), which it could change later.
    const n = input.length;
    const out: DynamicMessage[] = [];
    for (let i = 0; i < n; i++) out.push(storedMessage(`field ${fi.label}[${i}]`, fi, input[i]));
    return out;
  }
  const out = new Map<unknown, unknown>();
  for (const [k, e] of mapInput(fi, v)) out.set(k, storedMessage(`field ${fi.label}${keySegment(k)}`, fi, e));
  return out.size === 0 ? undefined : out;
}

/** One message element (builder `add`, `put`, `set`). */
export function storedMessage(where: string, fi: FieldInfo, v: unknown): DynamicMessage {
  if (isDynamicMessage(v)) return v;
  if (!isPlainObject(v)) throw messageExpected(where, fi, v);
  try {
    return build(fi.field.message!, v);
  } catch (e) {
    // `where` is "field <path>": the builder's own type and field, which the nested type's errors lack.
    throw rooted(e, fi.field.message!.typeName, where.slice("field ".length));
  }
}

const EMPTY: object = {};

/**
 * True while Object.prototype has an enumerable property (a polluted prototype): `for…in` then
 * lists it on every plain object, and the writers read it as a field of every object (or refused
 * every one as naming no field), where create, which reads own keys, did not. The writers test it
 * once per root value (the dynamic writer at the root's first init object), and test own keys
 * only when it is true: an own-property test per key costs more than this, and this once per
 * message was 5-8% of span encode (889 messages). Pollution is data merged into the prototype
 * before a write (the attack this guards against); a getter that pollutes it in the middle of a
 * write is code that could as well set the field itself.
 */
export function prototypePolluted(): boolean {
  for (const _ in EMPTY) return true;
  return false;
}

/**
 * Thrown by initValues for a message map whose keys stand for one stored key ("1" and "01" of an
 * int32-keyed plain object, 1n and 1 in a Map): create checks every value, the ones it overwrites
 * too, where a write of the last alone would not (a bad overwritten value was written without an
 * error). The serializer then writes what create builds, or throws create's error.
 */
export const NEEDS_CREATE: object = Object.freeze({ needsCreate: true });

/**
 * The values of one level of a plain init object for a write that does not keep them (the
 * serializer writing init objects directly): indexed like `desc.fields`, checked with create's
 * rules and errors; message-holding fields keep their raw input (nested init objects, or
 * DynamicMessage values, checked when the writer reaches them), maps as a Map of stored keys.
 * `polluted`: prototypePolluted() as the root's write tested it (inherited keys are then skipped).
 */
export function initValues(info: MessageInfo, init: Readonly<Record<string, unknown>>, polluted: boolean): unknown[] {
  const desc = info.desc;
  const values = newValues(info.fields.length);
  let oneofSet: (string | undefined)[] | undefined;
  const lastKeys = info.lastKeys;
  let k = 0;
  for (const name in init) {
    if (polluted && !Object.hasOwn(init, name)) continue;
    let fi: FieldInfo;
    if (k < lastKeys.length && lastKeys[k] === name) fi = info.lastFields[k]!;
    else {
      fi = fieldByName(info, name);
      // A miss replaces this position only: init objects of one type that alternate between key
      // sets (a oneof's members, as span attributes' values) truncated and regrew the memo on
      // every object (its length stores were ~4% of span-batch encode from plain).
      // The field first, then the name that makes it used, both by index: a new index runs an
      // index setter on Array.prototype, and one that threw between two pushes left the memo's
      // names one ahead of its fields (every later object of that key order then read the field
      // of the key before).
      info.lastFields[k] = fi;
      lastKeys[k] = name;
    }
    k++;
    const raw = init[name];
    if (raw === undefined || raw === null) continue;
    if (fi.oneof >= 0) {
      oneofSet ??= newValues(info.oneofs.length) as (string | undefined)[];
      const other = oneofSet[fi.oneof];
      if (other !== undefined) {
        throw new TypeError(`oneof ${desc.typeName}.${info.oneofs[fi.oneof]!.name} has two members set: "${other}" and "${fi.name}"; set at most one`);
      }
      oneofSet[fi.oneof] = fi.name;
    }
    let stored: unknown;
    if (fi.kind === K_LIST) stored = fi.elemKind === K_MESSAGE ? nonEmpty(listInput(fi, raw)) : listForWrite(fi, raw);
    else if (fi.elemKind !== K_MESSAGE) stored = coerceValueField(fi, raw);
    else if (fi.kind === K_MESSAGE) stored = raw;
    else {
      const entries = mapInput(fi, raw);
      const m = new Map(entries);
      if (m.size < entries.length) throw NEEDS_CREATE;
      stored = m.size === 0 ? undefined : m;
    }
    if (stored !== undefined) values[fi.index] = stored;
  }
  return values;
}

function nonEmpty(list: readonly unknown[]): readonly unknown[] | undefined {
  return list.length === 0 ? undefined : list;
}
