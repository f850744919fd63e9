// CodecPool: decode / encode / validate / evaluate batches of one ProtobufType on worker threads.
// A batch is cut into chunks (split.ts), the chunks of all pending batches are handed to idle
// workers in turn (one chunk of each batch, then the next batch: a large batch does not hold
// back the small ones behind it), and the batch settles once its chunks have, in input order,
// with the error of its first failed chunk. Workers are unreferenced while idle, so a pool that
// has nothing to do never keeps the process alive.
// Over 500 lines on purpose: the batch bookkeeping, the queue and the workers' lives share one
// state (which chunk runs where, which batch settles when) that is only consistent kept together.
import { availableParallelism } from "node:os";
import { Worker, type ResourceLimits } from "node:worker_threads";
import {
  isDynamicMessage,
  PoolError,
  type DynamicInit,
  type DynamicMessage,
  type EvaluationBoundary,
  type EvaluationResult,
  type ProtobufSerializer,
  type ProtobufType,
} from "../index.js";
import { fromWire, type Hello, type Reply, type ResultForm, type Task } from "./protocol.js";
import { isBytes, isDetached } from "../bytes.js";
import { adopt, chunkCount, concat, copyOf, flat, MIN_CHUNK_BYTES, splitFrames, splitItems } from "./split.js";

/** Options of `createCodecPool`; `R`: its `results`, what `decode` returns when a call gives no `as`. */
export interface CodecPoolOptions<R extends ResultForm = ResultForm> {
  /** The type every worker decodes and encodes with (its settings included); a dynamic type. */
  readonly type: ProtobufType;
  /** Number of worker threads. Defaults to the machine's available parallelism minus one, at least 1. */
  readonly size?: number;
  /**
   * Move the input's buffers to the workers instead of copying them: after the call the caller's
   * `Uint8Array`s are detached (length 0) and must not be used. Only an array that views its whole
   * `ArrayBuffer` is moved; one that views part of a larger buffer (a `subarray`, a protokeel
   * encoder's output, Node's small pooled `Buffer`s) is copied and left as it is, and so is every
   * item over a buffer that another item views part of. Per call with
   * `{ transfer }`. Defaults to false.
   */
  readonly transfer?: boolean;
  /** What `decode` returns: "object" (plain objects, as `msg.toObject()`) or "message". Per call with `{ as }`. Defaults to "object". */
  readonly results?: R;
  /** Node's `resourceLimits` for each worker; a worker that exceeds them exits and is replaced (its task fails with POOL_WORKER_EXITED). */
  readonly resourceLimits?: ResourceLimits;
}

/** Per-call options of `decode`. */
export interface PoolDecodeOptions<A extends ResultForm = ResultForm> {
  /** "object" (plain objects) or "message" (DynamicMessage values of the pool's type). Defaults to the pool's `results`. */
  readonly as?: A;
  /** See `CodecPoolOptions.transfer`. */
  readonly transfer?: boolean;
}

/** Per-call options of `encode`. */
export interface PoolEncodeOptions {
  /** "frames": one buffer of frames, as `encodeAll`; "bare": one bare message per value, as `toBinary`. Defaults to "frames". */
  readonly form?: "frames" | "bare";
}

/** Per-call options of `validate`. */
export interface PoolValidateOptions {
  /** See `CodecPoolOptions.transfer`. */
  readonly transfer?: boolean;
}

/** Per-call options of `evaluate`. */
export interface PoolEvaluateOptions {
  /** As `evaluateSchemaChange`'s `boundary`. Defaults to "binary". */
  readonly boundary?: EvaluationBoundary;
}

/** @internal Test seams: another worker script (the TypeScript sources have no worker.js). */
export interface CodecPoolInternals {
  readonly _workerUrl?: URL;
}

