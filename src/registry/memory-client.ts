// An in-memory Schema Registry for tests and examples: ids, subjects and versions as the REST API
// gives them (an identical schema keeps its id across subjects; registering it again under a
// subject adds no version), and the same errors (SchemaRegistryError with the registry's
// error_code and message). Schemas are kept as registered: `format` is ignored, so .proto text
// comes back as text (reading it needs a compiler, see resolve.ts).
import {
  registryError,
  type CompatibilityVerdict,
  type RegisteredSchema,
  type SchemaFormat,
  type SchemaInput,
  type SchemaRegistryClient,
  type SubjectVersion,
} from "./client.js";

export interface MemoryRegistryOptions {
  /**
   * The subject's compatibility check, run by `register` (409 when it fails) and
   * `testCompatibility` against the subject's latest version. Defaults to none: every schema is
   * compatible (the registry's level NONE).
   */
  readonly compatibility?: (candidate: SchemaInput, previous: SubjectVersion) => CompatibilityVerdict | Promise<CompatibilityVerdict>;
}

function keyOf(s: SchemaInput | RegisteredSchema): string {
  return JSON.stringify([s.schemaType, s.schema, s.references.map((r) => [r.name, r.subject, r.version])]);
}

const MAX_VERSION = 2 ** 31 - 1;

export class MemoryRegistryClient implements SchemaRegistryClient {
  readonly #byId = new Map<number, RegisteredSchema>();
  readonly #idByKey = new Map<string, number>();
  readonly #subjects = new Map<string, number[]>();
  readonly #compatibility: MemoryRegistryOptions["compatibility"];

  constructor(options: MemoryRegistryOptions = {}) {
    this.#compatibility = options.compatibility;
  }

  /** Every subject, sorted (GET /subjects). */
  subjects(): string[] {
    return [...this.#subjects.keys()].sort();
  }

  #versions(what: string, subject: string): number[] {
    const versions = this.#subjects.get(subject);
    if (versions === undefined) throw registryError(what, 404, 40401, `Subject '${subject}' not found.`);
    return versions;
  }

  #version(what: string, subject: string, version: number | "latest"): SubjectVersion {
    if (version !== "latest" && (!Number.isInteger(version) || version < 1 || version > MAX_VERSION)) {
      throw registryError(what, 422, 42202, `The specified version '${version}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`);
    }
    const versions = this.#versions(what, subject);
    const v = version === "latest" ? versions.length : version;
    const id = versions[v - 1];
    if (id === undefined) throw registryError(what, 404, 40402, `Version ${version} not found.`);
    return { ...this.#byId.get(id)!, subject, version: v };
  }

  #check(what: string, schema: SchemaInput): void {
    if (schema.schemaType !== "PROTOBUF") throw registryError(what, 422, 42201, `Invalid schema: schemaType ${String(schema.schemaType)} is not served by this registry`);
    for (const r of schema.references) {
      const versions = this.#subjects.get(r.subject);
      if (versions === undefined || versions[r.version - 1] === undefined) {
        throw registryError(what, 422, 42201, `Invalid schema: reference ${r.name} to subject ${r.subject} version ${r.version} not found`);
      }
    }
  }

  async register(subject: string, schema: SchemaInput): Promise<number> {
    const what = `POST /subjects/${subject}/versions`;
    this.#check(what, schema);
    const key = keyOf(schema);
    const versions = this.#subjects.get(subject) ?? [];
    const known = this.#idByKey.get(key);
    if (known !== undefined && versions.includes(known)) return known;
    if (versions.length > 0 && this.#compatibility !== undefined) {
      const verdict = await this.#compatibility(schema, this.#version(what, subject, "latest"));
      if (!verdict.isCompatible) {
        throw registryError(what, 409, 409, `Schema being registered is incompatible with an earlier schema for subject "${subject}", details: [${verdict.messages.join(", ")}]`);
      }
    }
    const id = known ?? this.#byId.size + 1;
    if (known === undefined) {
      this.#byId.set(id, { id, schema: schema.schema, schemaType: schema.schemaType, references: [...schema.references] });
      this.#idByKey.set(key, id);
    }
    versions.push(id);
    this.#subjects.set(subject, versions);
    return id;
  }

  async lookup(subject: string, schema: SchemaInput): Promise<SubjectVersion> {
    const what = `POST /subjects/${subject}`;
    const versions = this.#versions(what, subject);
    const id = this.#idByKey.get(keyOf(schema));
    const at = id === undefined ? -1 : versions.indexOf(id);
    if (at < 0) throw registryError(what, 404, 40403, "Schema not found");
    return { ...this.#byId.get(id!)!, subject, version: at + 1 };
  }

  async getById(id: number, _format?: SchemaFormat): Promise<RegisteredSchema> {
    const s = this.#byId.get(id);
    if (s === undefined) throw registryError(`GET /schemas/ids/${id}`, 404, 40403, `Schema ${id} not found`);
    return s;
  }

  async getBySubjectVersion(subject: string, version: number | "latest", _format?: SchemaFormat): Promise<SubjectVersion> {
    return this.#version(`GET /subjects/${subject}/versions/${version}`, subject, version);
  }

  async testCompatibility(subject: string, version: number | "latest", schema: SchemaInput): Promise<CompatibilityVerdict> {
    const what = `POST /compatibility/subjects/${subject}/versions/${version}`;
    const previous = this.#version(what, subject, version);
    this.#check(what, schema);
    return this.#compatibility === undefined ? { isCompatible: true, messages: [] } : this.#compatibility(schema, previous);
  }
}
