// The serializer of the generated kind (docs/design.md §11): the dynamic serializer's framing, settings,
// limits, unknown-field rules, deterministic mode, errors and WASM read path, with values that
// are protobuf-es message objects. Writes go straight from the objects into the output
// (src/codec/generated-writer.ts); a value it refuses is written again through the conversion
// path (src/generated/convert.ts, then the dynamic writer), whose error is the one thrown, so
// that refusals name their fault exactly as the conversion path always did.
import { clone, create, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { FrameReader } from "../codec/frame-reader.js";
import { FrameWriter } from "../codec/frame-writer.js";
import { GeneratedDecoder } from "../codec/generated-reader.js";
import { failureKind, GeneratedMessageWriter, OUT_APP, OUT_CHECK } from "../codec/generated-writer.js";
import { internalError, shifted } from "../errors.js";
import { batchOf, checkBytes, ProtobufSerializer } from "../serializer.js";
import { ProtobufGeneratedSerializerSnapshot } from "../snapshot/generated.js";
import { fromGenerated, genPlanOf, Trail } from "./convert.js";
import type { DynamicMessage } from "../message/dynamic-message.js";
import type { ProtobufGeneratedType } from "./type.js";

/**
 * Encodes and decodes protobuf-es message objects of one generated type: frames (`encode`/
 * `decode`, `encodeAll`/`decodeAll`, `serialize`/`deserialize`) and bare messages (`toBinary`/
 * `fromBinary`), with the same checks, limits and errors as the dynamic kind. A value must be a
 * message of the serializer's schema (`$typeName`); its `$unknown` fields are written after the
 * known ones, and decoded values keep the unknown fields they read, so relays lose nothing.
 */
export class ProtobufGeneratedSerializer<Desc extends DescMessage = DescMessage> {
  /** The type this serializer reads and writes. */
  readonly type: ProtobufGeneratedType<Desc>;
  readonly #inner: ProtobufSerializer;
  readonly #plan: ReturnType<typeof genPlanOf>;
  readonly #writer: GeneratedMessageWriter;
  #decoder: GeneratedDecoder | undefined;

  /** @internal Use `type.createSerializer()`. */
  constructor(type: ProtobufGeneratedType<Desc>) {
    this.type = type;
    this.#inner = new ProtobufSerializer(type._dynamic, false);
    this.#plan = genPlanOf(type.descriptor);
    this.#writer = new GeneratedMessageWriter(type.descriptor, type.settings);
    this.#decoder = undefined;
  }

  // Built on first decode: compiling the layout needs the WASM core, encoding does not.
  #dec(): GeneratedDecoder {
    return (this.#decoder ??= new GeneratedDecoder(this.type.descriptor, this.type.settings));
  }

  #in(value: unknown): DynamicMessage {
    return fromGenerated(value, this.#plan, new Trail(this.#plan.typeName), this.type.settings.maxDepth);
  }

  /**
   * The error for a value the direct writer refused (`e`): what the conversion path throws for
   * it (`again` converts and writes the same value). Only a bug lets that path pass.
   */
  #refusal(e: unknown, again: () => unknown): unknown {
    // See failureKind: the application's exception is the caller's; a check's error when the
    // conversion path, reading the value again, takes it is the first read's.
    const kind = failureKind(e);
    if (kind === OUT_APP) return e;
    try {
      again();
    } catch (x) {
      return x;
    }
    if (kind === OUT_CHECK) return e;
    return internalError(
      `cannot write ${this.type.descriptor.typeName}`,
      `the generated writer refused a value that the conversion path writes (${e instanceof Error ? e.message : String(e)})`,
    );
  }

  /** One frame: the varint length, then the message (framing v1). */
  encode(value: MessageShape<Desc>): Uint8Array {
    try {
      return this.#writer.encodeFrame(value);
    } catch (e) {
      throw this.#refusal(e, () => this.#inner.encode(this.#in(value)));
    }
  }

  /** The value of exactly one frame. */
  decode(frame: Uint8Array): MessageShape<Desc> {
    const input = checkBytes(frame, this.type.descriptor);
    try {
      return this.#dec().oneFrame(input) as MessageShape<Desc>;
    } catch (e) {
      throw this.#inner._mixUp(e, input, "frame");
    }
  }

  /** The bare message, without a frame; same checks and limits. */
  toBinary(value: MessageShape<Desc>): Uint8Array {
    try {
      return this.#writer.toBinary(value);
    } catch (e) {
      throw this.#refusal(e, () => this.#inner.toBinary(this.#in(value)));
    }
  }

  /** Reads a bare message. */
  fromBinary(bytes: Uint8Array): MessageShape<Desc> {
    const input = checkBytes(bytes, this.type.descriptor);
    try {
      return this.#dec().message(input) as MessageShape<Desc>;
    } catch (e) {
      throw this.#inner._mixUp(e, input, "bare");
    }
  }

  /** Frames of all values, concatenated; nothing is returned when any value fails. */
  encodeAll(values: Iterable<MessageShape<Desc>>): Uint8Array {
    const list = batchOf(values, "serializer.encodeAll");
    try {
      return this.#writer.encodeAll(list);
    } catch (e) {
      throw this.#refusal(e, () => this.#inner.encodeAll(list.map((v) => this.#in(v))));
    }
  }

  /** Every frame of a buffer, validated in one WASM call. */
  decodeAll(bytes: Uint8Array): MessageShape<Desc>[] {
    const input = checkBytes(bytes, this.type.descriptor);
    try {
      return this.#dec().frames(input) as MessageShape<Desc>[];
    } catch (e) {
      throw this.#inner._mixUp(e, input, "frame");
    }
  }

  /** Checks a bare message exactly as `fromBinary` would, without building a value. */
  validate(bytes: Uint8Array): void {
    const input = checkBytes(bytes, this.type.descriptor);
    try {
      this.#dec().validate(input);
    } catch (e) {
      throw this.#inner._mixUp(e, input, "bare");
    }
  }

  /** Checks every frame of a buffer exactly as `decodeAll` would, in one WASM call. */
  validateAll(bytes: Uint8Array): void {
    const input = checkBytes(bytes, this.type.descriptor);
    try {
      this.#dec().validateAll(input);
    } catch (e) {
      throw this.#inner._mixUp(e, input, "frame");
    }
  }

  /** Appends one frame to `writer`; on failure the writer is unchanged. */
  serialize(value: MessageShape<Desc>, writer: FrameWriter): void {
    if (!(writer instanceof FrameWriter)) throw new TypeError("serialize expects a FrameWriter");
    try {
      this.#writer.writeFrame(value, writer);
    } catch (e) {
      throw this.#refusal(e, () => this.#inner.serialize(this.#in(value), new FrameWriter()));
    }
  }

  /** Reads the frame at the reader's position and moves past it; on failure it does not move. */
  deserialize(reader: FrameReader): MessageShape<Desc> {
    if (!(reader instanceof FrameReader)) throw new TypeError("deserialize expects a FrameReader");
    const root = this.type.descriptor;
    const { body, bodyAt, next } = reader.peekFrame(root.typeName, this.type.settings.maxMessageBytes);
    let value: MessageShape<Desc>;
    try {
      value = this.#dec().message(body) as MessageShape<Desc>;
    } catch (e) {
      throw shifted(e, bodyAt);
    }
    reader.advance(next);
    return value;
  }

  /** protobuf-es message objects are mutable: a deep copy (protobuf-es `clone`). */
  copy(value: MessageShape<Desc>): MessageShape<Desc> {
    return clone(this.type.descriptor, value);
  }

  /** A new message with no field set (protobuf-es `create(schema)`). */
  createInstance(): MessageShape<Desc> {
    return create(this.type.descriptor);
  }

  /** False: protobuf-es message objects can be changed in place, so `copy` copies. */
  isImmutableType(): false {
    return false;
  }

  /** A serializer with its own caches that shares this one's descriptors. */
  duplicate(): ProtobufGeneratedSerializer<Desc> {
    return new ProtobufGeneratedSerializer(this.type);
  }

  /** The persisted configuration: generated type name, schema and settings. */
  snapshotConfiguration(): ProtobufGeneratedSerializerSnapshot {
    return ProtobufGeneratedSerializerSnapshot._of(this.type);
  }

  /** Equal when the types are equal (same kind included). */
  equals(other: unknown): boolean {
    return other === this || (other instanceof ProtobufGeneratedSerializer && other.type.equals(this.type));
  }

  /** @internal The number of evaluator calls so far. */
  get evaluationCount(): number {
    return this.#inner.evaluationCount;
  }

  toString(): string {
    return `ProtobufGeneratedSerializer(${this.type.fullName})`;
  }
}
