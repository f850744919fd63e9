// An in-process Schema Registry over node:http for the REST client's tests: the endpoints
// protokeel/registry uses, with the status codes, error_code values and messages the Confluent
// Schema Registry answers with (io.confluent.kafka.schemaregistry.rest.exceptions). It keeps
// schemas as registered; with `serialize` (a .proto compiler) it answers format=serialized with
// base64 FileDescriptorProtos, as the real registry does, and refuses text that does not compile
// (42201). No Kafka, no JVM: a test double of the REST surface only.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeReference {
  name: string;
  subject: string;
  version: number;
}

interface Stored {
  id: number;
  schema: string;
  schemaType: string;
  references: FakeReference[];
}

export interface FakeRegistryOptions {
  /** Base64 FileDescriptorProto of a schema (with its references' texts), or throws when it does not compile. */
  serialize?: (schema: string, references: Map<string, string>) => Promise<string>;
  /** Compatibility of a candidate with a previous version: reasons when incompatible, [] when compatible. */
  compatibility?: (candidate: string, previous: string) => string[];
}

export interface FakeRegistry {
  readonly url: string;
  /** Every request as "METHOD /path?query". */
  readonly requests: string[];
  /** The next request is answered with this error instead. */
  failNext(status: number, errorCode: number, message: string): void;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }
}

const subjectNotFound = (s: string) => new HttpError(404, 40401, `Subject '${s}' not found.`);
const versionNotFound = (v: string) => new HttpError(404, 40402, `Version ${v} not found.`);

