// The generated kind's write path (docs/design.md §11): protobuf-es message objects (`$typeName`,
// fields by local name, oneofs as `{ case, value }`, maps as plain objects keyed by string,
// wrappers unboxed and Struct as JSON where protobuf-es does so, `$unknown` as `{ no, wireType,
// data }`) written straight into the dynamic kind's output (FieldWriter: arena tail or scratch,
// backpatched lengths, the same scalar, list and map encodings), in one walk over an explicit
// stack, so that any depth up to maxDepth is written without JS recursion.
//
// It makes every check of the conversion path it replaced (src/generated/convert.ts, then the
// dynamic writer): $typeName pairing, field values by DynamicMessage.create's rules (the checks
// in src/message/coerce.ts; the common forms by an inline test first), undeclared properties
// holding data, $unknown's form, number range, wire form and collisions, maxDepth (a map entry
// counts as a level), maxMessageBytes. It never builds an error: a refused value throws
// `REFUSED` (or whatever a coerce check threw), and the serializer then runs the conversion path
// on the same value, whose error is the one thrown (src/generated/serializer.ts). So the errors,
// and which one of several faults is reported, are exactly the conversion path's, and this walk
// carries no paths or sizing pass. (Converting first was ~44% of span encode time.)
//
// Bytes: what protobuf-es' toBinary writes (fields by number, unknown fields last, integer -0 as
// zero), map entries in key order when deterministic. Payload types are proto3 (docs/design.md §4.2), so
// protobuf-es keeps no field defaults on a prototype: every property of its objects is an own one
// (an object made with another prototype is read as protobuf-es reads it: ownKeys). Properties
// are read by for-in, so a field set as a non-enumerable property (which protobuf-es never makes)
// is not seen, as the conversion path never saw an undeclared one. A message object's fields are
// written as its keys are read while they come in number order (`direct`), else read first and
// written by number (`buffered`).
//
// The same walks write the dynamic kind's plain init objects (the shape DynamicMessage.create
// takes) with init plans (initPlanOf): fields by proto name, a oneof's members as fields, create's
// value rules. There a refusal hands the value to the dynamic writer (src/serializer.ts), which
// writes what only it takes (a DynamicMessage inside an init object); when that fails too, create
// names the fault (its order of faults, a cycle as one), or the write's own error stands.
//
// Size (~970 lines): the plans, the inline checks, the property read, and the two walks (frames
// for recursive types, bounded recursion for the others) share one state (the Writer's frames,
// value arrays and length slots); the encodings themselves are FieldWriter's.
import { ScalarType, type DescMessage } from "@bufbuild/protobuf";
import { isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { holdsData } from "../generated/convert.js";
import { StructTooDeep, structToMessage } from "../generated/struct.js";
import { coerceValueField, floatOverflows, isPlainObject, isWellFormed, listForWrite, mapInput } from "../message/coerce.js";
import { K_ENUM, K_LIST, K_MAP, K_MESSAGE, L_BIGINT, L_NUMBER, L_STRING, type FieldInfo } from "../message/field-info.js";
import type { Settings } from "../settings.js";
import { FieldWriter, SizeOverflow } from "./field-writer.js";
import { keyOrder } from "./map-order.js";
import { planOf, type FieldPlan, type WritePlan } from "./plan.js";
import { checkUnknownPayload } from "./unknown.js";
import { ENCODE_INTO_MIN, SHORT_STRING } from "./wire.js";
import { WriteFront } from "./writer.js";
import { prototypePolluted } from "../message/create.js";
import { bytesValue, isBytes, MAX_FIELD_NUMBER, plainLength } from "../bytes.js";
import { isProtokeelError } from "../errors.js";

type Obj = Record<string, unknown>;

/** A value this path refuses; the conversion path names the fault. */
export class Refused extends Error {}
const REFUSED = new Refused("refused by the generated writer");

/**
 * How a failed write of this path goes on, by what it threw:
 * - OUT_APP: none of its checks made it: the application's code that the write ran threw it (a
 *   getter, a Proxy trap, an iterator). It is the caller's, thrown as it is: create, reading the
 *   value, throws it too, and a second read by another writer may not meet it (a getter that
 *   threw once was read again and its second answer written).
 * - OUT_CHECK: a value check's TypeError or RangeError (create's rules). When create takes the
 *   value on a second read, the value changed between the reads (application code again), and
 *   this error, of the first read, stands.
 * - OUT_RETRY: a refusal, a limit, a protokeel error, or the engine's stack overflow (a writer
 *   that keeps no JS recursion may write it): the other writer's turn.
 */
export const OUT_APP = 0;
export const OUT_CHECK = 1;
export const OUT_RETRY = 2;

export function failureKind(e: unknown): number {
  // The application detached the output mid-write (a getter that ran): another writer reading the
  // value again would run that code again.
  if (isProtokeelError(e) && e.code === "OUTPUT_DETACHED") return OUT_APP;
  if (e instanceof Refused || e instanceof SizeOverflow || isProtokeelError(e)) return OUT_RETRY;
  if (e instanceof RangeError && e.message.startsWith(STACK_EXHAUSTED)) return OUT_RETRY;
  return e instanceof TypeError || e instanceof RangeError ? OUT_CHECK : OUT_APP;
}

// V8's and JavaScriptCore's message for a stack overflow. Compared as a string, not by a regular
// expression: V8 compiles one on its first use (and again when it tiers up), and compiled with the
// little stack an overflow leaves it threw a SyntaxError ("Invalid regular expression: ...:
// Maximum call stack size exceeded") out of toBinary, or took Node 20 down ("RegExpCompiler
// Allocation failed - process out of memory"; test/adversarial/low-stack-no-regexp.test.ts).
const STACK_EXHAUSTED = "Maximum call stack size exceeded";

/** How protobuf-es holds a message element: as a message object. */
const M_PLAIN = 0;
/** A google.protobuf wrapper in a singular field outside a oneof: the bare scalar. */
const M_WRAPPER = 1;
/** google.protobuf.Struct in a field of any message but google.protobuf.Value: a JsonObject. */
const M_STRUCT = 2;

/** The inline check of a singular scalar: a value that passes is valid and in written form. */
const C_DOUBLE = 0;
const C_FLOAT = 1;
const C_INT32 = 2;
const C_UINT32 = 3;
const C_BOOL = 4;
const C_STRING = 5;
const C_BYTES = 6;
const C_INT64 = 7;
const C_UINT64 = 8;
/** Always through coerceValueField (64-bit decimal strings, jstype JS_STRING). */
const C_SLOW = 9;

// How `scalarFast` writes a singular field of the kinds most messages are made of, with its check,
// in one call where the general path takes five (field, plain, scalarState, scalarField, scalar),
// none of which V8 inlined: ~400 instructions a field (callgrind, bench.Classic objects of one
// field and of three), and encode from plain of the classic object 8,772 -> 7,995 instructions.
/** None: `field` writes it. */
const F_NONE = 0;
/** uint32 (check C_UINT32): a varint. */
const F_UINT32 = 1;
/** int32 and enums (check C_INT32): a varint, negative ones in ten bytes. */
const F_INT32 = 2;
const F_BOOL = 3;
const F_DOUBLE = 4;
/** A string: fast while shorter than SHORT_STRING units (its length then takes one byte). */
const F_STRING = 5;

/** The fast kind of a singular field of FieldPlan `p` checked by `check` (see F_NONE). */
function fastOf(p: FieldPlan, check: number, mode: number): number {
  if (p.kind > K_ENUM || mode !== M_PLAIN) return F_NONE;
  switch (check) {
    case C_UINT32:
      return p.scalar === ScalarType.UINT32 ? F_UINT32 : F_NONE;
    case C_INT32:
      return p.scalar === ScalarType.INT32 ? F_INT32 : F_NONE;
    case C_BOOL:
      return F_BOOL;
    case C_DOUBLE:
      return p.scalar === ScalarType.DOUBLE ? F_DOUBLE : F_NONE;
    case C_STRING:
      return F_STRING;
    default:
      return F_NONE;
  }
}



interface GField {
  readonly p: FieldPlan;
  readonly fi: FieldInfo;
  readonly local: string;
  /** The oneof's local name for a member, else undefined. */
  readonly oneof: string | undefined;
  readonly check: number;
  /** A singular scalar or enum whose zero is not written. */
  readonly implicit: boolean;
  /** Of an init plan (GPlan.init); nested plans are of the same form. */
  readonly init: boolean;
  /** A repeated string field (written by `strings` as its elements are checked). */
  readonly strings: boolean;
  /** Index of the oneof in GPlan.oneofs for a member, else -1. */
  readonly oi: number;
  readonly mode: number;
  /**
   * A field with explicit presence outside a oneof (a singular message, an `optional` scalar):
   * protobuf-es' toBinary reads it only as an own property (unsafeIsSet), its other fields through
   * the prototype chain too.
   */
  readonly presence: boolean;
  /** How scalarFast writes it (F_NONE: it does not). */
  readonly fast: number;
  child: GPlan | undefined;
}

interface GPlan {
  readonly desc: DescMessage;
  readonly typeName: string;
  readonly plan: WritePlan;
  /** Fields by number. */
  readonly fields: readonly GField[];
  /** Property name → code (K_* below, or the index of a field outside oneofs in `fields`). */
  readonly codes: ReadonlyMap<string, number>;
  /** The property names of the last object read, in order, and their codes (see `open`). */
  readonly seqKeys: string[];
  readonly seqCodes: number[];
  readonly oneofs: readonly string[];
  /**
   * Per oneof, its members' indexes in `fields` by local name (a map: a scan of the names cost
   * O(K) per written message, and a batch of values of a 10,000-member oneof took 7.6 s).
   */
  readonly members: readonly ReadonlyMap<string, number>[];
  /** Per oneof, the case read last and its member (a hit skips the map's string hash). */
  readonly lastCase: unknown[];
  readonly lastMember: number[];
  /** Per oneof, the lowest index in `fields` of its members (direct tests key order before reading one). */
  readonly oneofLo: readonly number[];
  /** Written by bounded recursion instead of frames: the type nests at most MAX_INLINE levels. */
  readonly inline: boolean;
  /**
   * A plan for DynamicMessage.create's plain init objects instead of protobuf-es message objects
   * (see initPlanOf): fields by proto name, a oneof's members as fields, create's value forms.
   */
  readonly init: boolean;
  /**
   * An init plan of more than SPARSE_SPAN fields: its objects' keys are listed as they are read
   * (initProps) so that a few set far apart are visited alone (sparseInit). A narrower type's
   * objects span too few indexes to gain, and listing cost their small messages 5-10%.
   */
  readonly sparse: boolean;
  /**
   * Objects of this plan are written as their keys are read (inline's `direct`): true until one
   * object lists a field before one it listed earlier (by number), then false for good.
   */
  direct: boolean;
}

/** The range of field indexes over which a loop is always cheaper than sorting the set ones (sparseInit). */
const SPARSE_SPAN = 16;

// Codes of properties that are not fields outside oneofs; oneof k is ONEOF_0 - k.
const P_TYPENAME = -1;
const P_UNKNOWN = -2;
const P_UNDECLARED = -3;
const ONEOF_0 = -4;

const gplans = new WeakMap<DescMessage, GPlan>();
const iplans = new WeakMap<DescMessage, GPlan>();

/**
 * Types that nest at most this many levels of messages (a recursive type nests without bound) are
 * written by JS recursion, whose depth their height bounds, instead of on the frame stack: a
 * frame per message was a fixed cost each (span's messages: 5-6% of encode time).
 */
const MAX_INLINE = 8;

/** Heights known exactly, and lower bounds of the ones a search stopped over its budget. */
const heights = new WeakMap<DescMessage, number>();
const floors = new WeakMap<DescMessage, number>();

/** True when `desc` nests at most MAX_INLINE levels of messages (heightOf). */
function inlineType(desc: DescMessage): boolean {
  return Math.abs(heightOf(desc, MAX_INLINE + 1, new Set())) <= MAX_INLINE;
}

/**
 * The number of message levels `desc` nests (1: no message field; Infinity for a recursive type,
 * `open` holding the types on the current path), searched at most `budget` levels deep. A result
 * >= 0 is exact and kept for every later search; one < 0 means "at least -result", over `budget`
 * (the search stopped at the budget, or at the first field past it), and is kept only as a floor:
 * a later search with a larger budget looks again. Keeping such a stopped search's height as
 * exact made a type that reaches google.protobuf.Struct, or itself, through a field after the one
 * that ended it, inline for every root built later in the process: its writes were refused as an
 * internal error (Struct's JSON form is converted on the frame stack only), or recursed 9,000 deep.
 */
function heightOf(desc: DescMessage, budget: number, open: Set<DescMessage>): number {
  const known = heights.get(desc);
  if (known !== undefined) return known;
  // On the path to itself: it nests without bound.
  if (open.has(desc)) return Infinity;
  const floor = floors.get(desc) ?? 1;
  if (floor > budget) return -floor;
  open.add(desc);
  let h = 1;
  let exact = true;
  for (const f of desc.fields) {
    if (f.message === undefined) continue;
    const c = heightOf(f.message, budget - 1, open);
    if (c < 0) exact = false;
    h = Math.max(h, 1 + Math.abs(c));
    if (h > budget) {
      // Fields not searched may nest deeper, unless this one already nests without bound.
      if (!(h === Infinity && c >= 0)) exact = false;
      break;
    }
  }
  open.delete(desc);
  if (exact) heights.set(desc, h);
  else floors.set(desc, h);
  return exact ? h : -h;
}

function checkOf(fi: FieldInfo): number {
  if (fi.elemKind === K_ENUM) return C_INT32;
  switch (fi.scalar) {
    case ScalarType.DOUBLE:
      return C_DOUBLE;
    case ScalarType.FLOAT:
      return C_FLOAT;
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return C_INT32;
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return C_UINT32;
    case ScalarType.BOOL:
      return C_BOOL;
    case ScalarType.STRING:
      return C_STRING;
    case ScalarType.BYTES:
      return C_BYTES;
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return fi.long === L_STRING ? C_SLOW : C_UINT64;
    default:
      // int64, sint64, sfixed64: protobuf-es holds bigint unless JS_STRING (JS_NUMBER too).
      return fi.long === L_STRING ? C_SLOW : C_INT64;
  }
}

/**
 * The inline check of a singular scalar of an init plan: as protobuf-es' where create's rules
 * agree. Floats are coerced (create stores Math.fround(v), so a positive value that rounds to 0 is
 * an implicit field's zero, which protobuf-es writes), and so are 64-bit values of fields that
 * create does not hold as bigint (jstype: a bigint beyond 2^53 is refused for JS_NUMBER).
 */
function initCheckOf(fi: FieldInfo): number {
  if (fi.elemKind !== K_ENUM && fi.scalar === ScalarType.FLOAT) return C_SLOW;
  const c = checkOf(fi);
  return (c === C_INT64 || c === C_UINT64) && fi.long !== L_BIGINT ? C_SLOW : c;
}

/** The generated write plan of `desc`; nested plans are resolved on first use. */
function gplanOf(desc: DescMessage): GPlan {
  return gplans.get(desc) ?? planFor(desc, false);
}

/**
 * The write plan of `desc` for plain init objects of the shape DynamicMessage.create takes,
 * written by the same walks: the serializer's fast way to write them (src/serializer.ts). Any
 * value this form does not write as create would (a nested DynamicMessage, a second oneof member,
 * an undeclared key, a oneof past the 31st of its type, a map whose keys stand for one stored key)
 * is refused, and the dynamic writer writes it, or the serializer names the fault (#asCreate).
 */
function initPlanOf(desc: DescMessage): GPlan {
  return iplans.get(desc) ?? planFor(desc, true);
}

function planFor(desc: DescMessage, init: boolean): GPlan {
  const plan = planOf(desc);
  const fields = plan.fields.map((p): GField => {
    // protobuf-es holds jstype = JS_NUMBER fields as bigint: coerced as bigint, lists included
    // (coercion to a number rounded list elements beyond 2^53: 2^60 + 1 was written as 2^60).
    // create holds them as numbers: an init plan coerces by the field's own rule.
    const fi = !init && p.fi.long === L_NUMBER ? { ...p.fi, long: L_BIGINT } : p.fi;
    const f = fi.field;
    const singular = fi.kind < K_MESSAGE;
    const check = singular ? (init ? initCheckOf(fi) : checkOf(fi)) : C_SLOW;
    let mode = M_PLAIN;
    if (fi.elemKind === K_MESSAGE && !init) {
      // As protobuf-es (and generated-reader.ts): Struct first, wrappers in singular fields only.
      if (f.message!.typeName === "google.protobuf.Struct" && desc.typeName !== "google.protobuf.Value") mode = M_STRUCT;
      else if (fi.kind === K_MESSAGE && f.oneof === undefined && isWrapperDesc(f.message!)) mode = M_WRAPPER;
    }
    const implicit = singular && !fi.explicit;
    return {
      p,
      fi,
      local: init ? fi.name : f.localName,
      oneof: f.oneof?.localName,
      check,
      implicit,
      init,
      // FieldPlan.scalar is INT32 for enums and BYTES for messages.
      strings: p.kind === K_LIST && p.scalar === ScalarType.STRING,
      oi: f.oneof === undefined ? -1 : desc.oneofs.indexOf(f.oneof),
      mode,
      presence: fi.explicit && fi.oneof < 0,
      fast: fastOf(p, check, mode),
      child: undefined,
    };
  });
  const codes = new Map<string, number>();
  if (init) {
    // A oneof's members are fields of the init object; props (initProps) refuses a second one.
    fields.forEach((gf, i) => codes.set(gf.local, i));
  } else {
    codes.set("$typeName", P_TYPENAME);
    codes.set("$unknown", P_UNKNOWN);
    fields.forEach((gf, i) => {
      if (gf.oi < 0) codes.set(gf.local, i);
    });
    desc.oneofs.forEach((o, k) => codes.set(o.localName, ONEOF_0 - k));
  }
  const members = desc.oneofs.map(() => new Map<string, number>());
  fields.forEach((gf, i) => {
    if (gf.oi >= 0) members[gf.oi]!.set(gf.local, i);
  });
  const g: GPlan = {
    desc,
    typeName: desc.typeName,
    plan,
    fields,
    codes,
    seqKeys: [],
    seqCodes: [],
    oneofs: desc.oneofs.map((o) => o.localName),
    members,
    lastCase: desc.oneofs.map(() => undefined),
    lastMember: desc.oneofs.map(() => -1),
    oneofLo: members.map((m) => {
      let lo = Infinity;
      for (const i of m.values()) lo = Math.min(lo, i);
      return lo;
    }),
    inline: inlineType(desc),
    init,
    sparse: init && fields.length > SPARSE_SPAN,
    // Objects protobuf-es makes list their fields in declaration order (those with explicit
    // presence set later, after them): a type declared out of number order starts written by
    // number, not taken back on its first object. Init objects list what their author wrote.
    direct: init || declaredInOrder(desc, fields),
  };
  (init ? iplans : gplans).set(desc, g);
  return g;
}

/** True when `desc` declares its fields and oneofs (a oneof at its first member) in number order. */
function declaredInOrder(desc: DescMessage, fields: readonly GField[]): boolean {
  const index = new Map(fields.map((g, i) => [g.fi.field, i]));
  let last = -1;
  for (const m of desc.members) {
    const i = index.get(m.kind === "oneof" ? m.fields.reduce((a, b) => (a.number < b.number ? a : b)) : m)!;
    if (i <= last) return false;
    last = i;
  }
  return true;
}

function childOf(g: GField): GPlan {
  return (g.child ??= g.init ? initPlanOf(g.p.message!) : gplanOf(g.p.message!));
}

/** What `scalarState` says of a singular scalar: written as it is, not written (zero), or coerced first. */
const S_WRITE = 0;
const S_SKIP = 1;
const S_SLOW = 2;

/**
 * The inline check `c` of a singular scalar: S_WRITE when `v` is valid and already in the form
 * written, S_SKIP when it is also the zero of an `implicit` field, S_SLOW when coerceValueField
 * must check or convert it (which throws for an invalid value).
 */
function scalarState(c: number, v: unknown, implicit: boolean): number {
  switch (c) {
    case C_DOUBLE:
      if (typeof v !== "number") return S_SLOW;
      return implicit && v === 0 && 1 / v > 0 ? S_SKIP : S_WRITE;
    case C_FLOAT:
      // A finite value beyond float32's range is refused (NaN and ±Infinity are floats).
      if (typeof v !== "number" || floatOverflows(v)) return S_SLOW;
      return implicit && v === 0 && 1 / v > 0 ? S_SKIP : S_WRITE;
    case C_INT32:
      if (typeof v !== "number" || (v | 0) !== v) return S_SLOW;
      return implicit && v === 0 ? S_SKIP : S_WRITE;
    case C_UINT32:
      if (typeof v !== "number" || v >>> 0 !== v) return S_SLOW;
      return implicit && v === 0 ? S_SKIP : S_WRITE;
    case C_BOOL:
      if (typeof v !== "boolean") return S_SLOW;
      return implicit && !v ? S_SKIP : S_WRITE;
    case C_STRING:
      // A lone surrogate in a shorter string is found as it is written (WireWriter.lone; longer
      // ones go to TextEncoder, which reports none): the check per string was ~10% of span encode.
      if (typeof v !== "string" || (v.length >= ENCODE_INTO_MIN && !isWellFormed(v))) return S_SLOW;
      return implicit && v.length === 0 ? S_SKIP : S_WRITE;
    case C_BYTES:
      // An array whose length is not the engine's is coerced (bytesValue: a view of its own length).
      if (!isBytes(v) || !plainLength(v)) return S_SLOW;
      return implicit && v.length === 0 ? S_SKIP : S_WRITE;
    case C_INT64:
      if (typeof v !== "bigint" || BigInt.asIntN(64, v) !== v) return S_SLOW;
      return implicit && v === 0n ? S_SKIP : S_WRITE;
    case C_UINT64:
      if (typeof v !== "bigint" || BigInt.asUintN(64, v) !== v) return S_SLOW;
      return implicit && v === 0n ? S_SKIP : S_WRITE;
    default:
      return S_SLOW;
  }
}

/** protobuf-es' zero of an implicit-presence field (floats: -0 is not zero; integers: it is). */
function isZero(c: number, v: unknown): boolean {
  switch (typeof v) {
    case "number":
      return v === 0 && (1 / v > 0 || (c !== C_DOUBLE && c !== C_FLOAT));
    case "bigint":
      return v === 0n;
    case "string":
      return c === C_STRING ? v === "" : v === "0";
    case "boolean":
      return !v;
    default:
      return (v as Uint8Array).length === 0;
  }
}

const hasOwn = Object.prototype.hasOwnProperty;
/** The key list of a plan that lists none (GPlan.sparse false): never written (frozen, so a write would throw). */
const NO_CODES: number[] = Object.freeze([]) as unknown as number[];

/**
 * Where props() leaves the range of field indexes it set: [propsLo, propsHi), empty when none;
 * initProps() also the number of indexes it listed (propsN).
 */
interface PropsRange {
  propsLo: number;
  propsHi: number;
  propsN: number;
}

/** Which inherited keys of a message object are read (ownKeys): all of them. */
const OWN_ANY = 0;
/** None: Object.prototype is polluted (an enumerable property was added to it). */
const OWN_ONLY = 1;
/** Those protobuf-es' toBinary reads: the object's prototype is not Object.prototype. */
const OWN_AS_ES = 2;

/**
 * How a message object's inherited keys are read. With Object.prototype polluted, not at all (data
 * merged into the prototype is not the message's). An object made with another prototype (an
 * Object.create of a message) as protobuf-es' toBinary reads it (skipsInherited). Objects
 * protobuf-es makes have Object.prototype (proto3): every key for-in lists is then an own one.
 */
function ownKeys(o: Obj, polluted: boolean): number {
  return polluted ? OWN_ONLY : Object.getPrototypeOf(o) === Object.prototype ? OWN_ANY : OWN_AS_ES;
}

/**
 * True for an inherited key that the write skips (ownKeys `own`): any under OWN_ONLY; else one the
 * type does not declare, `$unknown`, and a field with explicit presence, which protobuf-es reads
 * only as an own property (unsafeIsSet). It reads other fields through the prototype chain.
 */
function skipsInherited(own: number, plan: GPlan, k: string): boolean {
  if (own === OWN_ONLY) return true;
  const code = plan.codes.get(k);
  return code === undefined || code === P_UNKNOWN || (code >= 0 && plan.fields[code]!.presence);
}

/**
 * Reads the properties of `o`, a message object of `plan`, into `vals` (the field values by index
 * in plan.fields, a oneof's set member included) and returns its `$unknown`; refuses a wrong
 * $typeName and an undeclared property holding data.
 *
 * By for-in: a load `o[k]` inside it is a load by the enum cache's index, where a load per
 * declared field `o[name]` was a megamorphic keyed load (~35% of span encode), and counting own
 * properties to find undeclared ones was ~20% more. Objects of one shape list their properties in
 * one order: each name is compared with the last object's at its place.
 */
function props(o: Obj, plan: GPlan, vals: unknown[], range: PropsRange, own: number): unknown {
  const seqKeys = plan.seqKeys;
  const seqCodes = plan.seqCodes;
  let u: unknown = undefined;
  let at = 0;
  // The writers visit only [lo, hi) of plan.fields: a message object sets few of a wide type's
  // fields (a oneof member of 10,000), and a loop over all of them per value made a batch of N
  // such values cost N x K (10,000 values of a 10,000-member oneof: 7.6 s).
  let lo = 0x7fffffff;
  let hi = 0;
  // $typeName too is read here (a named load of it on objects of every message type was
  // megamorphic); one that for-in does not list (not enumerable) is read after.
  let typed = false;
  // The loop keeps to what every object has; a oneof's member is read by `member`, a key order not
  // seen before by `learn`, so that this function stays under V8's inlining size limit (460 bytes
  // of bytecode): it is inlined into the writers' loops, not called per message.
  for (const k in o) {
    if (own !== OWN_ANY && !Object.hasOwn(o, k) && skipsInherited(own, plan, k)) continue;
    const code = seqKeys[at] === k ? seqCodes[at]! : learn(plan, at, k);
    at++;
    const v = o[k];
    let i = code;
    if (code >= 0) {
      vals[code] = v;
      if (v === undefined) continue;
    } else if (code <= ONEOF_0) {
      i = member(plan, ONEOF_0 - code, v, vals);
      if (i < 0) continue;
    } else {
      if (code === P_TYPENAME) {
        if (v !== plan.typeName) throw REFUSED;
        typed = true;
      } else if (code === P_UNKNOWN) u = v;
      else if (holdsData(v) && hasOwn.call(o, k)) throw REFUSED;
      continue;
    }
    if (i < lo) lo = i;
    if (i >= hi) hi = i + 1;
  }
  if (!typed && o.$typeName !== plan.typeName) throw REFUSED;
  range.propsLo = hi === 0 ? 0 : lo;
  range.propsHi = hi;
  return u;
}

/**
 * props() of an init plan: reads a plain init object's keys into `vals` (fields by proto name, a
 * oneof's members among them). Refuses what create refuses or this walk does not write: an object
 * that is not plain (a DynamicMessage is the dynamic writer's), a key that names no field (create
 * refuses one even when it holds undefined), a second member of a oneof, and a member of a oneof
 * past the 31st (the members seen are a bitmask, local so that a getter's nested write of the same
 * type cannot clear it). A oneof member that holds null or undefined is not set, as for create.
 */
function initProps(o: Obj, plan: GPlan, vals: unknown[], range: PropsRange, polluted: boolean, codes: number[]): undefined {
  if (!isPlainObject(o)) throw REFUSED;
  const seqKeys = plan.seqKeys;
  const seqCodes = plan.seqCodes;
  const fields = plan.fields;
  const list = plan.sparse;
  let at = 0;
  let lo = 0x7fffffff;
  let hi = 0;
  let oneofs = 0;
  for (const k in o) {
    if (polluted && !Object.hasOwn(o, k)) continue;
    const code = seqKeys[at] === k ? seqCodes[at]! : learn(plan, at, k);
    if (code < 0) throw REFUSED;
    // Listed for sparseInit here: plan.seqCodes is the last object's order, which a getter's
    // nested write of the same type (below, o[k]) may relearn.
    if (list) codes[at] = code;
    at++;
    const v = o[k];
    vals[code] = v;
    if (v === undefined) continue;
    const oi = fields[code]!.oi;
    if (oi >= 0 && v !== null) {
      if (oi > 30 || (oneofs & (1 << oi)) !== 0) throw REFUSED;
      oneofs |= 1 << oi;
    }
    if (code < lo) lo = code;
    if (code >= hi) hi = code + 1;
  }
  range.propsLo = hi === 0 ? 0 : lo;
  range.propsHi = hi;
  // The keys read: codes[0, at) holds their field indexes (see sparseInit).
  range.propsN = at;
  return undefined;
}

/**
 * True when an init object's keys (`range.propsN`, their field indexes in `codes` as initProps
 * left them) are few for the range of indexes they span: `codes` is then sorted (ascending: the
 * order the range loop visits them in), and the writers visit those alone. An init object sets a
 * few fields of a wide type, possibly far apart: the loop over [lo, hi) made 10,000 init objects
 * of two fields (the first and the last) of a 5,000-field type cost 121 µs each, against 3.8 µs
 * for create and a write; 2.2 µs now. (A protobuf-es object holds every field of its type: its
 * range is all of them.)
 */
function sparseInit(range: PropsRange, codes: number[]): boolean {
  const n = range.propsN;
  if (range.propsHi - range.propsLo <= 4 * n + SPARSE_SPAN) return false;
  if (n <= 32) {
    for (let a = 1; a < n; a++) {
      const c = codes[a]!;
      let b = a - 1;
      for (; b >= 0 && codes[b]! > c; b--) codes[b + 1] = codes[b]!;
      codes[b + 1] = c;
    }
  } else {
    const sorted = Int32Array.from(codes.slice(0, n)).sort();
    for (let a = 0; a < n; a++) codes[a] = sorted[a]!;
  }
  return true;
}

/** The code of property `k`, read at place `at` of an object of `plan`, remembered there for the next object. */
function learn(plan: GPlan, at: number, k: string): number {
  const code = plan.codes.get(k) ?? P_UNDECLARED;
  // The code first, then the key that makes it used: a new index of either array runs an index
  // setter on Array.prototype, and one that threw between the two left a key without its code
  // (every later write of that key order then threw a raw TypeError).
  plan.seqCodes[at] = code;
  plan.seqKeys[at] = k;
  return code;
}

/**
 * Oneof `oi` held as `v`: stores the set member's value where a field's would go (no per-member
 * case test later) and returns the member's index in plan.fields, or -1 when none is set.
 */
function member(plan: GPlan, oi: number, v: unknown, vals: unknown[]): number {
  const c = (v === null || v === undefined ? undefined : (v as { case?: unknown }).case) as unknown;
  if (c === undefined) {
    // A scalar where { case, value } belongs holds data the write would drop (named by the conversion path).
    if (typeof v !== "object" && holdsData(v)) throw REFUSED;
    return -1;
  }
  let m: number | undefined;
  if (plan.lastCase[oi] === c) m = plan.lastMember[oi]!;
  else {
    // A case this oneof does not declare: the conversion path names it.
    m = plan.members[oi]!.get(c as string);
    if (m === undefined) throw REFUSED;
    plan.lastCase[oi] = c;
    plan.lastMember[oi] = m;
  }
  const x = (v as { value?: unknown }).value;
  // A case without a value is not protobuf-es' form (the conversion path names it).
  if (x === undefined) throw REFUSED;
  vals[m] = x;
  return m;
}

/** One open message. */
class GFrame {
  o!: Obj;
  plan!: GPlan;
  depth = 0;
  /** Next field (index into plan.fields) and next element; j = 1 for a singular message written. */
  i = 0;
  j = 0;
  /** The message list's elements or message map's values in progress, and the map's keys. */
  items: readonly unknown[] | undefined = undefined;
  keys: readonly unknown[] | undefined = undefined;
  /** The field values by index in plan.fields (a oneof's set member included), cleared as they are read. */
  readonly vals: unknown[] = [];
  /** `$unknown`. */
  u: unknown = undefined;
  /** The range of `vals` that props() set (PropsRange). */
  propsLo = 0;
  propsHi = 0;
  propsN = 0;
  /**
   * The field indexes of an init object's keys (initProps, in key order; ascending once sparseInit
   * sorts them), and whether the fields visited are those alone: `i` then counts places in it.
   */
  readonly codes: number[] = [];
  sparse = false;
  /** Length slots (-1: none): the message's and the enclosing map entry's. */
  lenK = -1;
  entryK = -1;
  /** Bytes that long lengths inside the message will add (see FieldWriter.openLen). */
  extra = 0;
}

interface GConfig {
  readonly root: GPlan;
  readonly maxDepth: number;
  readonly maxBytes: number;
  readonly det: boolean;
}

/** One write in progress of the generated kind. */
export class GeneratedWriter extends FieldWriter {
  private readonly frames: GFrame[] = [];
  private sp = 0;
  private c!: GConfig;
  /** Per recursion level of `inline`, the field values of its message, cleared as they are read. */
  private readonly inlineVals: unknown[][] = [];
  /** A oneof's set member's value, by field index, as `member` stores it for `direct` (read and cleared at once). */
  private readonly one: unknown[] = [];
  /** The range of field indexes the last props() call of `inline` set (PropsRange). */
  propsLo = 0;
  propsHi = 0;
  propsN = 0;
  /** Per recursion level of `inline`, the field indexes of an init object's keys (initProps, sparseInit). */
  private readonly inlineCodes: number[][] = [];
  /**
   * Object.prototype had an enumerable property when this root's write began: props() then skips
   * inherited keys (see prototypePolluted).
   */
  private polluted = false;
  /** A root is being written (cleared when it is done): `end` then clears what it left. */
  private dirty = false;
  /** The bytes that long lengths inside the last message `inline` wrote add (not its own). */
  private inner = 0;
  /** Of the last root closed: the bytes its long lengths add, inside its body and in all. */
  private rootExtra = 0;
  private allExtra = 0;

  begin(c: GConfig, lease: boolean): void {
    this.c = c;
    this.beginOutput(lease, c.maxBytes, c.det, c.root.typeName);
  }

  override end(): void {
    super.end();
    this.clearWalk();
  }

  /** Clears what a failed walk left: open frames and values unread (a finished one cleared all). */
  private clearWalk(): void {
    if (this.dirty) {
      // By level, made as levels were first reached: a level reached only below one that never
      // buffered (its keys read in order) is a hole, which `for…of` gives as undefined.
      for (const vals of this.inlineVals) if (vals !== undefined) vals.fill(undefined);
      this.dirty = false;
    }
    for (let i = 0; i < this.sp; i++) {
      const f = this.frames[i]!;
      f.o = undefined!;
      f.items = f.keys = f.u = undefined;
      f.vals.fill(undefined);
    }
    this.sp = 0;
  }

  /** Checks and writes one root value at `pos`, with its length prefix when `framed`. */
  root(value: unknown, framed: boolean): void {
    const start = this.pos;
    const from = this.slots;
    const root = this.c.root;
    this.polluted = prototypePolluted();
    let failed: unknown = undefined;
    try {
      this.walk(value, framed, root);
    } catch (e) {
      failed = e;
    }
    // Object.prototype polluted by code the write ran (a getter): objects read before it was took
    // no inherited key, ones read after did, and may have failed on one (a value of the wrong
    // type, a size past the limit). Init objects: the dynamic writer writes the value, testing
    // again (create skips inherited keys). protobuf-es objects: written again here, each object's
    // own keys alone.
    if (!this.polluted && prototypePolluted()) {
      if (root.init) throw REFUSED;
      this.clearWalk();
      this.pos = start;
      this.slots = from;
      this.polluted = true;
      this.walk(value, framed, root);
    } else if (failed !== undefined) throw failed;
    if (this.lone) throw REFUSED;
    if (this.pos - this.rootBody + this.rootExtra > this.c.maxBytes) throw new SizeOverflow();
    this.settleLens(from, this.allExtra);
  }

  /** One walk of root(): the value at `pos`, its long lengths not yet settled. */
  private walk(value: unknown, framed: boolean, root: GPlan): void {
    this.rootBody = this.pos + (framed ? 1 : 0);
    this.lone = false;
    this.dirty = true;
    if (root.inline) {
      this.allExtra = this.inline(value, root, 1, framed, -1, 0);
      this.rootExtra = this.inner;
    } else {
      this.open(value, root, 1, framed, -1);
      while (this.sp > 0) {
        const f = this.frames[this.sp - 1]!;
        if (!this.step(f)) this.close(f);
      }
    }
    this.dirty = false;
  }

  /** Checks a message object's depth and $typeName and opens a frame for it. */
  private open(obj: unknown, plan: GPlan, depth: number, prefixed: boolean, entryK: number): void {
    if (depth > this.c.maxDepth || obj === null || typeof obj !== "object") throw REFUSED;
    const o = obj as Obj;
    const f = (this.frames[this.sp] ??= new GFrame());
    this.sp++;
    f.o = o;
    f.plan = plan;
    f.depth = depth;
    f.j = 0;
    f.items = undefined;
    f.keys = undefined;
    f.u = undefined;
    f.u = plan.init ? initProps(o, plan, f.vals, f, this.polluted, f.codes) : props(o, plan, f.vals, f, ownKeys(o, this.polluted));
    f.sparse = plan.sparse && sparseInit(f, f.codes);
    f.i = f.sparse ? 0 : f.propsLo;
    f.entryK = entryK;
    f.extra = 0;
    if (prefixed) {
      this.ensure(1);
      f.lenK = this.openLen();
    } else f.lenK = -1;
  }

  /** Ends the top frame: the undeclared-property check, unknown fields, lengths. */
  private close(f: GFrame): void {
    const plan = f.plan;
    const u = f.u;
    if (u !== undefined) this.unknown(u, plan.plan);
    let extra = f.extra;
    const inner = extra;
    if (f.lenK >= 0) extra += this.closeLenLater(f.lenK, extra);
    if (f.entryK >= 0) extra += this.closeLenLater(f.entryK, extra);
    f.o = undefined!;
    f.items = f.keys = f.u = undefined;
    this.sp--;
    if (this.sp > 0) this.frames[this.sp - 1]!.extra += extra;
    else {
      this.rootExtra = inner;
      this.allExtra = extra;
    }
  }

  /** `$unknown` in protobuf-es' form, checked, then written after the known fields. */
  private unknown(u: unknown, plan: WritePlan): void {
    if (!Array.isArray(u)) throw REFUSED;
    for (let i = 0; i < u.length; i++) {
      const e = u[i] as { no?: unknown; wireType?: unknown; data?: unknown } | null | undefined;
      const no = e?.no;
      const wt = e?.wireType;
      const given = e?.data;
      const data = isBytes(given) ? bytesValue(given) : undefined;
      if (
        typeof no !== "number" ||
        !Number.isInteger(no) ||
        no < 1 ||
        no > MAX_FIELD_NUMBER ||
        typeof wt !== "number" ||
        !Number.isInteger(wt) ||
        wt < 0 ||
        wt > 7 ||
        data === undefined ||
        checkUnknownPayload(wt, data, 0) !== undefined ||
        plan.byNumber.has(no)
      ) {
        throw REFUSED;
      }
      this.least(data.length);
      this.ensure(5 + data.length);
      this.varint32(no * 8 + wt);
      this.raw(data);
    }
  }

  /**
   * Writes the fields of the top frame from where it stopped; returns true when it opened a
   * child frame (the top frame resumes after it), false when all fields are done.
   */
  private step(f: GFrame): boolean {
    const fields = f.plan.fields;
    const vals = f.vals;
    // t: the place reached, an index into plan.fields or (sparse) into the set ones.
    const sparse = f.sparse;
    const codes = f.codes;
    const end = sparse ? f.propsN : f.propsHi;
    for (let t = f.i; t < end; t++) {
      const i = sparse ? codes[t]! : t;
      const g = fields[i]!;
      if (f.items !== undefined) {
        if (this.elements(f, g, t)) return true;
        continue;
      }
      if (f.j !== 0) {
        // The singular message of field i is written.
        f.j = 0;
        continue;
      }
      const v = vals[i];
      if (v === undefined) continue;
      vals[i] = undefined;
      if (v === null) continue;
      if (g.fast !== F_NONE && this.scalarFast(g, v)) continue;
      const p = g.p;
      if (p.elemKind !== K_MESSAGE) {
        this.plain(g, v, f.depth);
        continue;
      }
      switch (p.kind) {
        case K_LIST: {
          if (!Array.isArray(v)) throw REFUSED;
          if (v.length === 0) continue;
          f.items = v;
          f.keys = undefined;
          f.j = 0;
          if (this.elements(f, g, t)) return true;
          continue;
        }
        case K_MAP: {
          const entries = this.entries(g, v);
          if (entries.length === 0) continue;
          f.keys = entries.map((e) => e[0]);
          f.items = entries.map((e) => e[1]);
          f.j = 0;
          if (this.elements(f, g, t)) return true;
          continue;
        }
        default: {
          if (g.mode === M_WRAPPER) {
            this.wrapper(g, v, f.depth);
            continue;
          }
          this.tag(p);
          const child = childOf(g);
          if (child.inline) {
            f.extra += this.inline(v, child, f.depth + 1, true, -1, 0);
            continue;
          }
          this.open(g.mode === M_STRUCT ? struct(v, f.depth + 1, this.c.maxDepth) : v, child, f.depth + 1, true, -1);
          f.i = t;
          f.j = 1;
          return true;
        }
      }
    }
    f.i = end;
    return false;
  }

  /**
   * A singular field of a fast kind (GField.fast) holding `v` in the form written: checked and
   * written here, or skipped as an implicit zero, with plain()'s rules; false, with nothing
   * written, for any other value (`field` then checks, converts or refuses it).
   */
  private scalarFast(g: GField, v: unknown): boolean {
    const p = g.p;
    switch (g.fast) {
      case F_UINT32:
        if (typeof v !== "number" || v >>> 0 !== v) return false;
        if (v === 0 && g.implicit) return true;
        this.head(p);
        this.varint32(v);
        return true;
      case F_INT32:
        if (typeof v !== "number" || (v | 0) !== v) return false;
        if (v === 0 && g.implicit) return true;
        this.head(p);
        this.int32(v);
        return true;
      case F_BOOL:
        if (typeof v !== "boolean") return false;
        if (!v && g.implicit) return true;
        this.head(p);
        this.buf[this.pos++] = v ? 1 : 0;
        return true;
      case F_DOUBLE:
        if (typeof v !== "number") return false;
        if (g.implicit && v === 0 && 1 / v > 0) return true;
        this.head(p);
        this.double(v);
        return true;
      case F_STRING:
        if (typeof v !== "string" || v.length >= SHORT_STRING) return false;
        if (v.length > 0 || !g.implicit) this.shortStringField(p, v);
        return true;
      default:
        return false;
    }
  }

  /** Room for a tag and a number (at most 10 bytes), and the tag. */
  private head(p: FieldPlan): void {
    this.ensure(15);
    this.putTag(p);
  }

  /** A field that holds no message: a scalar or enum, a list or a map of them. */
  private plain(g: GField, v: unknown, depth: number): void {
    const p = g.p;
    // (A short string of a singular field never gets here: scalarFast writes it.)
    if (p.kind <= K_ENUM) {
      const state = scalarState(g.check, v, g.implicit);
      if (state === S_SKIP) return;
      if (state === S_SLOW) {
        // coerceValueField returns undefined for create's zero; protobuf-es' zero is tested here.
        v = coerceValueField(g.fi, v);
        if (v === undefined || (g.implicit && !g.init && isZero(g.check, v))) return;
      }
      this.scalarField(p, v);
    } else if (p.kind === K_LIST) {
      // Packed varints (32-bit kinds, and 64-bit ones held as bigint) and fixed widths are written
      // as they are checked; a list with an element in another form (a number for int64, an
      // enum's name) is checked and converted by listForWrite.
      if (p.varintKind !== 0 && Array.isArray(v) && this.varintRun(p, v, true)) return;
      // Fixed widths from 8 elements (list() writes shorter runs element by element).
      if (p.fixedKind !== 0 && Array.isArray(v) && v.length >= 8 && this.fixedRun(p, v)) return;
      if (g.strings && Array.isArray(v) && this.strings(p, v)) return;
      const list = listForWrite(g.fi, v);
      if (list !== undefined) this.list(p, list);
    } else {
      const m = coerceValueField(g.fi, v) as ReadonlyMap<unknown, unknown> | undefined;
      if (m === undefined) return;
      // A map entry is a nesting level (the reader counts it).
      if (depth + 1 > this.c.maxDepth) throw REFUSED;
      this.scalarMap(p, m);
    }
  }

  /**
   * A repeated string field from an array no check has copied: each element is read once and
   * written if it is a string (a lone surrogate in one under 128 units is found as it is written,
   * as for a singular string). Returns false, with nothing written, at the first that is not:
   * listForWrite then checks the list (a checked copy first, with a well-formedness scan of every
   * string, was ~9% of the small fixture's encode from plain, 2-3 strings in a list).
   */
  private strings(p: FieldPlan, list: readonly unknown[]): boolean {
    const n = list.length;
    const start = this.pos;
    // Each element takes two bytes at least (its tag and its length).
    this.least(2 * n);
    for (let i = 0; i < n; i++) {
      const s = list[i];
      if (typeof s !== "string" || (s.length >= ENCODE_INTO_MIN && !isWellFormed(s))) {
        this.pos = start;
        return false;
      }
      if (s.length < SHORT_STRING) this.shortStringField(p, s);
      else this.scalarField(p, s);
    }
    return true;
  }

  /**
   * A message of an `inline` plan (and all it holds) at `depth`, by recursion (`level`: how deep,
   * below MAX_INLINE), after its tag (and its map entry's header, slot `entryK`). Returns the
   * bytes its long lengths will add, its own and its entry's included.
   */
  private inline(obj: unknown, plan: GPlan, depth: number, prefixed: boolean, entryK: number, level: number): number {
    if (depth > this.c.maxDepth || obj === null || typeof obj !== "object") throw REFUSED;
    let k = -1;
    if (prefixed) {
      this.ensure(1);
      k = this.openLen();
    }
    let extra = !plan.direct ? -1 : plan.init ? this.directInit(obj as Obj, plan, depth, level) : this.direct(obj as Obj, plan, depth, level);
    if (extra < 0) extra = this.buffered(obj as Obj, plan, depth, level);
    this.inner = extra;
    if (k >= 0) extra += this.closeLenLater(k, extra);
    if (entryK >= 0) extra += this.closeLenLater(entryK, extra);
    return extra;
  }

  /**
   * The fields of `o` (a protobuf-es message object of `plan`) written as its keys are read, when
   * they come in field-number order (protobuf-es sets a message's fields in declaration order, and
   * fields with explicit presence as they are set). Returns the bytes its long lengths will add, or
   * -1, with nothing written, at the first key out of that order: the plan is written by
   * `buffered` from then on. Checks as props() does.
   */
  private direct(o: Obj, plan: GPlan, depth: number, level: number): number {
    const mark = this.pos;
    const slots = this.slots;
    const lone = this.lone;
    const seqKeys = plan.seqKeys;
    const seqCodes = plan.seqCodes;
    const fields = plan.fields;
    const own = ownKeys(o, this.polluted);
    let u: unknown = undefined;
    let at = 0;
    let last = -1;
    let typed = false;
    let extra = 0;
    for (const key in o) {
      if (own !== OWN_ANY && !Object.hasOwn(o, key) && skipsInherited(own, plan, key)) continue;
      const code = seqKeys[at] === key ? seqCodes[at]! : learn(plan, at, key);
      at++;
      // The order is tested before the value is read (a oneof's by its lowest member), so that the
      // first key out of order is read once: the keys before it are read again by `buffered`.
      if (code >= 0 ? code <= last : code <= ONEOF_0 && plan.oneofLo[ONEOF_0 - code]! <= last) return this.takeBack(plan, mark, slots, lone);
      let v = o[key];
      let i = code;
      if (code >= 0) {
        if (v === undefined) continue;
      } else if (code <= ONEOF_0) {
        i = member(plan, ONEOF_0 - code, v, this.one);
        if (i < 0) continue;
        v = this.one[i];
        this.one[i] = undefined;
      } else {
        if (code === P_TYPENAME) {
          if (v !== plan.typeName) throw REFUSED;
          typed = true;
        } else if (code === P_UNKNOWN) u = v;
        else if (holdsData(v) && hasOwn.call(o, key)) throw REFUSED;
        continue;
      }
      last = i;
      if (v === null) continue;
      const g = fields[i]!;
      if (g.fast === F_NONE || !this.scalarFast(g, v)) extra += this.field(g, v, depth, level);
    }
    if (!typed && o.$typeName !== plan.typeName) throw REFUSED;
    if (u !== undefined) this.unknown(u, plan.plan);
    return extra;
  }

  /**
   * Takes back what `direct` or `directInit` wrote of a message (from `mark`, its length slots from
   * `slots`, the lone-surrogate flag as it was) and makes its type written by `buffered` from now
   * on; returns -1, their answer for "nothing written".
   */
  private takeBack(plan: GPlan, mark: number, slots: number, lone: boolean): number {
    plan.direct = false;
    this.pos = mark;
    this.slots = slots;
    this.lone = lone;
    return -1;
  }

  /**
   * `direct` for an init object (initProps' checks): its keys written as read while they come in
   * field-number order (an object written in declaration order), else -1 with nothing written.
   * Visits the keys alone, so a few fields of a wide type cost what they hold (sparseInit's
   * concern). Encode from plain against the values-array walk alone (A/B, one process): classic
   * +5%, the span batch +15% (its objects in field order), small +0-7%, numeric unchanged.
   */
  private directInit(o: Obj, plan: GPlan, depth: number, level: number): number {
    if (!isPlainObject(o)) throw REFUSED;
    const mark = this.pos;
    const slots = this.slots;
    const lone = this.lone;
    const seqKeys = plan.seqKeys;
    const seqCodes = plan.seqCodes;
    const fields = plan.fields;
    const polluted = this.polluted;
    let at = 0;
    let last = -1;
    let oneofs = 0;
    let extra = 0;
    for (const key in o) {
      if (polluted && !Object.hasOwn(o, key)) continue;
      const code = seqKeys[at] === key ? seqCodes[at]! : learn(plan, at, key);
      if (code < 0) throw REFUSED;
      at++;
      if (code <= last) return this.takeBack(plan, mark, slots, lone);
      const v = o[key];
      if (v === undefined) continue;
      last = code;
      const g = fields[code]!;
      if (v === null) continue;
      const oi = g.oi;
      if (oi >= 0) {
        if (oi > 30 || (oneofs & (1 << oi)) !== 0) throw REFUSED;
        oneofs |= 1 << oi;
      }
      if (g.fast === F_NONE || !this.scalarFast(g, v)) extra += this.field(g, v, depth, level);
    }
    return extra;
  }

  /** The fields of `o` read into values by field (props), then written by number. */
  private buffered(o: Obj, plan: GPlan, depth: number, level: number): number {
    const vals = (this.inlineVals[level] ??= []);
    const codes = plan.sparse ? (this.inlineCodes[level] ??= []) : NO_CODES;
    const u = plan.init ? initProps(o, plan, vals, this, this.polluted, codes) : props(o, plan, vals, this, ownKeys(o, this.polluted));
    // t counts places: indexes of plan.fields in [lo, hi), or (sparse) the keys' ones in `codes`.
    const sparse = plan.sparse && sparseInit(this, codes);
    const lo = sparse ? 0 : this.propsLo;
    const hi = sparse ? this.propsN : this.propsHi;
    let extra = 0;
    const fields = plan.fields;
    for (let t = lo; t < hi; t++) {
      const i = sparse ? codes[t]! : t;
      const v = vals[i];
      if (v === undefined) continue;
      vals[i] = undefined;
      if (v === null) continue;
      const g = fields[i]!;
      if (g.fast === F_NONE || !this.scalarFast(g, v)) extra += this.field(g, v, depth, level);
    }
    if (u !== undefined) this.unknown(u, plan.plan);
    return extra;
  }

  /** Field `g` holding `v` (not null) of a message at `depth`; returns the bytes its long lengths will add. */
  private field(g: GField, v: unknown, depth: number, level: number): number {
    const p = g.p;
    if (p.elemKind !== K_MESSAGE) {
      this.plain(g, v, depth);
      return 0;
    }
    // Struct is recursive (never in an inline type): a message here is held as an object.
    const child = childOf(g);
    let extra = 0;
    if (p.kind === K_MESSAGE) {
      if (g.mode === M_WRAPPER) {
        this.wrapper(g, v, depth);
        return 0;
      }
      this.tag(p);
      extra += this.inline(v, child, depth + 1, true, -1, level + 1);
    } else if (p.kind === K_LIST) {
      if (!Array.isArray(v)) throw REFUSED;
      for (let j = 0; j < v.length; j++) {
        this.tag(p);
        extra += this.inline(v[j], child, depth + 1, true, -1, level + 1);
      }
    } else {
      const entries = this.entries(g, v);
      for (let j = 0; j < entries.length; j++) {
        const ek = this.messageEntryHead(p, entries[j]![0], true);
        extra += this.inline(entries[j]![1], child, depth + 2, true, ek, level + 1);
      }
    }
    return extra;
  }

  /**
   * Writes the elements of the message list or map in progress under field `g` (at place i, see
   * step) from the next one: leaves at once; returns true when it opened a frame for one.
   */
  private elements(f: GFrame, g: GField, i: number): boolean {
    const items = f.items!;
    const keys = f.keys;
    const p = g.p;
    const child = childOf(g);
    for (let j = f.j; j < items.length; j++) {
      const v = g.mode === M_STRUCT ? struct(items[j], f.depth + (keys === undefined ? 1 : 2), this.c.maxDepth) : items[j];
      let entryK = -1;
      if (keys === undefined) this.tag(p);
      else entryK = this.messageEntryHead(p, keys[j], true);
      const depth = f.depth + (keys === undefined ? 1 : 2);
      if (child.inline) {
        f.extra += this.inline(v, child, depth, true, entryK, 0);
        continue;
      }
      f.j = j + 1;
      f.i = i;
      this.open(v, child, depth, true, entryK);
      return true;
    }
    f.items = f.keys = undefined;
    f.j = 0;
    return false;
  }

  /**
   * The entries of a message map held as `v`, in the order written. Of an init plan, keys that
   * stand for one stored key ("1" and "01" of an int32-keyed plain object) are refused: create
   * checks the values it overwrites, which the dynamic writer leaves to create (NEEDS_CREATE).
   */
  private entries(g: GField, v: unknown): [unknown, unknown][] {
    const entries = mapInput(g.fi, v);
    if (g.init && entries.length > 1 && new Map(entries).size < entries.length) throw REFUSED;
    if (this.sorted && entries.length > 1) entries.sort((a, b) => keyOrder(a[0], b[0]));
    return entries;
  }

  /** A wrapper held as its bare scalar: the wrapper message with field 1 unless zero. */
  private wrapper(g: GField, v: unknown, depth: number): void {
    if (depth + 1 > this.c.maxDepth) throw REFUSED;
    const inner = childOf(g).fields[0]!;
    const x = coerceValueField(inner.fi, v);
    this.tag(g.p);
    const at = this.pos++;
    if (x !== undefined && !isZero(inner.check, x)) this.scalarField(inner.p, x);
    this.closeLen(at);
  }
}

/**
 * A Struct field's JsonObject as protobuf-es' message form, for a Struct at `depth`. One nested
 * past maxDepth (or cyclic) is refused here: the conversion path names it.
 */
function struct(v: unknown, depth: number, maxDepth: number): unknown {
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw REFUSED;
  try {
    return structToMessage(v, depth, maxDepth);
  } catch (e) {
    if (e instanceof StructTooDeep) throw REFUSED;
    throw e;
  }
}

const pool: GeneratedWriter[] = [];
const POOL_KEEP = 4;

/** The write side of one generated serializer. */
export class GeneratedMessageWriter extends WriteFront<GeneratedWriter> {
  private readonly config: GConfig;

  /** `init`: writes DynamicMessage.create's plain init objects instead (initPlanOf). */
  constructor(root: DescMessage, settings: Settings, init = false) {
    super();
    this.config = { root: init ? initPlanOf(root) : gplanOf(root), maxDepth: settings.maxDepth, maxBytes: settings.maxMessageBytes, det: settings.deterministic };
  }

  protected take(): GeneratedWriter {
    return pool.pop() ?? new GeneratedWriter();
  }

  protected give(w: GeneratedWriter): void {
    w.end();
    if (pool.length < POOL_KEEP) pool.push(w);
  }

  protected start(w: GeneratedWriter, lease: boolean): void {
    w.begin(this.config, lease);
  }

  protected writeRoot(w: GeneratedWriter, value: unknown, framed: boolean): void {
    w.root(value, framed);
  }

  /** The bare message. */
  toBinary(value: unknown): Uint8Array {
    return this.one(value, false);
  }

  /** One frame. */
  encodeFrame(value: unknown): Uint8Array {
    return this.one(value, true);
  }
}
