// The Schema Registry REST API over fetch (Node 18+, Deno, Bun, workerd, browsers): no Node module,
// no HTTP library. Errors become SchemaRegistryError with the registry's error_code.
import { concatBytes } from "../bytes.js";
import { SchemaRegistryError } from "../errors.js";
import { quoted, shortName } from "../descriptor/names.js";
import { encodeBase64 } from "../json/base64.js";
import {
  MAX_TIMER_MS,
  registryError,
  type CompatibilityVerdict,
  type RegisteredSchema,
  type SchemaFormat,
  type SchemaInput,
  type SchemaReference,
  type SchemaRegistryClient,
  type SubjectVersion,
} from "./client.js";

export interface HttpRegistryOptions {
  /** The registry's base URL, e.g. `http://localhost:8081` (a path prefix is kept). */
  readonly url: string;
  /** HTTP basic auth (Confluent Cloud: API key and secret). */
  readonly basicAuth?: { readonly username: string; readonly password: string };
  /** Extra request headers (e.g. a bearer token). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The fetch to use. Defaults to the global fetch. */
  readonly fetch?: typeof fetch;
  /**
   * Longest wait for one request, answer body included, in milliseconds: past it the request is
   * aborted and fails with `REGISTRY_UNREACHABLE`. Defaults to 30,000.
   */
  readonly timeoutMs?: number;
  /** Largest answer body read, in bytes: a longer one fails with `REGISTRY_RESPONSE_TOO_LARGE`. Defaults to 16 MiB. */
  readonly maxResponseBytes?: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

function positiveInteger(name: string, v: unknown, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (v === undefined) return fallback;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1 || v > max) {
    const upTo = max === Number.MAX_SAFE_INTEGER ? "" : ` up to ${max}${max === MAX_TIMER_MS ? " (the longest timer delay, ~24.8 days)" : ""}`;
    throw new TypeError(`HttpRegistryClient: ${name} must be a positive integer${upTo}, got ${typeof v === "number" ? String(v) : typeof v}`);
  }
  return v;
}

const CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
/** The registry's largest version number (a Java int). */
const MAX_VERSION = 2 ** 31 - 1;

function schemaBody(s: SchemaInput): string {
  const body: Record<string, unknown> = { schemaType: s.schemaType, schema: s.schema };
  if (s.references.length > 0) body.references = s.references.map((r) => ({ name: r.name, subject: r.subject, version: r.version }));
  return JSON.stringify(body);
}

/**
 * The subject as one path segment. fetch resolves "." and ".." segments, percent-encoded ones
 * too, so register("..") posted to /versions and register(".") to /subjects/versions, the lookup
 * of a subject named "versions", whose answer was taken as the registration's id.
 */
function subjectSegment(subject: string): string {
  if (subject === "" || subject === "." || subject === "..") {
    throw new TypeError(`HttpRegistryClient: subject ${JSON.stringify(subject)} cannot be sent in a URL path (an empty, "." or ".." segment does not reach /subjects/{subject}); use another subject name`);
  }
  return encodeURIComponent(subject);
}

/** An answer whose shape is not the REST API's: what it lacks, and the request. */
function malformed(what: string, why: string): SchemaRegistryError {
  return new SchemaRegistryError("REGISTRY_RESPONSE_INVALID", `schema registry ${what} answered ${why}; check that the URL is a Confluent-compatible schema registry`, { status: 200 });
}

function references(x: unknown, what: string): SchemaReference[] {
  if (x === undefined || x === null) return [];
  if (!Array.isArray(x)) throw malformed(what, `references that are not a list`);
  return x.map((r: unknown, i) => {
    const o = r as { name?: unknown; subject?: unknown; version?: unknown } | null;
    if (o === null || typeof o !== "object" || typeof o.name !== "string" || typeof o.subject !== "string" || !Number.isSafeInteger(o.version)) {
      throw malformed(what, `reference ${i} without a string name and subject and an integer version`);
    }
    return { name: o.name, subject: o.subject, version: o.version as number };
  });
}

/** The answer's value as an error quotes it: a number, null, a short string or a type. */
function shown(x: unknown): string {
  if (x === undefined) return "none";
  if (x === null || typeof x === "number") return String(x);
  return typeof x === "string" ? quoted(x) : typeof x;
}

// Checked, not converted: Number(null) is 0, so an answer without an id wrote records that name
// schema 0, and a missing or negative one failed later as a plain RangeError of the header writer.
function schemaId(x: unknown, what: string): number {
  if (typeof x !== "number" || !Number.isInteger(x) || x < 0 || x > 0xffffffff) throw malformed(what, `an id that is not an integer in 0..4294967295 (got ${shown(x)})`);
  return x;
}

