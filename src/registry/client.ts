// What protokeel/registry needs from a Schema Registry: the REST API's register, lookup, get by id,
// get by subject and version, and the compatibility check. Two implementations: the HTTP client
// (http-client.ts, over fetch) and an in-memory registry for tests (memory-client.ts).
import { SchemaRegistryError } from "../errors.js";

/** An import of a schema, resolved by the registry to another subject's version. */
export interface SchemaReference {
  /** The import path as the schema's text writes it, e.g. `acme.Item.proto`. */
  readonly name: string;
  readonly subject: string;
  readonly version: number;
}

/** A schema as the registry takes it: `.proto` text (or, from some clients, a base64 FileDescriptorProto). */
export interface SchemaInput {
  readonly schema: string;
  /** Always "PROTOBUF" here (the registry's default, "AVRO", is not read). */
  readonly schemaType: "PROTOBUF";
  readonly references: readonly SchemaReference[];
}

/** A registered schema, as GET /schemas/ids/{id} returns it. */
export interface RegisteredSchema {
  readonly id: number;
  readonly schema: string;
  readonly schemaType: string;
  readonly references: readonly SchemaReference[];
}

/** A version of a subject, as GET /subjects/{subject}/versions/{version} and POST /subjects/{subject} return it. */
export interface SubjectVersion extends RegisteredSchema {
  readonly subject: string;
  readonly version: number;
}

/** The registry's verdict of POST /compatibility/subjects/{subject}/versions/{version}. */
export interface CompatibilityVerdict {
  readonly isCompatible: boolean;
  /** The registry's reasons when incompatible (asked for with `verbose=true`). */
  readonly messages: readonly string[];
}

/**
 * Schema text format asked of the registry: "serialized" returns Protobuf schemas as base64
 * FileDescriptorProtos, which protokeel reads without a compiler (any runtime); the default is
 * the text the schema was registered with.
 */
export type SchemaFormat = "serialized" | undefined;

/**
 * A Schema Registry. Methods reject with `SchemaRegistryError` for the registry's errors
 * (`errorCode` 40401 subject not found, 40402 version not found, 40403 schema not found, 409
 * incompatible, 42201 invalid schema, 50001 backend store error, …).
 */
export interface SchemaRegistryClient {
  /** POST /subjects/{subject}/versions: registers (or finds) the schema under the subject; its id. */
  register(subject: string, schema: SchemaInput): Promise<number>;
  /** POST /subjects/{subject}: the version of the subject that holds exactly this schema (40403 when none). */
  lookup(subject: string, schema: SchemaInput): Promise<SubjectVersion>;
  /** GET /schemas/ids/{id}. */
  getById(id: number, format?: SchemaFormat): Promise<RegisteredSchema>;
  /** GET /subjects/{subject}/versions/{version} (a number or "latest"). */
  getBySubjectVersion(subject: string, version: number | "latest", format?: SchemaFormat): Promise<SubjectVersion>;
  /** POST /compatibility/subjects/{subject}/versions/{version}: whether the subject's compatibility level admits the schema. */
  testCompatibility(subject: string, version: number | "latest", schema: SchemaInput): Promise<CompatibilityVerdict>;
}

/** The error for a registry's error answer, the same from both clients: `what` is the request, e.g. `GET /schemas/ids/7`. */
export function registryError(what: string, status: number, errorCode: number | undefined, message: string): SchemaRegistryError {
  return new SchemaRegistryError(
    errorCode === undefined ? `REGISTRY_HTTP_${status}` : `REGISTRY_${errorCode}`,
    `schema registry ${what} failed: ${status}${errorCode === undefined ? "" : ` error_code ${errorCode}`}: ${message}`,
    { status, errorCode },
  );
}

/** setTimeout's longest delay: a longer one fires after 1 ms (a timeout above it failed every request at once). */
export const MAX_TIMER_MS = 2 ** 31 - 1;
