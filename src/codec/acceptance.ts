// Write acceptance (README "Writing"): may a value be written where the reader parses its paired
// declaration? By instance rules (a: the value's descriptor is the paired declaration; b: it is
// the instance its accepted containing value declares for the field), else by the directional
// evaluator (c), whose accepted pairs are cached per serializer. Also the checks of a value's
// unknown fields, and the payload rules for descriptors that are not the serializer's own.
import type { DescMessage } from "@bufbuild/protobuf";
import { isProtokeelError } from "../errors.js";
import type { DynamicMessage } from "../message/dynamic-message.js";
import { StoredUnknown, type UnknownField } from "../message/unknown-fields.js";
import { planOf } from "./plan.js";
import { checkUnknownOccurrence } from "./unknown.js";
import { MAX_FIELD_NUMBER } from "../bytes.js";

/** What the directional evaluator reports for a rejected pair. */
export interface AcceptFinding {
  readonly rule: string;
  readonly path: string;
  readonly message: string;
}

/**
 * Decides rule (c): may a value whose descriptor is `valueDesc` (saved) be written where the
 * reader parses `pairedDecl` (current)? The serializer plugs the evaluator in here.
 */
export type Acceptor = (
  valueDesc: DescMessage,
  pairedDecl: DescMessage,
) => { readonly ok: true } | { readonly ok: false; readonly finding: AcceptFinding };

/** Throws (InvalidDescriptorError) when a descriptor's closure breaks a payload rule. */
export type PayloadRuleCheck = (desc: DescMessage) => void;

/** Raises a CodecError at the writer's current path ("{path}" in `what` is replaced by it). */
export interface Failer {
  fail(code: string, what: string): never;
}

/** Accepted (value descriptor, paired declaration) pairs kept per serializer. */
export const ACCEPT_CACHE_SIZE = 16;

const noAcceptor: Acceptor = (valueDesc, pairedDecl) => ({
  ok: false,
  finding: {
    rule: valueDesc.typeName === pairedDecl.typeName ? "NOT_EVALUATED" : "MESSAGE_NAME_CHANGED",
    path: pairedDecl.typeName,
    message:
      valueDesc.typeName === pairedDecl.typeName
        ? `${valueDesc.typeName} is another descriptor instance and no schema evaluator is configured`
        : `full name changed from ${valueDesc.typeName} to ${pairedDecl.typeName}`,
  },
});

export class Acceptance {
  /** @internal Number of evaluator calls (cache misses) so far. */
  evaluations = 0;
  private readonly acceptor: Acceptor;
  private readonly payloadRules: PayloadRuleCheck | undefined;
  private readonly rulesOk = new WeakSet<DescMessage>();
  // LRU of accepted pairs, most recent first.
  private readonly lruSaved: DescMessage[] = [];
  private readonly lruCurrent: DescMessage[] = [];

  constructor(acceptor: Acceptor | undefined, payloadRules: PayloadRuleCheck | undefined) {
    this.acceptor = acceptor ?? noAcceptor;
    this.payloadRules = payloadRules;
  }

  /** @internal The cached pairs, most recent first, as [value descriptor, paired declaration]. */
  acceptedPairs(): [DescMessage, DescMessage][] {
    return this.lruSaved.map((s, i) => [s, this.lruCurrent[i]!]);
  }

  /**
   * The checks before a value's fields: acceptance of its descriptor against the paired
   * declaration (rules a/b/c), or the payload rules for a foreign unpaired one, and its unknown
   * fields. Returns true when more than instance identity was needed (the value then is not
   * memoized as accepted: the evaluator's verdict is cached per pair, not per value).
   */
  admit(f: Failer, msg: DynamicMessage, paired: DescMessage | undefined, declared: DescMessage | undefined): boolean {
    let impure = false;
    const desc = msg.descriptor;
    if (paired === undefined) {
      if (declared !== undefined && desc !== declared) {
        impure = true;
        this.checkRules(f, desc);
      }
    } else if (desc !== paired) {
      impure = true;
      // Rule (b): the accepted containing value declares this very instance for the field.
      if (desc !== declared) this.accept(f, desc, paired);
    }
    const u = msg._unknown;
    if (u.length > 0) this.checkUnknown(f, u, paired);
    return impure;
  }

  private checkUnknown(f: Failer, u: readonly UnknownField[], paired: DescMessage | undefined): void {
    const pairedPlan = paired === undefined ? undefined : planOf(paired);
    for (let i = 0; i < u.length; i++) {
      const o = u[i]!;
      const number = o.number;
      if (!(number >= 1 && number <= MAX_FIELD_NUMBER)) {
        f.fail("UNKNOWN_FIELD_NUMBER_INVALID", `unknown field number ${number} at {path} is outside 1..${MAX_FIELD_NUMBER}; remove it`);
      }
      const why = o instanceof StoredUnknown ? checkUnknownOccurrence(number, o._store, o._off, o._off + o._len) : checkUnknownOccurrence(number, o.data);
      if (why !== undefined) {
        f.fail(
          "UNKNOWN_FIELD_MALFORMED",
          `unknown field ${number} at {path} is not one well-formed encoded field: ${why}; each occurrence must be a tag followed by its payload`,
        );
      }
      const hit = pairedPlan?.byNumber.get(number);
      if (hit !== undefined) {
        f.fail(
          "UNKNOWN_FIELD_COLLISION",
          `unknown field ${number} at {path} collides with field ${paired!.typeName}.${hit.fi.name}(${number}) of the paired declaration; remove the unknown field before writing`,
        );
      }
    }
  }

  private checkRules(f: Failer, desc: DescMessage): void {
    if (this.payloadRules === undefined || this.rulesOk.has(desc)) return;
    try {
      this.payloadRules(desc);
    } catch (e) {
      if (!isProtokeelError(e)) throw e;
      f.fail("INVALID_VALUE_DESCRIPTOR", `value at {path} has descriptor ${desc.typeName} that breaks a payload rule: ${e.message}`);
    }
    this.rulesOk.add(desc);
  }

  private accept(f: Failer, saved: DescMessage, current: DescMessage): void {
    const s = this.lruSaved;
    const c = this.lruCurrent;
    for (let i = 0; i < s.length; i++) {
      if (s[i] === saved && c[i] === current) {
        if (i > 0) {
          s.splice(i, 1);
          c.splice(i, 1);
          s.unshift(saved);
          c.unshift(current);
        }
        return;
      }
    }
    // The evaluator expects closures that satisfy the payload rules.
    this.checkRules(f, saved);
    this.evaluations++;
    let r: ReturnType<Acceptor>;
    try {
      r = this.acceptor(saved, current);
    } catch (e) {
      if (!isProtokeelError(e)) throw e;
      f.fail("INVALID_VALUE_DESCRIPTOR", `value at {path} has descriptor ${saved.typeName} that cannot be evaluated: ${e.message}`);
    }
    if (!r.ok) {
      f.fail(
        "INCOMPATIBLE_VALUE_DESCRIPTOR",
        // The evaluator speaks of saved and current schemas: here the value's schema is the saved
        // one (what the value holds) and the serializer's the current one (what it writes).
        `value at {path} was built with a schema of ${saved.typeName} that this serializer's ${current.typeName} cannot write its content with (${r.finding.rule} at ${r.finding.path}; in the evaluator's words, with the value's schema as the saved one: ${r.finding.message}); build the value from the serializer's descriptor, or from a schema version the serializer's schema can read`,
      );
    }
    s.unshift(saved);
    c.unshift(current);
    if (s.length > ACCEPT_CACHE_SIZE) {
      s.pop();
      c.pop();
    }
  }
}