function versionOf(x: unknown, what: string): number {
  if (typeof x !== "number" || !Number.isInteger(x) || x < 1 || x > MAX_VERSION) throw malformed(what, `a version that is not an integer in 1..${MAX_VERSION} (got ${shown(x)})`);
  return x;
}

function registered(x: Record<string, unknown>, id: number, what: string): RegisteredSchema {
  // The registry leaves schemaType out for AVRO, its default.
  // A body of another shape (an array, `{}`, an empty answer) was read as an AVRO schema or as .proto text.
  if (Array.isArray(x)) throw malformed(what, "a JSON array where a schema object belongs");
  if (typeof x.schema !== "string") throw malformed(what, `a schema that is not a string (got ${shown(x.schema)})`);
  if (x.schemaType !== undefined && typeof x.schemaType !== "string") throw malformed(what, `a schemaType that is not a string (got ${shown(x.schemaType)})`);
  return { id, schema: x.schema, schemaType: typeof x.schemaType === "string" ? x.schemaType : "AVRO", references: references(x.references, what) };
}

function subjectVersion(x: Record<string, unknown>, what: string): SubjectVersion {
  const id = schemaId(x.id, what);
  const version = versionOf(x.version, what);
  return { ...registered(x, id, what), subject: String(x.subject), version };
}

/** The REST client: `new HttpRegistryClient({ url: "http://localhost:8081" })`. */
export class HttpRegistryClient implements SchemaRegistryClient {
  readonly #base: string;
  readonly #headers: Record<string, string>;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number;

  constructor(options: HttpRegistryOptions) {
    // URL schemes are case-insensitive (RFC 3986 §3.1): "HTTP://host" is an http URL.
    if (typeof options?.url !== "string" || !/^https?:\/\//i.test(options.url)) {
      throw new TypeError(`HttpRegistryClient: url must be an http(s) URL, e.g. http://localhost:8081; got ${String(options?.url)}`);
    }
    this.#base = options.url.replace(/\/+$/, "");
    this.#headers = { accept: CONTENT_TYPE, ...options.headers };
    if (options.basicAuth !== undefined) {
      const { username, password } = options.basicAuth;
      this.#headers.authorization = `Basic ${encodeBase64(new TextEncoder().encode(`${username}:${password}`))}`;
    }
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new TypeError("HttpRegistryClient: this runtime has no global fetch; pass options.fetch");
    this.#fetch = f;
    this.#timeoutMs = positiveInteger("timeoutMs", options.timeoutMs, DEFAULT_TIMEOUT_MS, MAX_TIMER_MS);
    this.#maxResponseBytes = positiveInteger("maxResponseBytes", options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES);
  }

