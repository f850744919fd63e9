// ProtobufSerializer (docs/design.md §8): the JS writer (src/codec/writer.ts) and the WASM tape reader
// (src/codec/reader.ts) bound to one ProtobufType.
import type { DescMessage } from "@bufbuild/protobuf";
import { MAX_LIST_ELEMENTS } from "./codec/read-plan.js";
import { DETACHED_INPUT, isBytes, isDetached, NOT_GENUINE_BYTES, readable, readableView, unshared } from "./bytes.js";
import { FrameReader, readFramePrefix } from "./codec/frame-reader.js";
import { FrameWriter } from "./codec/frame-writer.js";
import { BoundDecoder, RelayWatch } from "./codec/reader.js";
import { failureKind, GeneratedMessageWriter, OUT_APP, OUT_CHECK } from "./codec/generated-writer.js";
import { MessageWriter, type Acceptor } from "./codec/writer.js";
import { validateFrameBytes, validateMessageBytes } from "./codec/validate.js";
import { firstIncompatibility } from "./compat/evaluate.js";
import { checkPayloadRules } from "./descriptor/rules.js";
import { CodecError, shifted } from "./errors.js";
import { isPlainObject } from "./message/coerce.js";
import { NEEDS_CREATE } from "./message/create.js";
import { DynamicMessage, type DynamicInit } from "./message/dynamic-message.js";
import type { Settings } from "./settings.js";
import { snapshotOf, type ProtobufDynamicSerializerSnapshot } from "./snapshot/dynamic.js";
import type { ProtobufType } from "./type.js";
import { fromJsonOf, fromJsonStringOf, toJsonOf, toJsonStringOf } from "./json/codec.js";
import type { JsonReadOptions, JsonValue, JsonWriteOptions, JsonWriteStringOptions } from "./json/options.js";
import { decodeFrames, encodeFrames, type StreamSource } from "./stream/frames.js";

function evaluatorAcceptor(settings: Settings, jsNumbers: boolean): Acceptor {
  return (saved, current) => {
    const finding = firstIncompatibility(saved, current, settings, jsNumbers);
    return finding === undefined ? { ok: true } : { ok: false, finding };
  };
}

/** The largest input a failed read checks again in the other form (see #mixUp). */
const MIX_UP_MAX_BYTES = 64 * 1024;

/**
 * Encodes and decodes DynamicMessage values of one ProtobufType: frames (`encode`/`decode`,
 * `encodeAll`/`decodeAll`, `serialize`/`deserialize`) and bare messages (`toBinary`/`fromBinary`),
 * with the type's limits, unknown-field rules and write acceptance (docs/design.md §8.1).
 */
export class ProtobufSerializer {
  /** The type this serializer reads and writes. */
  readonly type: ProtobufType;
  readonly #writer: MessageWriter;
  /**
   * Plain init objects, written first by the generated kind's walk with an init plan (values
   * checked inline, no values array, no frame per message: span-batch encode from plain took
   * ~1.8x the time of a built value's through the dynamic writer). Whatever it refuses or throws
   * for, the dynamic writer writes again: it writes what only it takes (a DynamicMessage inside an
   * init object), and a fault is then named as create names it (#asCreate).
   */
  #directWriter: GeneratedMessageWriter | undefined = undefined;
  readonly #root: DescMessage;
  #decoder: BoundDecoder | undefined;
  /** What the writer tells the decoder: which bare messages it copies unread (reader.ts, WINDOW). */
  readonly #watch = new RelayWatch();
  readonly #jsNumbers: boolean;

