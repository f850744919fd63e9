// The generated kind of type (docs/design.md §11): a protobuf-es generated schema (`GenMessage<T>` from
// protoc-gen-es) with the four settings. Its identity is the dynamic identity (full name,
// normalized bytes, versions, settings) plus the kind and the generated type name; its values are
// protobuf-es message objects.
import type { DescMessage } from "@bufbuild/protobuf";
import { InvalidDescriptorError } from "../errors.js";
import { invalid } from "../descriptor/invalid.js";
import { shortName } from "../descriptor/names.js";
import type { Settings } from "../settings.js";
import type { ProtobufType } from "../type.js";
import { ProtobufGeneratedSerializer } from "./serializer.js";

/** @internal Refuses what is not a protobuf-es message schema, naming what to pass. */
export function checkGeneratedSchema(schema: unknown): void {
  const s = schema as { kind?: unknown; typeName?: unknown } | null;
  if (s === null || typeof s !== "object" || s.kind !== "message" || typeof s.typeName !== "string") {
    throw new InvalidDescriptorError(
      "NOT_A_GENERATED_SCHEMA",
      `invalid descriptor: ProtobufType.ofGenerated expects a protobuf-es message schema (a GenMessage such as OrderSchema from protoc-gen-es code), got ${s === null ? "null" : typeof s === "object" ? "an object that is not a message schema" : typeof s}; for other descriptor inputs use ProtobufType.of(descriptor)`,
    );
  }
}

/**
 * @internal Refuses a schema whose messages protobuf-es objects cannot hold: two members of one
 * message (a field outside oneofs, or a oneof) with the same property name. protoc accepts a
 * oneof `foo_bar` beside a field `fooBar` (it compares JSON names of fields only), and protobuf-es
 * names both `fooBar`: one property holds either the field's value or the oneof's `{ case, value }`,
 * and a value written or read through it loses the other. The dynamic kind reads such schemas by
 * proto names.
 */
export function checkGeneratedNames(schema: DescMessage): void {
  const seen = new Set<DescMessage>([schema]);
  const work: DescMessage[] = [schema];
  for (let d = work.pop(); d !== undefined; d = work.pop()) {
    const byLocal = new Map<string, string>();
    for (const m of d.members) {
      const what = `${m.kind === "oneof" ? "oneof" : "field"} ${m.name}`;
      const other = byLocal.get(m.localName);
      if (other !== undefined) {
        throw invalid(
          schema.typeName,
          "GENERATED_NAME_CONFLICT",
          `message ${shortName(d.typeName)} has ${other} and ${what}, which protobuf-es both names "${m.localName}", so its message objects cannot hold both; rename one of them in the .proto file, or read this schema with the dynamic kind (ProtobufType.of)`,
        );
      }
      byLocal.set(m.localName, what);
    }
    for (const f of d.fields) {
      if (f.message !== undefined && !seen.has(f.message)) {
        seen.add(f.message);
        work.push(f.message);
      }
    }
  }
}

let make: (schema: DescMessage, base: ProtobufType) => ProtobufGeneratedType<DescMessage>;

/** @internal Used by ProtobufType.newGeneratedBuilder once the schema passed the payload rules. */
export function newGeneratedType<Desc extends DescMessage>(schema: Desc, base: ProtobufType): ProtobufGeneratedType<Desc> {
  return make(schema, base) as ProtobufGeneratedType<Desc>;
}

/**
 * A message type of the generated kind: a protobuf-es schema and four settings. Build with
 * `ProtobufType.ofGenerated(schema)` or `ProtobufType.newGeneratedBuilder(schema)`.
 */
export class ProtobufGeneratedType<Desc extends DescMessage = DescMessage> {
  readonly #schema: Desc;
  readonly #base: ProtobufType;

  static {
    make = (schema, base) => new ProtobufGeneratedType(schema, base);
  }

  private constructor(schema: Desc, base: ProtobufType) {
    this.#schema = schema;
    this.#base = base;
  }

  /** `"generated"`: values are protobuf-es message objects of `descriptor`. */
  get kind(): "generated" {
    return "generated";
  }

  /** The generated type's name: the `$typeName` of its values, e.g. `acme.Order`. */
  get generatedTypeName(): string {
    return this.#schema.typeName;
  }

  /** The root message's full name, e.g. `acme.Order`. */
  get fullName(): string {
    return this.#base.fullName;
  }

  /** The application's generated schema. */
  get descriptor(): Desc {
    return this.#schema;
  }

  /** The four settings (frozen). */
  get settings(): Settings {
    return this.#base.settings;
  }

  get framingVersion(): number {
    return this.#base.framingVersion;
  }

  get normalizationVersion(): number {
    return this.#base.normalizationVersion;
  }

  /** @internal The dynamic type of the same schema and settings (codec, normalized set). */
  get _dynamic(): ProtobufType {
    return this.#base;
  }

  /** The normalized descriptor set (normalization v1), a fresh copy on each call. */
  normalizedDescriptorSet(): Uint8Array {
    return this.#base.normalizedDescriptorSet();
  }

  /** Lowercase hex SHA-256 of the normalized descriptor set. */
  fingerprint(): string {
    return this.#base.fingerprint();
  }

  /**
   * Equal by content and kind: another generated type with the same generated type name, full
   * name, normalized bytes, versions and settings. Never equal to a dynamic type.
   */
  equals(other: unknown): boolean {
    if (other === this) return true;
    if (!(other instanceof ProtobufGeneratedType)) return false;
    return other.generatedTypeName === this.generatedTypeName && other.#base.equals(this.#base);
  }

  /** Always false, as for dynamic types: extract a scalar key instead. */
  isKeyType(): false {
    return false;
  }

  /** A serializer of this type's values (protobuf-es message objects). */
  createSerializer(): ProtobufGeneratedSerializer<Desc> {
    return new ProtobufGeneratedSerializer(this);
  }

  toString(): string {
    return `ProtobufType(generated ${this.fullName})`;
  }
}