export async function startFakeRegistry(options: FakeRegistryOptions = {}): Promise<FakeRegistry> {
  const byId = new Map<number, Stored>();
  const subjects = new Map<string, number[]>();
  const requests: string[] = [];
  let failure: HttpError | undefined;

  const keyOf = (s: { schema: string; schemaType: string; references: FakeReference[] }) =>
    JSON.stringify([s.schemaType, s.schema, s.references.map((r) => [r.name, r.subject, r.version])]);

  const version = (subject: string, v: string): { stored: Stored; version: number } => {
    const versions = subjects.get(subject);
    if (versions === undefined) throw subjectNotFound(subject);
    let n: number;
    if (v === "latest" || v === "-1") n = versions.length;
    else {
      n = Number(v);
      if (!/^\d+$/.test(v) || n < 1 || n > 2 ** 31 - 1) {
        throw new HttpError(422, 42202, `The specified version '${v}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`);
      }
    }
    const id = versions[n - 1];
    if (id === undefined) throw versionNotFound(v);
    return { stored: byId.get(id)!, version: n };
  };

  /** The texts of a schema's references, transitively, by import name. */
  const referenceTexts = (refs: FakeReference[]): Map<string, string> => {
    const out = new Map<string, string>();
    const queue = [...refs];
    while (queue.length > 0) {
      const r = queue.shift()!;
      if (out.has(r.name)) continue;
      let found;
      try {
        found = version(r.subject, String(r.version));
      } catch {
        throw new HttpError(422, 42201, `Invalid schema {schemaType=PROTOBUF}, details: Reference ${r.name} (subject ${r.subject}, version ${r.version}) not found`);
      }
      out.set(r.name, found.stored.schema);
      queue.push(...found.stored.references);
    }
    return out;
  };

  const parseBody = (text: string): { schema: string; schemaType: string; references: FakeReference[] } => {
    let body: { schema?: unknown; schemaType?: unknown; references?: unknown };
    try {
      body = JSON.parse(text);
    } catch {
      throw new HttpError(400, 400, "Unexpected character: the request body is not JSON");
    }
    if (typeof body.schema !== "string") throw new HttpError(422, 42201, "Invalid schema: schema is missing");
    const schemaType = typeof body.schemaType === "string" ? body.schemaType : "AVRO";
    if (schemaType !== "PROTOBUF") throw new HttpError(422, 42201, `Invalid schema {schemaType=${schemaType}}: this fake serves PROTOBUF only`);
    return { schema: body.schema, schemaType, references: Array.isArray(body.references) ? (body.references as FakeReference[]) : [] };
  };

  const validate = async (s: { schema: string; references: FakeReference[] }): Promise<void> => {
    const refs = referenceTexts(s.references);
    if (options.serialize === undefined) return;
    try {
      await options.serialize(s.schema, refs);
    } catch (e) {
      throw new HttpError(422, 42201, `Invalid schema {schemaType=PROTOBUF}, details: ${(e as Error).message.split("\n")[0]}`);
    }
  };

  const render = async (stored: Stored, format: string | null): Promise<string> => {
    if (format !== "serialized" || options.serialize === undefined) return stored.schema;
    return options.serialize(stored.schema, referenceTexts(stored.references));
  };

  const view = async (stored: Stored, format: string | null) => {
    const out: Record<string, unknown> = { schemaType: stored.schemaType, schema: await render(stored, format) };
    if (stored.references.length > 0) out.references = stored.references;
    return out;
  };

  async function handle(method: string, url: URL, body: string): Promise<unknown> {
    const parts = url.pathname.split("/").slice(1).map(decodeURIComponent);
    const format = url.searchParams.get("format");
    // GET /schemas/ids/{id}
    if (method === "GET" && parts[0] === "schemas" && parts[1] === "ids" && parts.length === 3) {
      const stored = byId.get(Number(parts[2]));
      if (stored === undefined) throw new HttpError(404, 40403, `Schema ${parts[2]} not found`);
      return view(stored, format);
    }
    // POST /subjects/{subject}/versions
    if (method === "POST" && parts[0] === "subjects" && parts[2] === "versions" && parts.length === 3) {
      const subject = parts[1]!;
      const s = parseBody(body);
      await validate(s);
      const key = keyOf(s);
      let id = [...byId.values()].find((x) => keyOf(x) === key)?.id;
      const versions = subjects.get(subject) ?? [];
      if (id !== undefined && versions.includes(id)) return { id };
      if (versions.length > 0 && options.compatibility !== undefined) {
        const reasons = options.compatibility(s.schema, byId.get(versions[versions.length - 1]!)!.schema);
        if (reasons.length > 0) throw new HttpError(409, 409, `Schema being registered is incompatible with an earlier schema for subject "${subject}", details: [${reasons.join(", ")}]`);
      }
      if (id === undefined) {
        id = byId.size + 1;
        byId.set(id, { id, ...s });
      }
      versions.push(id);
      subjects.set(subject, versions);
      return { id };
    }
    // POST /subjects/{subject}: lookup
    if (method === "POST" && parts[0] === "subjects" && parts.length === 2) {
      const subject = parts[1]!;
      const versions = subjects.get(subject);
      if (versions === undefined) throw subjectNotFound(subject);
      const s = parseBody(body);
      const at = versions.findIndex((id) => keyOf(byId.get(id)!) === keyOf(s));
      if (at < 0) throw new HttpError(404, 40403, "Schema not found");
      const stored = byId.get(versions[at]!)!;
      return { subject, id: stored.id, version: at + 1, ...(await view(stored, format)) };
    }
    // GET /subjects/{subject}/versions/{version}
    if (method === "GET" && parts[0] === "subjects" && parts[2] === "versions" && parts.length === 4) {
      const { stored, version: v } = version(parts[1]!, parts[3]!);
      return { subject: parts[1], version: v, id: stored.id, ...(await view(stored, format)) };
    }
    // POST /compatibility/subjects/{subject}/versions/{version}
    if (method === "POST" && parts[0] === "compatibility" && parts[1] === "subjects" && parts[3] === "versions" && parts.length === 5) {
      const { stored } = version(parts[2]!, parts[4]!);
      const s = parseBody(body);
      await validate(s);
      const reasons = options.compatibility?.(s.schema, stored.schema) ?? [];
      const out: Record<string, unknown> = { is_compatible: reasons.length === 0 };
      if (url.searchParams.get("verbose") === "true") out.messages = reasons;
      return out;
    }
    throw new HttpError(404, 404, "HTTP 404 Not Found");
  }

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://registry");
      requests.push(`${req.method} ${url.pathname}${url.search}`);
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/vnd.schemaregistry.v1+json" });
        res.end(JSON.stringify(body));
      };
      const fail = failure;
      failure = undefined;
      if (fail !== undefined) return send(fail.status, { error_code: fail.errorCode, message: fail.message });
      handle(req.method ?? "GET", url, Buffer.concat(chunks).toString("utf8")).then(
        (body) => send(200, body),
        (e: unknown) => {
          if (e instanceof HttpError) send(e.status, { error_code: e.errorCode, message: e.message });
          else send(500, { error_code: 50001, message: `Error in the backend data store: ${(e as Error).message}` });
        },
      );
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext(status, errorCode, message) {
      failure = new HttpError(status, errorCode, message);
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