  async #call(method: "GET" | "POST", path: string, body?: string): Promise<Record<string, unknown>> {
    const what = `${method} ${path}`;
    // A registry (or a proxy before it) that accepts a request and never answers must not hold
    // the caller forever: a deserializer caches a pending lookup per schema id, so one stalled
    // request stalled every later record of that id. The timer also bounds a fetch that ignores
    // the abort signal.
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        reject(
          new SchemaRegistryError("REGISTRY_UNREACHABLE", `schema registry ${what} did not answer within ${this.#timeoutMs} ms; check that the registry is up, or raise timeoutMs`, { status: 0 }),
        );
      }, this.#timeoutMs);
    });
    try {
      return await Promise.race([this.#exchange(what, method, path, body, abort.signal), expired]);
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  }

  async #exchange(what: string, method: string, path: string, body: string | undefined, signal: AbortSignal): Promise<Record<string, unknown>> {
    let res: Response;
    try {
      res = await this.#fetch(`${this.#base}${path}`, {
        method,
        headers: body === undefined ? this.#headers : { ...this.#headers, "content-type": CONTENT_TYPE },
        body,
        signal,
        // Not followed: fetch sends the request's headers on (basicAuth is dropped across
        // origins, but an API key in `headers` went to whatever address the answer named).
        redirect: "manual",
      });
    } catch (e) {
      throw new SchemaRegistryError("REGISTRY_UNREACHABLE", `schema registry ${what} failed: ${(e as Error)?.message ?? String(e)}; check the registry URL and that it is reachable`, { status: 0, cause: e });
    }
    if ((res.status >= 300 && res.status < 400) || res.type === "opaqueredirect") {
      const to = res.headers.get("location");
      throw new SchemaRegistryError(
        `REGISTRY_HTTP_${res.status}`,
        `schema registry ${what} answered with a redirect (${res.status}${to === null ? "" : ` to ${quoted(to.slice(0, 200))}`}), which is not followed: the request's headers, credentials among them, would go to that address; set url to the registry's own address`,
        { status: res.status },
      );
    }
    let text: string;
    try {
      text = await this.#body(what, res);
    } catch (e) {
      if (e instanceof SchemaRegistryError) throw e;
      // The connection dropped mid-answer, or its encoding did not decode (fetch's TypeError
      // "terminated"): the registry was not reached as a whole, as for a fetch that fails.
      throw new SchemaRegistryError("REGISTRY_UNREACHABLE", `schema registry ${what} failed while its answer (${res.status}) was read: ${(e as Error)?.message ?? String(e)}; check the registry URL and that it is reachable`, { status: 0, cause: e });
    }
    let json: unknown;
    try {
      json = text === "" ? {} : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const err = json as { error_code?: unknown; message?: unknown } | undefined;
      const errorCode = typeof err?.error_code === "number" ? err.error_code : undefined;
      const message = typeof err?.message === "string" ? shortName(err.message) : text.slice(0, 200);
      throw registryError(what, res.status, errorCode, message);
    }
    if (json === null || typeof json !== "object") {
      // A success whose body is no JSON object (a proxy's HTML page): not the REST API's shape.
      throw new SchemaRegistryError(
        "REGISTRY_RESPONSE_INVALID",
        `schema registry ${what} answered ${res.status} with a body that is not a JSON object: ${quoted(text.slice(0, 200))}; check that the URL is a Confluent-compatible schema registry`,
        { status: res.status },
      );
    }
    return json as Record<string, unknown>;
  }

  /**
   * The answer's text, read up to maxResponseBytes: a registry answer is a schema, and an endless
   * or huge body (a wrong URL, a hostile server) held ~4x its size in memory before it failed.
   */
  async #body(what: string, res: Response): Promise<string> {
    const max = this.#maxResponseBytes;
    const tooLarge = (): SchemaRegistryError =>
      new SchemaRegistryError(
        "REGISTRY_RESPONSE_TOO_LARGE",
        `schema registry ${what} answered with a body of more than ${max} bytes (maxResponseBytes); check the registry URL, or raise maxResponseBytes`,
        { status: res.status },
      );
    const stream = res.body;
    const headers = res.headers as Headers | undefined;
    if (typeof headers?.get === "function" && Number(headers.get("content-length")) > max) {
      await stream?.cancel().catch(() => {});
      throw tooLarge();
    }
    if (stream === null || stream === undefined || typeof stream.getReader !== "function") {
      // A fetch without streams (some polyfills): its text, checked once read.
      const text = await res.text();
      if (text.length > max) throw tooLarge();
      return text;
    }
    const reader = stream.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > max) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
    return new TextDecoder().decode(concatBytes(chunks));
  }

  async register(subject: string, schema: SchemaInput): Promise<number> {
    const path = `/subjects/${subjectSegment(subject)}/versions`;
    return schemaId((await this.#call("POST", path, schemaBody(schema))).id, `POST ${path}`);
  }

  async lookup(subject: string, schema: SchemaInput): Promise<SubjectVersion> {
    const path = `/subjects/${subjectSegment(subject)}`;
    return subjectVersion(await this.#call("POST", path, schemaBody(schema)), `POST ${path}`);
  }

  async getById(id: number, format?: SchemaFormat): Promise<RegisteredSchema> {
    const path = `/schemas/ids/${id}${format === undefined ? "" : `?format=${format}`}`;
    return registered(await this.#call("GET", path), id, `GET ${path}`);
  }

  async getBySubjectVersion(subject: string, version: number | "latest", format?: SchemaFormat): Promise<SubjectVersion> {
    const path = `/subjects/${subjectSegment(subject)}/versions/${version}${format === undefined ? "" : `?format=${format}`}`;
    return subjectVersion(await this.#call("GET", path), `GET ${path}`);
  }

  async testCompatibility(subject: string, version: number | "latest", schema: SchemaInput): Promise<CompatibilityVerdict> {
    const path = `/compatibility/subjects/${subjectSegment(subject)}/versions/${version}?verbose=true`;
    const r = await this.#call("POST", path, schemaBody(schema));
    // An answer without a boolean is_compatible is no verdict: read as "incompatible", an empty
    // body or a proxy's [] refused every schema silently.
    if (Array.isArray(r) || typeof r.is_compatible !== "boolean") {
      throw malformed(`POST ${path}`, Array.isArray(r) ? "a JSON array where a verdict object belongs" : `an is_compatible that is not a boolean (got ${shown(r.is_compatible)})`);
    }
    return { isCompatible: r.is_compatible, messages: Array.isArray(r.messages) ? r.messages.map(String) : [] };
  }
}