interface Chunk {
  readonly batch: Batch;
  readonly index: number;
  readonly task: DistributiveOmit<Task, "id">;
  /** The batch index of the chunk's first item (errors name items by it). */
  readonly first?: number;
  readonly transfer: ArrayBuffer[];
  /** The chunk's result on the calling thread, from what its worker sent. */
  readonly take: (result: unknown) => unknown;
}

type DistributiveOmit<T, K extends keyof never> = T extends unknown ? Omit<T, K> : never;

interface Batch {
  readonly what: string;
  readonly chunks: Chunk[];
  readonly results: unknown[];
  /** Chunks handed to workers so far (they go in index order). */
  next: number;
  /** The round in which the batch gets its next chunk (see #enqueue). */
  turn: number;
  settled: number;
  /** Chunks from this index on are not dispatched: an earlier chunk failed. */
  limit: number;
  error: Error | undefined;
  readonly combine: (results: unknown[]) => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  running: Chunk | undefined;
  started: boolean;
  /** The uncaught error a worker reported before exiting. */
  crash: Error | undefined;
}

const WORKER_URL = new URL("./worker.js", import.meta.url);

/**
 * A pool of worker threads bound to one type. Every method takes a batch and returns a promise of
 * what the single-thread serializer call returns for it, in input order, or rejects with the error
 * that call throws (same class, code, message, path and offset).
 */
/** What `decode` resolves to for a result form: DynamicMessage values, or plain objects. */
export type PoolDecodeResult<R extends ResultForm> = R extends "message" ? DynamicMessage[] : Record<string, unknown>[];

export class CodecPool<R extends ResultForm = "object"> {
  /** The type the workers decode and encode with. */
  readonly type: ProtobufType;
  /** Number of worker threads. */
  readonly size: number;
  readonly #transfer: boolean;
  readonly #results: ResultForm;
  readonly #limits: ResourceLimits | undefined;
  readonly #url: URL;
  readonly #typeBytes: Uint8Array;
  readonly #ser: ProtobufSerializer;
  readonly #slots: Slot[] = [];
  readonly #queue: Batch[] = [];
  readonly #pending = new Set<Batch>();
  readonly #exits = new Set<Promise<void>>();
  #state: "open" | "closing" | "closed" = "open";
  #ended!: () => void;
  readonly #whenEnded = new Promise<void>((resolve) => (this.#ended = resolve));
  #ids = 0;
  /** The round of batches being served (see #nextChunk). */
  #round = 0;
  readonly #byId = new Map<number, Chunk>();

  /** @internal Use `createCodecPool`. */
  constructor(options: CodecPoolOptions & CodecPoolInternals) {
    const type = options?.type as ProtobufType | undefined;
    if (type === undefined || type === null || typeof (type as { createSerializer?: unknown }).createSerializer !== "function") {
      throw new TypeError("createCodecPool needs { type }: a ProtobufType (ProtobufType.of(descriptor))");
    }
    // Before the dynamic kind's own methods (toBytes) are looked for: a generated type was told
    // it was no ProtobufType at all.
    if (type.kind !== "dynamic" || typeof (type as { toBytes?: unknown }).toBytes !== "function") {
      throw new PoolError("POOL_TYPE_UNSUPPORTED", `cannot create a pool of ${type.fullName}: the pool runs dynamic types only (ProtobufType.of), not the ${type.kind} kind`);
    }
    const size = options.size ?? Math.max(1, availableParallelism() - 1);
    if (!Number.isInteger(size) || size < 1 || size > 1024) throw new RangeError(`pool size must be an integer in 1..1024, got ${String(size)}`);
    const results = options.results ?? "object";
    checkForm(results);
    this.type = type;
    this.size = size;
    this.#transfer = options.transfer === true;
    this.#results = results;
    this.#limits = options.resourceLimits;
    this.#url = options._workerUrl ?? WORKER_URL;
    this.#typeBytes = type.toBytes();
    this.#ser = type.createSerializer();
    for (let i = 0; i < size; i++) this.#slots.push(this.#start());
  }

