// `protokeel decode` (binary → ProtoJSON lines) and `protokeel encode` (ProtoJSON lines →
// binary). Both stream: frames are decoded as chunks arrive and lines are written as stdout takes
// them, so memory stays at one frame or line however large the file is.
import { createReadStream } from "node:fs";
import { CodecError, type JsonReadOptions, type JsonWriteOptions, type ProtobufSerializer } from "../index.js";
import { concatBytes } from "../bytes.js";
import { InputError, loadSchema, openInput, unreadable, type LoadedSchema } from "./inputs.js";
import { Batch, type Output } from "./output.js";

export interface DataOptions {
  readonly schema: string | undefined;
  readonly message: string | undefined;
  readonly framed: boolean;
  readonly protoPath: string | undefined;
  readonly emitDefaults: boolean;
  readonly enumAsInteger: boolean;
  readonly protoNames: boolean;
  readonly discardUnknown: boolean;
  readonly ignoreUnknown: boolean;
}

/** Inputs larger than this show a progress line on a terminal's stderr. */
export const PROGRESS_MIN_BYTES = 8 * 1024 * 1024;
const PROGRESS_EVERY_MS = 200;

/** A "\r"-rewritten status line on stderr for large files; silent otherwise. */
class Progress {
  private last = 0;
  private shown = false;

  constructor(
    private readonly out: Output,
    private readonly label: string,
    private readonly total: number | undefined,
    private readonly unit: string,
  ) {}

  get active(): boolean {
    return this.total !== undefined && this.total > PROGRESS_MIN_BYTES && this.out.stderrIsTTY;
  }

  update(bytes: number, count: number, force = false): void {
    if (!this.active) return;
    const now = Date.now();
    if (!force && now - this.last < PROGRESS_EVERY_MS) return;
    this.last = now;
    const mb = (n: number) => (n / 1048576).toFixed(1);
    const pct = Math.floor((bytes / this.total!) * 100);
    this.out.stderr(`\r${this.label}: ${mb(bytes)} of ${mb(this.total!)} MB (${pct}%), ${count} ${this.unit}`);
    this.shown = true;
  }

  end(): void {
    if (this.shown) this.out.stderr("\n");
  }
}

interface Input {
  readonly source: AsyncIterable<Uint8Array>;
  readonly size: number | undefined;
  readonly name: string;
  /** Bytes read so far. */
  read(): number;
}

function open(path: string | undefined): Input {
  let bytes = 0;
  const file = path === undefined || path === "-" ? undefined : path;
  let stream: NodeJS.ReadableStream = process.stdin;
  let size: number | undefined;
  if (file !== undefined) {
    const opened = openInput(file);
    size = opened.size;
    stream = createReadStream(file, { fd: opened.fd });
  }
  // Counting in a generator keeps the stream paused between reads (a 'data' listener would not).
  async function* counted(): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of stream as AsyncIterable<Uint8Array>) {
        bytes += chunk.length;
        yield chunk;
      }
    } catch (e) {
      // A read that fails after the open (EIO, a file truncated under us): the input's fault.
      throw unreadable(file ?? "stdin", e);
    }
  }
  return { source: counted(), size, name: path === undefined || path === "-" ? "stdin" : path, read: () => bytes };
}

function load(o: DataOptions): LoadedSchema {
  if (o.schema === undefined) throw new InputError("--schema is required: a FileDescriptorSet, a snapshot, a type file or .proto files");
  return loadSchema(o.schema, o.message, o.protoPath);
}

/** Reads a whole input of at most `limit` bytes. */
async function readAll(input: Input, limit: number, what: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let n = 0;
  for await (const c of input.source) {
    n += c.length;
    if (n > limit) throw new DataError(`${input.name} has more than ${limit} bytes, above maxMessageBytes; ${what}`);
    chunks.push(c);
  }
  return concatBytes(chunks);
}

/** Bad data (exit code 1), as opposed to bad usage or unreadable inputs (InputError, 2). */
export class DataError extends Error {}

/** A CodecError's message with its API hints said in command-line terms. */
function cliMessage(e: CodecError): string {
  return e.message
    .replace(/pass ignoreUnknownFields: true to serializer\.\w+\(json, \{ … \}\)/g, "pass --ignore-unknown")
    .replace(/pass discardUnknownFields: true to serializer\.\w+\(value, \{ … \}\)/g, "pass --discard-unknown")
    .replace(/pass a registry that holds (\S+) in the options of serializer\.\w+\((json|value), \{ … \}\)/g, "pass a --schema that declares $1");
}

function cliCodec<T>(run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof CodecError) throw new DataError(cliMessage(e));
    throw e;
  }
}

function writeOptions(o: DataOptions, loaded: LoadedSchema): JsonWriteOptions {
  return {
    emitDefaultValues: o.emitDefaults,
    enumAsInteger: o.enumAsInteger,
    useProtoFieldName: o.protoNames,
    discardUnknownFields: o.discardUnknown,
    registry: loaded.registry,
  };
}