  /**
   * @internal Use `type.createSerializer()`. `jsNumbers` false: the generated kind's inner
   * serializer, whose values hold jstype = JS_NUMBER fields as bigint (evaluateMessages).
   */
  constructor(type: ProtobufType, jsNumbers = true) {
    this.#jsNumbers = jsNumbers;
    this.type = type;
    this.#root = type.descriptor;
    this.#decoder = undefined;
    this.#writer = new MessageWriter(type.descriptor, {
      settings: type.settings,
      acceptor: evaluatorAcceptor(type.settings, jsNumbers),
      payloadRules: checkPayloadRules,
      relays: this.#watch,
    });
  }

  // Built on first write of an init object: a serializer that never gets one (the generated
  // kind's inner serializer, one that only decodes) builds no init plan.
  // Methods, not private getters: a private getter is looked up by a runtime call each time (~2 ns).
  #direct(): GeneratedMessageWriter {
    return (this.#directWriter ??= new GeneratedMessageWriter(this.#root, this.type.settings, true));
  }

  // Built on first decode: compiling the layout needs the WASM core, encoding does not.
  #dec(): BoundDecoder {
    return (this.#decoder ??= new BoundDecoder(this.#root, this.type.settings, this.#watch));
  }

  /**
   * One frame: the varint length, then the message (framing v1). `value` is a DynamicMessage, or a
   * plain init object of the shape DynamicMessage.create takes, checked by the same rules and
   * written directly (the fast way to write: no value is built).
   */
  encode(value: DynamicMessage | DynamicInit): Uint8Array {
    if (isPlainObject(value)) {
      try {
        return this.#direct().encodeFrame(value);
      } catch (e) {
        // The dynamic writer's turn (see #direct).
        return this.#afterDirect(e, [value], (vs) => this.#writer.encodeFrame(vs[0]));
      }
    }
    return this.#writer.encodeFrame(value);
  }

  /** The value of exactly one frame; the result carries this serializer's descriptor instance. */
  decode(frame: Uint8Array): DynamicMessage {
    const bytes = checkView(frame, this.#root);
    try {
      return this.#dec().oneFrame(bytes);
    } catch (e) {
      throw this.#mixUp(e, bytes, "frame");
    }
  }

  /** The bare message, without a frame (gRPC bodies, Kafka values); same checks and limits. */
  toBinary(value: DynamicMessage | DynamicInit): Uint8Array {
    if (isPlainObject(value)) {
      try {
        return this.#direct().toBinary(value);
      } catch (e) {
        return this.#afterDirect(e, [value], (vs) => this.#writer.toBinary(vs[0]));
      }
    }
    return this.#writer.toBinary(value);
  }

  /**
   * @internal The checks of `toBinary(value)` for a DynamicMessage, without writing it: throws what
   * toBinary would, returns the encoded size (the memory store's put).
   */
  _check(value: DynamicMessage): number {
    return this.#writer.check(value);
  }

  /** Reads a bare message. */
  fromBinary(bytes: Uint8Array): DynamicMessage {
    const input = checkInput(bytes, this.#root);
    try {
      return this.#dec().message(input);
    } catch (e) {
      throw this.#mixUp(e, input, "bare");
    }
  }

  /**
   * @internal fromBinary without the mix-up hint: a stream's frame body is not the caller's input,
   * and a hint there would come and go with where the chunks are cut.
   */
  _fromBody(bytes: Uint8Array): DynamicMessage {
    return this.#dec().message(checkBytes(bytes, this.#root));
  }

  /** @internal decodeAll without the mix-up hint (see _fromBody). */
  _fromFrames(bytes: Uint8Array): DynamicMessage[] {
    return this.#dec().frames(checkBytes(bytes, this.#root));
  }

  /**
   * A failed read's error, with a hint when the input is valid in the other form: a frame passed
   * to fromBinary/validate (its length prefix reads as a tag, so the error speaks of wire types)
   * or a bare message passed to decode/decodeAll/validateAll. Only failures pay for the check.
   */
  #mixUp(e: unknown, bytes: Uint8Array, expected: "bare" | "frame"): unknown {
    // fromBinary's and decode's input may be shared memory or a subclass with getters of its
    // own (checkInput, checkView): the hint is of one state, read without running its code.
    return this._mixUp(e, readable(bytes), expected);
  }

  /** @internal #mixUp for the generated serializer of the same type, whose reads fail alike. */
  _mixUp(e: unknown, bytes: Uint8Array, expected: "bare" | "frame"): unknown {
    // Only small inputs are checked again: a mix-up is one message, and a second look at a large
    // input would copy it into the core's memory (which a refused frame must never cost).
    if (!(e instanceof CodecError) || bytes.length === 0 || bytes.length > MIX_UP_MAX_BYTES) return e;
    // Past a count limit, the other reading would refuse the same content: no mix-up to point at.
    if (e.code === "LIST_TOO_LONG" || e.code === "TOO_MANY_FRAMES") return e;
    const name = this.#root.typeName;
    let hint: string;
    if (expected === "bare") {
      const prefix = readFramePrefix(bytes, 0);
      if (typeof prefix === "number" || prefix.bodyAt + prefix.size !== bytes.length || !this.#validates(() => validateMessageBytes(this.#root, bytes.subarray(prefix.bodyAt), this.type.settings))) return e;
      hint = `the input is one length-prefixed frame (framing v1) holding a valid ${name}: read it with serializer.decode(bytes), or pass the message without its length prefix`;
    } else {
      if (!this.#validates(() => validateMessageBytes(this.#root, bytes, this.type.settings))) return e;
      hint = `the input is a valid bare ${name} without a length prefix: read it with serializer.fromBinary(bytes), or frame it with serializer.encode`;
    }
    return new CodecError(e.code, `${e.message}. Note: ${hint}`, { path: e.path, offset: e.offset, cause: e.cause });
  }

  #validates(check: () => void): boolean {
    try {
      check();
      return true;
    } catch {
      return false;
    }
  }

  /** Frames of all values, concatenated; nothing is returned when any value fails. */
  encodeAll(values: Iterable<DynamicMessage | DynamicInit>): Uint8Array {
    const list = batchOf(values, "serializer.encodeAll");
    if (list.length > 0 && isPlainObject(list[0])) {
      try {
        return this.#direct().encodeAll(list);
      } catch (e) {
        // The whole batch, so that nothing is returned when a value fails, and a batch that
        // mixes init objects and values is written whole.
        return this.#afterDirect(e, list, (vs) => this.#writer.encodeAll(vs));
      }
    }
    return this.#asCreate(list, (vs) => this.#writer.encodeAll(vs));
  }

  /**
   * After the direct writer threw `e` for `values` (see #direct and failureKind): the
   * application's exception is thrown as it is; a value check's error is create's for the first
   * init object create refuses, or `e` itself when create takes them all (they changed between
   * the reads: nothing is written); anything else is the dynamic writer's turn (#asCreate).
   */
  #afterDirect<T>(e: unknown, values: readonly unknown[], write: (values: readonly unknown[]) => T): T {
    const kind = failureKind(e);
    if (kind === OUT_APP) throw e;
    if (kind === OUT_CHECK) {
      for (const v of values) if (isPlainObject(v)) DynamicMessage.create(this.#root, v);
      throw e;
    }
    return this.#asCreate(values, write);
  }

  /**
   * `write(values)` by the dynamic writer, for values that may hold init objects. When it fails,
   * the error is create's for the first init object create refuses: its order of faults (the
   * writers check a level's scalars before its messages, and maxDepth before a fault below it),
   * a cycle named as one. When create takes them all, the write's own error stands (a limit, an
   * unknown field), or, for NEEDS_CREATE, create's values are written. So a batch fails as
   * `encodeAll(values.map(create))` would: every init object checked, then written. Only failures
   * pay.
   */
  #asCreate<T>(values: readonly unknown[], write: (values: readonly unknown[]) => T): T {
    try {
      return write(values);
    } catch (e) {
      let built: unknown[] | undefined;
      for (let i = 0; i < values.length; i++) {
        const v = values[i];
        if (isPlainObject(v)) (built ??= values.slice())[i] = DynamicMessage.create(this.#root, v);
      }
      if (e !== NEEDS_CREATE || built === undefined) throw e;
      return write(built);
    }
  }

  /** Every frame of a buffer; nothing is returned when any frame fails. */
  decodeAll(bytes: Uint8Array): DynamicMessage[] {
    const input = checkBytes(bytes, this.#root);
    try {
      return this.#dec().frames(input);
    } catch (e) {
      throw this.#mixUp(e, input, "frame");
    }
  }

  // --- validate-only reads (no value is built) ---

  /** Checks a bare message exactly as `fromBinary` would (same CodecError) without decoding it. */
  validate(bytes: Uint8Array): void {
    const input = checkBytes(bytes, this.#root);
    try {
      // Over MAX_LIST_ELEMENTS bytes a list may be too long to read: the core accepts what
      // fromBinary then refuses (LIST_TOO_LONG), so such input is read to answer the same.
      if (input.length > MAX_LIST_ELEMENTS) this.#dec().message(input);
      else validateMessageBytes(this.#root, input, this.type.settings);
    } catch (e) {
      throw this.#mixUp(e, input, "bare");
    }
  }

  /** Checks every frame of a buffer exactly as `decodeAll` would, in one WASM call. */
  validateAll(bytes: Uint8Array): void {
    const input = checkBytes(bytes, this.#root);
    try {
      if (input.length > MAX_LIST_ELEMENTS) this.#dec().frames(input);
      else validateFrameBytes(this.#root, input, this.type.settings);
    } catch (e) {
      throw this.#mixUp(e, input, "frame");
    }
  }

  // --- end validate-only reads ---

  // --- ProtoJSON and streams (issue 16: src/json/, src/stream/) ---

  /**
   * The ProtoJSON value of `value` (JSON names, 64-bit integers as strings, bytes as base64, enums
   * by name, well-known types in their JSON forms). The value passes the checks `encode` makes
   * first. Unknown fields throw `CodecError` unless `discardUnknownFields` (data loss).
   */
  toJson(value: DynamicMessage | DynamicInit, options?: JsonWriteOptions): JsonValue {
    return toJsonOf(this, value, options);
  }

  /**
   * `toJson` as JSON text, without JSON.stringify's nesting limit; `prettySpaces` indents. Text
   * longer than V8's longest string (536,870,888 characters) is `CodecError` `JSON_TEXT_TOO_LONG`.
   */
  toJsonString(value: DynamicMessage | DynamicInit, options?: JsonWriteStringOptions): string {
    return toJsonStringOf(this, value, options);
  }

  /**
   * A value of this serializer's descriptor from a parsed ProtoJSON value. Unknown properties
   * throw `CodecError` unless `ignoreUnknownFields` (data loss); the value must encode within
   * the limits.
   */
  fromJson(json: unknown, options?: JsonReadOptions): DynamicMessage {
    return fromJsonOf(this, json, options);
  }

  /** `fromJson` from JSON text: duplicate keys are an error, 64-bit integers keep every digit. */
  fromJsonString(text: string, options?: JsonReadOptions): DynamicMessage {
    return fromJsonStringOf(this, text, options);
  }

  /**
   * The values of a stream of frames (framing v1): a Node `Readable`, a WHATWG `ReadableStream`
   * or any (async) iterable of `Uint8Array` chunks. Frames may span chunks; a frame's length is
   * checked against `maxMessageBytes` before its bytes are buffered; chunks are pulled only as
   * values are consumed. A truncated last frame throws `CodecError` with its byte offset.
   */
  decodeStream(source: StreamSource): AsyncIterableIterator<DynamicMessage> {
    return decodeFrames(this, source);
  }

  /** A `TransformStream` from values (or plain init objects) to frames, one chunk per value. */
  encodeStream(): TransformStream<DynamicMessage | DynamicInit, Uint8Array> {
    return encodeFrames(this);
  }

  // --- end ProtoJSON and streams ---

  /** Appends one frame to `writer`; on failure the writer is unchanged. */
  serialize(value: DynamicMessage | DynamicInit, writer: FrameWriter): void {
    if (!(writer instanceof FrameWriter)) throw new TypeError("serialize expects a FrameWriter");
    if (isPlainObject(value)) {
      try {
        this.#direct().writeFrame(value, writer);
      } catch (e) {
        // The FrameWriter is unchanged.
        this.#afterDirect(e, [value], (vs) => this.#writer.writeFrame(vs[0], writer));
      }
      return;
    }
    this.#writer.writeFrame(value, writer);
  }

  /** Reads the frame at the reader's position and moves past it; on failure it does not move. */
  deserialize(reader: FrameReader): DynamicMessage {
    if (!(reader instanceof FrameReader)) throw new TypeError("deserialize expects a FrameReader");
    const root = this.#root;
    const { body, bodyAt, next } = reader.peekFrame(root.typeName, this.type.settings.maxMessageBytes);
    let value: DynamicMessage;
    try {
      value = this.#dec().message(body);
    } catch (e) {
      throw shifted(e, bodyAt);
    }
    reader.advance(next);
    return value;
  }

  /** Values are immutable: returns `value`. */
  copy(value: DynamicMessage): DynamicMessage {
    return value;
  }

  /** The default instance of the serializer's descriptor. */
  createInstance(): DynamicMessage {
    return DynamicMessage.getDefaultInstance(this.#root);
  }

  isImmutableType(): true {
    return true;
  }

  /** A serializer with its own accepted-pair cache that shares this one's descriptors. */
  duplicate(): ProtobufSerializer {
    return new ProtobufSerializer(this.type, this.#jsNumbers);
  }

  /** The persisted configuration: schema and settings (write it with `writeSnapshot`). */
  snapshotConfiguration(): ProtobufDynamicSerializerSnapshot {
    return snapshotOf(this.type);
  }

  /** Equal when the types are equal (docs/design.md §6.2). */
  equals(other: unknown): boolean {
    return other === this || (other instanceof ProtobufSerializer && other.type.equals(this.type));
  }

  /**
   * @internal Values of frame bodies that a worker of protokeel/pool validated with an equal type:
   * `bodies` holds (offset, length) pairs into `store`, which the caller hands over (nothing else
   * may reference or write it). Read on first access, on this thread.
   */
  _lazyBodies(store: Uint8Array, bodies: ArrayLike<number>): DynamicMessage[] {
    return this.#dec().lazyBodies(store, bodies);
  }

  /**
   * @internal The most frames decodeAll returns (TOO_MANY_FRAMES past it), for protokeel/pool,
   * whose bundle takes nothing of the codec but through the core entry.
   */
  get _maxFrames(): number {
    return MAX_LIST_ELEMENTS;
  }

  /** @internal The number of evaluator calls so far (accepted-pair cache misses). */
  get evaluationCount(): number {
    return this.#writer.evaluations;
  }

  toString(): string {
    return `ProtobufSerializer(${this.#root.typeName})`;
  }
}

/**
 * The values of an encodeAll batch, read once (an iterable may not give its values twice);
 * anything not iterable is a TypeError naming the call (was the engine's "values is not
 * iterable").
 */
export function batchOf<T>(values: Iterable<T>, api: string): readonly T[] {
  if (Array.isArray(values)) return values;
  if (values === null || values === undefined || typeof (values as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== "function") {
    throw new TypeError(`${api} expects an iterable of values (an array), got ${values === null ? "null" : typeof values}`);
  }
  return [...values];
}

/** @internal A read's input as `readable` gives it (see checkView). */
export function checkBytes(bytes: unknown, root: DescMessage): Uint8Array {
  return unshared(checkView(bytes, root));
}

/**
 * @internal The checks of checkBytes, with the input as `readableView` gives it: it may be in
 * shared memory, for a reader that copies it once before reading it or calls `unshared` first
 * (BoundDecoder.oneFrame).
 */
export function checkView(bytes: unknown, root: DescMessage): Uint8Array {
  return readableView(checkInput(bytes, root));
}

/**
 * @internal The checks of checkBytes, the array returned as given: a genuine, attached
 * Uint8Array, which may be a subclass whose getters run code or memory another thread writes.
 * For a reader that reads it only through the engine's internal slots or through `readable`
 * (BoundDecoder.message).
 */
export function checkInput(bytes: unknown, root: DescMessage): Uint8Array {
  if (!isBytes(bytes)) {
    const got = bytes instanceof Uint8Array ? NOT_GENUINE_BYTES : bytes === null ? "null" : typeof bytes;
    throw new CodecError("NOT_BYTES", `cannot decode ${root.typeName}: expected a Uint8Array, got ${got}`, {
      path: root.typeName,
    });
  }
  // A detached array reads as empty, but copying from it throws the engine's TypeError. Only an
  // empty array can be detached, so a non-empty input pays one comparison.
  if (isDetached(bytes)) {
    throw new CodecError(
      "NOT_BYTES",
      `cannot decode ${root.typeName}: the Uint8Array is detached ${DETACHED_INPUT}`,
      { path: root.typeName },
    );
  }
  return bytes;
}