  /**
   * The values of a batch: a `Uint8Array` of frames (as `serializer.decodeAll`) or an array of bare
   * messages (as `fromBinary` on each). `as: "object"` gives plain objects (`msg.toObject()`: unknown
   * fields are not in them); `as: "message"` gives DynamicMessage values bound to `pool.type.descriptor`,
   * validated in the workers and read on this thread on first access to a field.
   */
  decode<A extends ResultForm>(input: Uint8Array | readonly Uint8Array[], options: PoolDecodeOptions<A> & { readonly as: A }): Promise<PoolDecodeResult<A>>;
  // Without `as`, the pool's `results` (createCodecPool({ results: "message" }) returns messages).
  decode(input: Uint8Array | readonly Uint8Array[], options?: PoolDecodeOptions<never>): Promise<PoolDecodeResult<R>>;
  decode(input: Uint8Array | readonly Uint8Array[], options?: PoolDecodeOptions): Promise<DynamicMessage[] | Record<string, unknown>[]>;
  decode(input: Uint8Array | readonly Uint8Array[], options: PoolDecodeOptions = {}): Promise<DynamicMessage[] | Record<string, unknown>[]> {
    const as = options.as ?? this.#results;
    checkForm(as);
    const transfer = options.transfer ?? this.#transfer;
    const lazy = (store: Uint8Array, bodies: ArrayLike<number>) => (this.#ser as unknown as Lazy)._lazyBodies(store, bodies);
    return this.#submit(`decode of ${this.type.fullName}`, (batch) => {
      if (input instanceof Uint8Array) {
        return this.#frameChunks(batch, input, transfer, as === "message", (bytes, shift) => ({ op: "decodeFrames", bytes, shift, as }), (chunk) =>
          as === "message" ? (result) => lazy(result as Uint8Array, chunk.bodies!) : (result) => result,
        );
      }
      return this.#itemChunks(batch, input, transfer, (items) => ({ op: "decodeBare", items, as }), () =>
        as === "message" ? (result) => (result as Uint8Array[]).map((b) => lazy(b, [0, b.length])[0]!) : (result) => result,
      );
    }, flat) as Promise<DynamicMessage[] | Record<string, unknown>[]>;
  }

  /** Checks a batch (frames, or an array of bare messages) exactly as `decode` reads it, building no value. */
  validate(input: Uint8Array | readonly Uint8Array[], options: PoolValidateOptions = {}): Promise<void> {
    const transfer = options.transfer ?? this.#transfer;
    return this.#submit(`validate of ${this.type.fullName}`, (batch) =>
      input instanceof Uint8Array
        ? this.#frameChunks(batch, input, transfer, false, (bytes, shift) => ({ op: "validateFrames", bytes, shift }), () => () => undefined)
        : this.#itemChunks(batch, input, transfer, (items) => ({ op: "validateBare", items }), () => () => undefined),
    () => undefined) as Promise<void>;
  }

  /**
   * Encodes plain init objects (the shape `DynamicMessage.create` takes; they cross to the workers
   * by structured clone, so no functions or class instances): `form: "frames"` gives one buffer of
   * frames as `serializer.encodeAll` (nothing when a value fails), `"bare"` one message per value.
   */
  encode(values: readonly DynamicInit[], options: PoolEncodeOptions & { form: "bare" }): Promise<Uint8Array[]>;
  encode(values: readonly DynamicInit[], options?: PoolEncodeOptions): Promise<Uint8Array>;
  encode(values: readonly DynamicInit[], options: PoolEncodeOptions = {}): Promise<Uint8Array | Uint8Array[]> {
    const form = options.form ?? "frames";
    if (form !== "frames" && form !== "bare") throw new RangeError(`encode form must be "frames" or "bare", got ${String(form)}`);
    return this.#submit(`encode of ${this.type.fullName}`, (batch) => {
      if (!Array.isArray(values)) throw new TypeError("pool.encode expects an array of plain init objects");
      // A hole reads as undefined here and as a hole in a worker, where it reached postMessage's
      // transfer list and killed the worker (POOL_WORKER_EXITED for ordinary bad input).
      const list: unknown[] = Array.from(values);
      const at = list.findIndex((v) => isDynamicMessage(v));
      if (at >= 0) throw this.#notCloneable(`values[${at}]`);
      // Structured clone turns a class instance into a plain object, which the workers would then
      // write where this thread refuses it: such a batch is checked here, for this thread's error.
      if (reshapedByClone(list, this.type.settings.maxDepth)) {
        // A DynamicMessage below the top level is what stops it (named, as postMessage would fail
        // on it), not a reason to encode the batch here first.
        const where = dynamicMessageIn(list, 0);
        if (where !== undefined) throw this.#notCloneable(where);
        if (form === "frames") this.#ser.encodeAll(list as DynamicInit[]);
        else for (const v of list) this.#ser.toBinary(v as DynamicInit);
      }
      const runs = splitItems(list, chunkCount(list.length, ENCODE_MIN_VALUES, this.size), () => 1);
      return runs.map(([s, e], index) => ({ batch, index, first: s, task: { op: "encode", values: list.slice(s, e), form }, transfer: [], take: (r) => r }));
    }, form === "frames" ? concat : flat) as Promise<Uint8Array | Uint8Array[]>;
  }

  /**
   * Evaluates each saved type against the pool's type, as
   * `evaluateSchemaChange(saved.descriptor, pool.type.descriptor, { savedSettings: saved.settings, currentSettings: pool.type.settings, boundary })`.
   */
  evaluate(saved: readonly ProtobufType[], options: PoolEvaluateOptions = {}): Promise<EvaluationResult[]> {
    return this.#submit(`evaluate against ${this.type.fullName}`, (batch) => {
      if (!Array.isArray(saved)) throw new TypeError("pool.evaluate expects an array of ProtobufType");
      // Array.from visits holes (as undefined), which map skips and postMessage then refused.
      const bytes = Array.from(saved, (t, i) => {
        if (t === null || typeof t !== "object" || typeof (t as { toBytes?: unknown }).toBytes !== "function") throw new TypeError(`pool.evaluate: saved[${i}] is not a ProtobufType`);
        return t.toBytes();
      });
      const runs = splitItems(bytes, chunkCount(bytes.length, 1, this.size), () => 1);
      return runs.map(([s, e], index) => {
        const part = bytes.slice(s, e);
        return { batch, index, task: { op: "evaluate", saved: part, boundary: options.boundary }, transfer: part.map((b) => b.buffer as ArrayBuffer), take: (r) => r };
      });
    }, flat) as Promise<EvaluationResult[]>;
  }

  /**
   * Stops taking batches (new calls reject with POOL_CLOSED), lets the pending ones finish, then
   * ends the workers. Resolves when they have exited.
   */
  close(): Promise<void> {
    if (this.#state === "open") this.#state = "closing";
    return this.#whenIdleThenEnd();
  }

  /** Ends the workers now: every pending batch rejects with POOL_CLOSED. Resolves when they have exited. */
  destroy(): Promise<void> {
    if (this.#state !== "closed") this.#end(new PoolError("POOL_CLOSED", `the pool of ${this.type.fullName} was destroyed before the batch finished; nothing of it is returned`));
    return this.#whenExited();
  }

  // --- batches ---

  #submit(what: string, cut: (batch: Batch) => Omit<Chunk, "batch">[], combine: (results: unknown[]) => unknown): Promise<unknown> {
    if (this.#state !== "open") {
      return Promise.reject(new PoolError("POOL_CLOSED", `cannot run ${what}: the pool is ${this.#state === "closing" ? "closing" : "closed"}; create a new pool`));
    }
    return new Promise((resolve, reject) => {
      const batch: Batch = { what, chunks: [], results: [], next: 0, turn: this.#round, settled: 0, limit: Infinity, error: undefined, combine, resolve, reject };
      try {
        for (const c of cut(batch)) batch.chunks.push({ ...c, batch });
      } catch (e) {
        reject(e as Error);
        return;
      }
      this.#pending.add(batch);
      this.#enqueue(batch);
      this.#dispatch();
      // A chunk no worker took yet is cloned when one does, after this call returned: encode's
      // init objects (their Uint8Arrays) may hold other data by then. Those are cloned now, as
      // posting would (one that cannot be is refused when posted, as a posted one is).
      for (let i = batch.next; i < batch.chunks.length; i++) {
        const c = batch.chunks[i]!;
        if (c.task.op !== "encode") continue;
        try {
          batch.chunks[i] = { ...c, task: { ...c.task, values: structuredClone(c.task.values) } };
        } catch {
          // left for #post to refuse
        }
      }
    });
  }

  /** A buffer of frames as chunks of whole frames (`withBodies`: each chunk lists its frames' bodies, for lazy values). */
  #frameChunks(
    batch: Batch,
    input: Uint8Array,
    transfer: boolean,
    withBodies: boolean,
    task: (bytes: Uint8Array, shift: number) => Chunk["task"],
    take: (part: { bodies: number[] | undefined }) => Chunk["take"],
  ): Omit<Chunk, "batch">[] {
    // A detached input: the error the single-thread call gives (NOT_BYTES), thrown here.
    // A Proxy of an array first: isDetached reads through the engine's getters, which throw for one.
    if (!isBytes(input) || isDetached(input)) this.#ser.validateAll(input);
    let parts = splitFrames(input, chunkCount(input.length, MIN_CHUNK_BYTES, this.size), withBodies, (this.#ser as unknown as Lazy)._maxFrames);
    // Too many frames for one array of values: the single-thread call's error (TOO_MANY_FRAMES;
    // such a batch is over 64 MiB, which validateAll reads to answer as decodeAll).
    if (parts === undefined) {
      this.#ser.validateAll(input);
      parts = splitFrames(input, chunkCount(input.length, MIN_CHUNK_BYTES, this.size), withBodies, Infinity)!;
    }
    // Moved, the caller's buffer goes whole to the first chunk's worker; the other chunks are copies.
    const source = transfer ? adopt(input) : undefined;
    return parts.map((p, index) => {
      const bytes = source !== undefined && index === 0 ? source.subarray(p.start, p.end) : copyOf(source ?? input, p.start, p.end);
      return { batch, index, task: task(bytes, p.start), transfer: [bytes.buffer as ArrayBuffer], take: take(p) };
    });
  }

  /**
   * An array of bare messages as chunks of about equal bytes. Copied, each chunk's messages are
   * packed into one buffer (one transfer per chunk, not one per message); moved, each message's
   * buffer goes to the first chunk that holds it and later chunks copy from it.
   */
  #itemChunks(
    batch: Batch,
    input: readonly Uint8Array[],
    transfer: boolean,
    task: (items: Uint8Array[]) => Chunk["task"],
    take: () => Chunk["take"],
  ): Omit<Chunk, "batch">[] {
    // Input that is neither, or detached: the error the single-thread call gives (NOT_BYTES), thrown here.
    if (!Array.isArray(input)) this.#ser.validateAll(input as never);
    for (const b of input) if (!isBytes(b) || isDetached(b)) this.#ser.validate(b as never);
    let bytes = 0;
    for (const b of input) bytes += b.length + ITEM_WEIGHT;
    const runs = splitItems(input, chunkCount(bytes, MIN_CHUNK_BYTES, this.size), (b) => b.length + ITEM_WEIGHT);
    const moved = new Map<ArrayBufferLike, { buffer: ArrayBuffer; owner: number }>();
    // A buffer that an item views only part of stays with the caller, also when another item views
    // all of it: moving it would detach the part in the caller's hands, and a part read after the
    // move reads as the whole buffer (a detached array's offset and length are 0).
    const kept = new Set<ArrayBufferLike>();
    if (transfer) for (const b of input) if (b.byteOffset !== 0 || b.byteLength !== b.buffer.byteLength) kept.add(b.buffer);
    return runs.map(([s, e], index) => {
      const part = input.slice(s, e);
      let items: Uint8Array[];
      const xfer = new Set<ArrayBuffer>();
      if (transfer) {
        items = part.map((b) => {
          if (kept.has(b.buffer)) return copyOf(b, 0, b.length);
          let m = moved.get(b.buffer);
          if (m === undefined) moved.set(b.buffer, (m = { buffer: adopt(b).buffer as ArrayBuffer, owner: index }));
          if (m.owner !== index) return copyOf(new Uint8Array(m.buffer), 0, m.buffer.byteLength);
          xfer.add(m.buffer);
          return new Uint8Array(m.buffer);
        });
        for (const it of items) if (!xfer.has(it.buffer as ArrayBuffer)) xfer.add(it.buffer as ArrayBuffer);
      } else {
        let total = 0;
        for (const b of part) total += b.length;
        const packed = new Uint8Array(total);
        let at = 0;
        items = part.map((b) => {
          packed.set(b, at);
          at += b.length;
          return packed.subarray(at - b.length, at);
        });
        xfer.add(packed.buffer);
      }
      return { batch, index, task: task(items), transfer: [...xfer], take: take() };
    });
  }

  #dispatch(): void {
    for (const slot of this.#slots) {
      // A chunk that cannot be posted settles at once and leaves the worker idle: it takes the next.
      while (slot.running === undefined) {
        const chunk = this.#nextChunk();
        if (chunk === undefined) return;
        this.#post(slot, chunk);
      }
    }
  }

  /**
   * The next chunk of the batch at the head of the queue. Batches are served in rounds, one chunk
   * each per round: a batch that got a chunk waits for the next round, and a batch that arrives
   * joins the round being served, ahead of the batches already served in it. So a large batch
   * does not hold back the small ones behind it, and a stream of new batches does not starve it.
   */
  #nextChunk(): Chunk | undefined {
    while (this.#queue.length > 0) {
      const batch = this.#queue.shift()!;
      const end = Math.min(batch.limit, batch.chunks.length);
      if (batch.next >= end) continue;
      const chunk = batch.chunks[batch.next++]!;
      this.#round = batch.turn;
      if (batch.next < end) {
        batch.turn++;
        this.#enqueue(batch);
      }
      return chunk;
    }
    return undefined;
  }

  /** Queues `batch` after every batch whose turn is not later than its own. */
  #enqueue(batch: Batch): void {
    const q = this.#queue;
    let at = q.length;
    while (at > 0 && q[at - 1]!.turn > batch.turn) at--;
    q.splice(at, 0, batch);
  }

  #post(slot: Slot, chunk: Chunk): void {
    const id = ++this.#ids;
    try {
      slot.worker.postMessage({ ...chunk.task, id }, chunk.transfer);
    } catch (e) {
      // A DynamicMessage below the top level fails the clone on one of its methods, whose source
      // text the clone's message quotes: name the value instead (looked for only on failure).
      const where = chunk.task.op === "encode" ? dynamicMessageIn(chunk.task.values, chunk.first ?? 0) : undefined;
      const error =
        where !== undefined
          ? this.#notCloneable(where)
          : new PoolError("POOL_INPUT_NOT_CLONEABLE", `cannot run ${chunk.batch.what} in a pool: the input cannot be sent to a worker (${(e as Error).message}); pass plain data (objects, arrays, Map, bigint, Uint8Array)`);
      this.#settle(chunk, undefined, error);
      return;
    }
    slot.running = chunk;
    this.#byId.set(id, chunk);
    slot.worker.ref();
  }

  #notCloneable(where: string): PoolError {
    return new PoolError(
      "POOL_INPUT_NOT_CLONEABLE",
      `cannot encode ${this.type.fullName} in a pool: ${where} is a DynamicMessage, which cannot cross to a worker; pass plain init objects, or encode DynamicMessage values with serializer.encodeAll on this thread`,
    );
  }

  #settle(chunk: Chunk, result: unknown, error: Error | undefined): void {
    const batch = chunk.batch;
    batch.settled++;
    if (error !== undefined) {
      if (batch.error === undefined || chunk.index < batch.limit - 1) {
        batch.error = error;
        batch.limit = chunk.index + 1;
      }
    } else if (chunk.index < batch.limit) {
      try {
        batch.results[chunk.index] = chunk.take(result);
      } catch (e) {
        batch.error = e as Error;
        batch.limit = chunk.index + 1;
      }
    }
    if (batch.settled === batch.next && batch.next >= Math.min(batch.limit, batch.chunks.length)) this.#finish(batch);
  }

  #finish(batch: Batch): void {
    if (!this.#pending.delete(batch)) return;
    if (batch.error !== undefined) batch.reject(batch.error);
    else {
      try {
        batch.resolve(batch.combine(batch.results));
      } catch (e) {
        batch.reject(e as Error);
      }
    }
    if (this.#state === "closing" && this.#pending.size === 0) this.#end(undefined);
  }

  // --- workers ---

  #start(): Slot {
    const worker = new Worker(this.#url, { workerData: { type: this.#typeBytes }, resourceLimits: this.#limits });
    const slot: Slot = { worker, running: undefined, started: false, crash: undefined };
    worker.unref();
    worker.on("message", (m: Reply | Hello) => {
      if ("ready" in m) {
        if (m.ready) slot.started = true;
        else this.#end(fromWire(m.error));
        return;
      }
      const chunk = this.#byId.get(m.id);
      this.#byId.delete(m.id);
      if (chunk === undefined || slot.running !== chunk) return;
      slot.running = undefined;
      if (m.ok) this.#settle(chunk, m.result, undefined);
      else this.#settle(chunk, undefined, fromWire(m.error));
      if (slot.running === undefined && this.#state !== "closed") {
        this.#dispatch();
        if (slot.running === undefined) worker.unref();
      }
    });
    worker.on("error", (e) => {
      slot.crash = e;
    });
    const exited = new Promise<void>((resolve) => {
      worker.once("exit", (code) => {
        this.#exits.delete(exited);
        resolve();
        this.#exited(slot, code);
      });
    });
    this.#exits.add(exited);
    return slot;
  }

  #exited(slot: Slot, code: number): void {
    const chunk = slot.running;
    slot.running = undefined;
    if (this.#state === "closed") return;
    const why = slot.crash !== undefined ? `: ${slot.crash.message}` : "";
    if (!slot.started) {
      // A worker that cannot start would fail again: the pool stops rather than start workers forever.
      this.#end(new PoolError("POOL_WORKER_EXITED", `a worker of the pool of ${this.type.fullName} exited with code ${code} before it started${why}; the pool is closed`));
      return;
    }
    const at = this.#slots.indexOf(slot);
    if (at >= 0) this.#slots[at] = this.#start();
    if (chunk !== undefined) {
      for (const [id, c] of this.#byId) if (c === chunk) this.#byId.delete(id);
      this.#settle(
        chunk,
        undefined,
        new PoolError(
          "POOL_WORKER_EXITED",
          `a worker of the pool exited with code ${code}${why} while running ${chunk.batch.what}; the batch is rejected and the worker replaced (a worker exits on process.exit, an uncaught error, terminate() or its resourceLimits)`,
        ),
      );
    }
    this.#dispatch();
  }

  /** Ends the pool: every pending batch rejects with `error` (POOL_CLOSED when none is given), the workers are terminated. */
  #end(error: Error | undefined): void {
    if (this.#state === "closed") return;
    this.#state = "closed";
    this.#queue.length = 0;
    for (const batch of [...this.#pending]) {
      this.#pending.delete(batch);
      batch.reject(error ?? new PoolError("POOL_CLOSED", `the pool of ${this.type.fullName} closed before ${batch.what} finished`));
    }
    this.#byId.clear();
    for (const slot of this.#slots) {
      slot.running = undefined;
      void slot.worker.terminate();
    }
    this.#ended();
  }

  #whenIdleThenEnd(): Promise<void> {
    if (this.#state === "closing" && this.#pending.size === 0) this.#end(undefined);
    return this.#whenExited();
  }

  async #whenExited(): Promise<void> {
    await this.#whenEnded;
    while (this.#exits.size > 0) await Promise.all([...this.#exits]);
  }
}

interface Lazy {
  _lazyBodies(store: Uint8Array, bodies: ArrayLike<number>): DynamicMessage[];
  readonly _maxFrames: number;
}

/** Values per encode chunk below which a batch is not cut further (a round trip costs about as much as encoding a few dozen small values). */
const ENCODE_MIN_VALUES = 64;
/** What one bare message costs beyond its bytes when a batch is cut (its own call and result), in bytes of work. */
const ITEM_WEIGHT = 256;

/** Where the first DynamicMessage in `values` is (`values[i].field[2]`), depth first; `first` is values[0]'s batch index. */
function dynamicMessageIn(values: readonly unknown[], first: number): string | undefined {
  const seen = new Set<object>();
  const stack: [unknown, string][] = [];
  for (let i = values.length - 1; i >= 0; i--) stack.push([values[i], `values[${first + i}]`]);
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (v === null || typeof v !== "object" || seen.has(v) || ArrayBuffer.isView(v)) continue;
    if (isDynamicMessage(v)) return path;
    seen.add(v);
    const entries: [string, unknown][] =
      v instanceof Map ? [...v].map(([k, x]) => [`[${String(k)}]`, x]) : Array.isArray(v) ? v.map((x, i) => [`[${i}]`, x]) : Object.entries(v).map(([k, x]) => [`.${k}`, x]);
    for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], path + entries[i]![0]]);
  }
  return undefined;
}