/** Frames (or one bare message) of `path` as ProtoJSON, one line per value. */
export async function decode(path: string | undefined, o: DataOptions, out: Output): Promise<number> {
  const loaded = load(o);
  const ser = loaded.type.createSerializer();
  const options = writeOptions(o, loaded);
  const input = open(path);
  if (!o.framed) {
    const bytes = await readAll(input, ser.type.settings.maxMessageBytes, "pass --framed for a stream of frames");
    await out.stdout(`${cliCodec(() => ser.toJsonString(ser.fromBinary(bytes), options))}\n`);
    return 0;
  }
  return pump(ser.decodeStream(input.source), (value) => `${ser.toJsonString(value, options)}\n`, (_v, count) => `frame ${count + 1}`, input, out, "decoding", "frames");
}

/**
 * Writes `convert(item)` of each item (undefined: nothing), batched, with a progress line; what
 * was written before an error stays written, and the error names `where` the item was.
 */
async function pump<T>(
  items: AsyncIterable<T>,
  convert: (item: T) => string | Uint8Array | undefined,
  where: (item: T, count: number) => string,
  input: Input,
  out: Output,
  verb: string,
  unit: string,
): Promise<number> {
  const progress = new Progress(out, `${verb} ${input.name}`, input.size, unit);
  const batch = new Batch(out);
  let count = 0;
  try {
    for await (const item of items) {
      let data: string | Uint8Array | undefined;
      try {
        data = convert(item);
      } catch (e) {
        if (e instanceof CodecError) throw new DataError(`${where(item, count)}: ${cliMessage(e)}`);
        throw e;
      }
      if (data === undefined) continue;
      await batch.push(data);
      count++;
      progress.update(input.read(), count);
    }
  } finally {
    await batch.flush();
    progress.update(input.read(), count, true);
    progress.end();
  }
  return 0;
}

/** The longest string V8 makes (2^29 - 24 characters on 64-bit hosts). */
const MAX_STRING = 2 ** 29 - 24;

/** Lines of UTF-8 text, each at most `max` characters (`what` says it); the line number comes with each. */
async function* lines(source: AsyncIterable<Uint8Array>, max: number, name: string, what: string): AsyncGenerator<[string, number]> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let parts: string[] = [];
  let length = 0;
  let number = 1;
  const text = (c: Uint8Array | undefined): string => {
    try {
      return c === undefined ? decoder.decode() : decoder.decode(c, { stream: true });
    } catch {
      throw new DataError(`line ${number} of ${name} is not valid UTF-8`);
    }
  };
  const take = (s: string): void => {
    length += s.length;
    if (length > max) throw new DataError(`line ${number} of ${name} is longer than ${what}; write one message per line`);
    parts.push(s);
  };
  for await (const chunk of source) {
    const s = text(chunk);
    let from = 0;
    for (let nl = s.indexOf("\n"); nl >= 0; nl = s.indexOf("\n", from)) {
      take(s.slice(from, nl));
      yield [parts.join(""), number];
      parts = [];
      length = 0;
      number++;
      from = nl + 1;
    }
    if (from < s.length) take(s.slice(from));
  }
  const rest = text(undefined);
  if (rest !== "") take(rest);
  if (parts.length > 0) yield [parts.join(""), number];
}

/** ProtoJSON lines (or one JSON document) of `path` as frames (or one bare message) on stdout. */
export async function encode(path: string | undefined, o: DataOptions, out: Output): Promise<number> {
  if (out.stdoutIsTTY) throw new InputError("refusing to write binary to a terminal; redirect stdout to a file or a pipe");
  const loaded = load(o);
  const ser: ProtobufSerializer = loaded.type.createSerializer();
  const options: JsonReadOptions = { ignoreUnknownFields: o.ignoreUnknown, registry: loaded.registry };
  const input = open(path);
  // 8 characters a byte at most, and no more than one string holds (V8: 2^29 - 24 characters; a
  // longer line or document threw RangeError: Invalid string length at the join).
  const limit = Math.min(8 * ser.type.settings.maxMessageBytes, MAX_STRING);
  const what = limit === MAX_STRING ? `${limit} characters (the longest string)` : `${limit} characters (8 × maxMessageBytes)`;
  if (!o.framed) {
    const parts: string[] = [];
    // Counted as the lines come: all of them were kept, then measured (an endless input grew
    // without bound, a long one ran out of heap).
    let total = -1;
    for await (const [line] of lines(input.source, limit, input.name, what)) {
      total += line.length + 1;
      if (total > limit) throw new DataError(`${input.name} is longer than ${what}`);
      parts.push(line);
    }
    const text = parts.join("\n");
    await out.stdout(cliCodec(() => ser.toBinary(ser.fromJsonString(text, options))));
    return 0;
  }
  return pump(
    lines(input.source, limit, input.name, what),
    ([line]) => (line.trim() === "" ? undefined : ser.encode(ser.fromJsonString(line, options))),
    ([, number]) => `line ${number}`,
    input,
    out,
    "encoding",
    "messages",
  );
}
