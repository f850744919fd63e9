// The Schema Registry REST API over fetch (Node 18+, Deno, Bun, workerd, browsers): no Node module,
// no HTTP library. Errors become SchemaRegistryError with the registry's error_code.
import { SchemaRegistryError } from "../errors.js";
import { encodeBase64 } from "../json/base64.js";
import {
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
}

const CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

function schemaBody(s: SchemaInput): string {
  const body: Record<string, unknown> = { schemaType: s.schemaType, schema: s.schema };
  if (s.references.length > 0) body.references = s.references.map((r) => ({ name: r.name, subject: r.subject, version: r.version }));
  return JSON.stringify(body);
}

function references(x: unknown): SchemaReference[] {
  if (!Array.isArray(x)) return [];
  return x.map((r: { name?: unknown; subject?: unknown; version?: unknown }) => ({ name: String(r.name), subject: String(r.subject), version: Number(r.version) }));
}

function registered(x: Record<string, unknown>, id: number): RegisteredSchema {
  // The registry leaves schemaType out for AVRO, its default.
  return { id, schema: String(x.schema ?? ""), schemaType: typeof x.schemaType === "string" ? x.schemaType : "AVRO", references: references(x.references) };
}

function subjectVersion(x: Record<string, unknown>): SubjectVersion {
  return { ...registered(x, Number(x.id)), subject: String(x.subject), version: Number(x.version) };
}

/** The REST client: `new HttpRegistryClient({ url: "http://localhost:8081" })`. */
export class HttpRegistryClient implements SchemaRegistryClient {
  readonly #base: string;
  readonly #headers: Record<string, string>;
  readonly #fetch: typeof fetch;

  constructor(options: HttpRegistryOptions) {
    if (typeof options?.url !== "string" || !/^https?:\/\//.test(options.url)) {
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
  }

  async #call(method: "GET" | "POST", path: string, body?: string): Promise<Record<string, unknown>> {
    const what = `${method} ${path}`;
    let res: Response;
    try {
      res = await this.#fetch(`${this.#base}${path}`, {
        method,
        headers: body === undefined ? this.#headers : { ...this.#headers, "content-type": CONTENT_TYPE },
        body,
      });
    } catch (e) {
      throw new SchemaRegistryError("REGISTRY_UNREACHABLE", `schema registry ${what} failed: ${(e as Error)?.message ?? String(e)}; check the registry URL and that it is reachable`, { status: 0, cause: e });
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text === "" ? {} : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const err = json as { error_code?: unknown; message?: unknown } | undefined;
      const errorCode = typeof err?.error_code === "number" ? err.error_code : undefined;
      const message = typeof err?.message === "string" ? err.message : text.slice(0, 200);
      throw registryError(what, res.status, errorCode, message);
    }
    if (json === null || typeof json !== "object") {
      throw new SchemaRegistryError(`REGISTRY_HTTP_${res.status}`, `schema registry ${what} answered ${res.status} with a body that is not a JSON object: ${text.slice(0, 200)}`, { status: res.status });
    }
    return json as Record<string, unknown>;
  }

  async register(subject: string, schema: SchemaInput): Promise<number> {
    const r = await this.#call("POST", `/subjects/${encodeURIComponent(subject)}/versions`, schemaBody(schema));
    return Number(r.id);
  }

  async lookup(subject: string, schema: SchemaInput): Promise<SubjectVersion> {
    return subjectVersion(await this.#call("POST", `/subjects/${encodeURIComponent(subject)}`, schemaBody(schema)));
  }

  async getById(id: number, format?: SchemaFormat): Promise<RegisteredSchema> {
    const r = await this.#call("GET", `/schemas/ids/${id}${format === undefined ? "" : `?format=${format}`}`);
    return registered(r, id);
  }

  async getBySubjectVersion(subject: string, version: number | "latest", format?: SchemaFormat): Promise<SubjectVersion> {
    return subjectVersion(await this.#call("GET", `/subjects/${encodeURIComponent(subject)}/versions/${version}${format === undefined ? "" : `?format=${format}`}`));
  }

  async testCompatibility(subject: string, version: number | "latest", schema: SchemaInput): Promise<CompatibilityVerdict> {
    const r = await this.#call("POST", `/compatibility/subjects/${encodeURIComponent(subject)}/versions/${version}?verbose=true`, schemaBody(schema));
    return { isCompatible: r.is_compatible === true, messages: Array.isArray(r.messages) ? r.messages.map(String) : [] };
  }
}