/**
 * True when structured clone would give a worker other data than `values` are here: an object that
 * is not plain, an array, a Map or a typed array (a class instance arrives as a plain object), or
 * nesting past what maxDepth allows (a message level, a list or map under it: a cycle, which clone
 * keeps and create refuses). Init objects are trees of those kinds, so a valid batch is walked
 * once, without a set of the objects seen (a deep valid one is then also checked on this thread).
 */
function reshapedByClone(values: readonly unknown[], maxDepth: number): boolean {
  const stack: unknown[] = [];
  const depths: number[] = [];
  for (let i = values.length - 1; i >= 0; i--) {
    stack.push(values[i]);
    depths.push(0);
  }
  while (stack.length > 0) {
    const v = stack.pop();
    const d = depths.pop()!;
    if (v === null || typeof v !== "object" || ArrayBuffer.isView(v)) continue;
    if (d > 2 * maxDepth + 2) return true;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        stack.push(v[i]);
        depths.push(d + 1);
      }
    } else if (v instanceof Map) {
      for (const x of v.values()) {
        stack.push(x);
        depths.push(d + 1);
      }
    } else if (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null) {
      for (const k in v) {
        stack.push((v as Record<string, unknown>)[k]);
        depths.push(d + 1);
      }
    } else return true;
  }
  return false;
}

function checkForm(as: unknown): void {
  if (as !== "object" && as !== "message") throw new RangeError(`decode results must be "object" or "message", got ${String(as)}`);
}

/** A pool of `size` worker threads running batches of `type` (see CodecPool). */
export function createCodecPool<R extends ResultForm = "object">(options: CodecPoolOptions<R>): CodecPool<R> {
  return new CodecPool<R>(options);
}
