// Write plans: per DescMessage instance, the fields in number order with their precomputed tags
// and wire shapes. Built once per instance (WeakMap) and registered before nested plans are
// resolved, so recursive types work.
import { ScalarType, type DescMessage } from "@bufbuild/protobuf";
import { K_ENUM, K_LIST, K_MAP, K_MESSAGE, messageInfo, type FieldInfo, type MessageInfo } from "../message/field-info.js";
import { L_BIGINT } from "../message/field-info.js";
import { positionsOf } from "../message/values.js";
import { BULK_FIXED, FIXED_F32, FIXED_F64, FIXED_I32, FIXED_I64, FIXED_U32, varint32Size } from "./wire.js";

// Packed varint kinds; the 32-bit ones are the highest (PV_I32..PV_Z32), so `kind >= PV_I32` tests for them.
export const PV_64 = 1;
export const PV_Z64 = 2;
export const PV_I32 = 3;
export const PV_U32 = 4;
export const PV_Z32 = 5;

function varintKindOf(t: ScalarType, long: number): number {
  switch (t) {
    case ScalarType.INT64:
    case ScalarType.UINT64:
      return long === L_BIGINT ? PV_64 : 0;
    case ScalarType.SINT64:
      return long === L_BIGINT ? PV_Z64 : 0;
    case ScalarType.INT32:
      return PV_I32;
    case ScalarType.UINT32:
      return PV_U32;
    case ScalarType.SINT32:
      return PV_Z32;
    default:
      return 0;
  }
}

function fixedKindOf(t: ScalarType, long: number): number {
  switch (t) {
    case ScalarType.DOUBLE:
      return FIXED_F64;
    case ScalarType.FLOAT:
      return FIXED_F32;
    case ScalarType.FIXED32:
      return FIXED_U32;
    case ScalarType.SFIXED32:
      return FIXED_I32;
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return long === L_BIGINT ? FIXED_I64 : 0;
    default:
      return 0;
  }
}

export const WT_VARINT = 0;
export const WT_I64 = 1;
export const WT_LEN = 2;
export const WT_I32 = 5;

export interface FieldPlan {
  readonly fi: FieldInfo;
  readonly index: number;
  readonly number: number;
  readonly kind: number;
  readonly elemKind: number;
  /** Scalar type of the value or element; ScalarType.INT32 stands in for enums. */
  readonly scalar: ScalarType;
  readonly mapKey: ScalarType;
  /** Tag of one occurrence (for a packed list: the length-delimited tag). */
  readonly tag: number;
  readonly tagSize: number;
  readonly packed: boolean;
  /** FIXED_* kind when a packed run can be copied through a typed array, else 0. */
  readonly fixedKind: number;
  /** PV_* kind when a packed varint run has a specialized loop, else 0. */
  readonly varintKind: number;
  /** Map entry tags: key (1) and value (2) with their wire types. */
  readonly keyTag: number;
  readonly valueTag: number;
  /** Declared message type of a message field, message list or message map value. */
  readonly message: DescMessage | undefined;
  /** The write plan of `message`, resolved on first use (saves a WeakMap lookup per value). */
  child: WritePlan | undefined;
}

export interface WritePlan {
  readonly desc: DescMessage;
  readonly info: MessageInfo;
  /** Fields sorted by number. */
  readonly fields: readonly FieldPlan[];
  /** Fields whose values hold messages (message, message list, message-valued map). */
  readonly messageFields: readonly FieldPlan[];
  /** field number → plan, for pairing and collision checks. */
  readonly byNumber: ReadonlyMap<number, FieldPlan>;
  /** A wide type's slot → position in `fields` (see message/values.ts); undefined for others. */
  readonly positions: Int32Array | undefined;
}

export function wireTypeOf(t: ScalarType): number {
  switch (t) {
    case ScalarType.DOUBLE:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return WT_I64;
    case ScalarType.FLOAT:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return WT_I32;
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return WT_LEN;
    default:
      return WT_VARINT;
  }
}

function tagOf(num: number, wt: number): number {
  // number * 8 exceeds int32 for numbers ≥ 2^28: keep it a non-negative double.
  return num * 8 + wt;
}

const plans = new WeakMap<DescMessage, WritePlan>();

function fieldPlan(fi: FieldInfo): FieldPlan {
  const f = fi.field;
  const scalar = fi.elemKind === K_ENUM ? ScalarType.INT32 : ((fi.scalar || ScalarType.BYTES) as ScalarType);
  let wt: number;
  let packed = false;
  if (fi.kind === K_MAP || fi.kind === K_MESSAGE) wt = WT_LEN;
  else if (fi.kind === K_LIST) {
    if (fi.elemKind === K_MESSAGE) wt = WT_LEN;
    else {
      const ewt = wireTypeOf(scalar);
      packed = f.fieldKind === "list" && f.packed && ewt !== WT_LEN;
      wt = packed ? WT_LEN : ewt;
    }
  } else wt = wireTypeOf(scalar);
  const tag = tagOf(fi.number, wt);
  const mapKey = (fi.mapKey || ScalarType.STRING) as ScalarType;
  return {
    fi,
    index: fi.index,
    number: fi.number,
    kind: fi.kind,
    elemKind: fi.elemKind,
    scalar: fi.elemKind === K_MESSAGE ? ScalarType.BYTES : scalar,
    mapKey,
    tag,
    tagSize: varint32Size(tag),
    packed,
    fixedKind: packed && BULK_FIXED ? fixedKindOf(scalar, fi.long) : 0,
    varintKind: packed ? varintKindOf(scalar, fi.long) : 0,
    keyTag: tagOf(1, wireTypeOf(mapKey)),
    valueTag: tagOf(2, fi.elemKind === K_MESSAGE ? WT_LEN : wireTypeOf(scalar)),
    message: f.message,
    child: undefined,
  };
}

export function planOf(desc: DescMessage): WritePlan {
  let plan = plans.get(desc);
  if (plan !== undefined) return plan;
  const info = messageInfo(desc);
  const fields = info.fields.map(fieldPlan).sort((a, b) => a.number - b.number);
  plan = {
    desc,
    info,
    fields,
    messageFields: fields.filter((p) => p.elemKind === K_MESSAGE),
    byNumber: new Map(fields.map((p) => [p.number, p])),
    positions: positionsOf(fields),
  };
  plans.set(desc, plan);
  return plan;
}

/** The plan of a value found under field `p`: usually its declared type, cached on the field. */
export function childPlan(p: FieldPlan, desc: DescMessage): WritePlan {
  if (desc === p.message) return (p.child ??= planOf(desc));
  return planOf(desc);
}
