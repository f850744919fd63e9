// HttpRegistryClient (protokeel/registry) against an in-process Schema Registry over node:http
// (test/support/fake-registry.ts): the requests it makes, the answers it reads, and every
// registry error as a SchemaRegistryError with the registry's status, error_code and message.
// End to end: the serializer registers through it and the deserializer reads format=serialized
// schemas without a compiler, as against a real registry.
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";
import { HttpRegistryClient, RegistryDeserializer, RegistrySerializer, type SchemaInput } from "../src/registry/index.js";
import { compileProtoText } from "./support/buf.js";
import { startFakeRegistry, type FakeRegistry } from "./support/fake-registry.js";

const ITEM = 'syntax = "proto3";\npackage acme;\n\nmessage Item {\n  string sku = 1;\n}\n';
const ORDER = 'syntax = "proto3";\npackage acme;\nimport "acme.Item.proto";\n\nmessage Order {\n  int64 id = 1;\n  repeated .acme.Item items = 2;\n}\n';
const input = (schema: string, references: SchemaInput["references"] = []): SchemaInput => ({ schema, schemaType: "PROTOBUF", references });

/** What the real registry does for format=serialized: the schema's own FileDescriptorProto, base64. */
async function serialize(schema: string, references: Map<string, string>): Promise<string> {
  const files: Record<string, string> = { "__main__.proto": schema };
  for (const [name, text] of references) files[name] = text;
  const set = fromBinary(FileDescriptorSetSchema, compileProtoText(files));
  const main = set.file.find((f) => f.name === "__main__.proto")!;
  return Buffer.from(toBinary(FileDescriptorProtoSchema, main)).toString("base64");
}

let registry: FakeRegistry;
let client: HttpRegistryClient;

beforeAll(async () => {
  registry = await startFakeRegistry({ serialize, compatibility: (candidate, previous) => (candidate.includes("uint32 id") && previous.includes("int64 id") ? ["TYPE_CHANGED: id"] : []) });
  client = new HttpRegistryClient({ url: `${registry.url}/` });
});
afterAll(() => registry.close());

async function errorOf(p: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await p;
  } catch (e) {
    return e as Record<string, unknown>;
  }
  throw new Error("expected a rejection");
}

describe("endpoints", () => {
  test("register, lookup, get by id, get by subject and version, compatibility", async () => {
    const itemId = await client.register("acme.Item.proto", input(ITEM));
    const ref = { name: "acme.Item.proto", subject: "acme.Item.proto", version: 1 };
    const orderId = await client.register("orders/v1-value", input(ORDER, [ref]));
    expect([itemId, orderId]).toEqual([1, 2]);
    expect(await client.register("orders/v1-value", input(ORDER, [ref]))).toBe(2);
    expect(await client.lookup("orders/v1-value", input(ORDER, [ref]))).toEqual({ id: 2, subject: "orders/v1-value", version: 1, schema: ORDER, schemaType: "PROTOBUF", references: [ref] });
    expect(await client.getById(2)).toEqual({ id: 2, schema: ORDER, schemaType: "PROTOBUF", references: [ref] });
    const serialized = await client.getById(2, "serialized");
    expect(fromBinary(FileDescriptorProtoSchema, Buffer.from(serialized.schema, "base64")).messageType[0]!.name).toBe("Order");
    expect(await client.getBySubjectVersion("orders/v1-value", "latest")).toMatchObject({ id: 2, version: 1, subject: "orders/v1-value" });
    expect(await client.getBySubjectVersion("acme.Item.proto", 1)).toMatchObject({ id: 1, schema: ITEM, references: [] });
    expect(await client.testCompatibility("orders/v1-value", "latest", input(ORDER.replace("int64 id", "int64 key"), [ref]))).toEqual({ isCompatible: true, messages: [] });
    expect(await client.testCompatibility("orders/v1-value", 1, input(ORDER.replace("int64 id", "uint32 id"), [ref]))).toEqual({ isCompatible: false, messages: ["TYPE_CHANGED: id"] });
    expect(registry.requests.slice(0, 4)).toEqual([
      "POST /subjects/acme.Item.proto/versions",
      "POST /subjects/orders%2Fv1-value/versions",
      "POST /subjects/orders%2Fv1-value/versions",
      "POST /subjects/orders%2Fv1-value",
    ]);
    expect(registry.requests).toContain("GET /schemas/ids/2?format=serialized");
    expect(registry.requests).toContain("POST /compatibility/subjects/orders%2Fv1-value/versions/1?verbose=true");
  });

  test.each([
    ["unknown schema id", () => client.getById(404), "REGISTRY_40403", 404, 40403, "schema registry GET /schemas/ids/404 failed: 404 error_code 40403: Schema 404 not found"],
    ["unknown subject", () => client.getBySubjectVersion("nope", 1), "REGISTRY_40401", 404, 40401, "schema registry GET /subjects/nope/versions/1 failed: 404 error_code 40401: Subject 'nope' not found."],
    ["unknown version", () => client.getBySubjectVersion("acme.Item.proto", 9), "REGISTRY_40402", 404, 40402, "schema registry GET /subjects/acme.Item.proto/versions/9 failed: 404 error_code 40402: Version 9 not found."],
    ["invalid version", () => client.getBySubjectVersion("acme.Item.proto", 0), "REGISTRY_42202", 422, 42202, `schema registry GET /subjects/acme.Item.proto/versions/0 failed: 422 error_code 42202: The specified version '0' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`],
    ["schema not under the subject", () => client.lookup("acme.Item.proto", input(ITEM.replace("sku", "code"))), "REGISTRY_40403", 404, 40403, "schema registry POST /subjects/acme.Item.proto failed: 404 error_code 40403: Schema not found"],
    ["an incompatible schema", () => client.register("orders/v1-value", input(ORDER.replace("int64 id", "uint32 id"), [{ name: "acme.Item.proto", subject: "acme.Item.proto", version: 1 }])), "REGISTRY_409", 409, 409, 'schema registry POST /subjects/orders%2Fv1-value/versions failed: 409 error_code 409: Schema being registered is incompatible with an earlier schema for subject "orders/v1-value", details: [TYPE_CHANGED: id]'],
    ["a reference that does not exist", () => client.register("x-value", input(ORDER, [{ name: "acme.Item.proto", subject: "acme.Item.proto", version: 5 }])), "REGISTRY_42201", 422, 42201, "schema registry POST /subjects/x-value/versions failed: 422 error_code 42201: Invalid schema {schemaType=PROTOBUF}, details: Reference acme.Item.proto (subject acme.Item.proto, version 5) not found"],
  ])("%s", async (_what, call, code, status, errorCode, message) => {
    expect(await errorOf(call())).toMatchObject({ name: "SchemaRegistryError", code, status, errorCode, message });
  });

  test("text that does not compile is 42201", async () => {
    const e = await errorOf(client.register("broken-value", input('syntax = "proto3"; message {')));
    expect(e).toMatchObject({ code: "REGISTRY_42201", status: 422, errorCode: 42201 });
    expect(e.message).toMatch(/^schema registry POST \/subjects\/broken-value\/versions failed: 422 error_code 42201: Invalid schema \{schemaType=PROTOBUF\}, details: /);
  });

  test("a backend error (50001) and a body that is not JSON", async () => {
    registry.failNext(500, 50001, "Error in the backend data store");
    expect(await errorOf(client.getById(1))).toMatchObject({ code: "REGISTRY_50001", status: 500, errorCode: 50001, message: "schema registry GET /schemas/ids/1 failed: 500 error_code 50001: Error in the backend data store" });
    const proxy = new HttpRegistryClient({ url: "http://registry.invalid", fetch: async () => new Response("<html>bad gateway</html>", { status: 502 }) });
    expect(await errorOf(proxy.getById(1))).toMatchObject({ code: "REGISTRY_HTTP_502", status: 502, errorCode: undefined, message: "schema registry GET /schemas/ids/1 failed: 502: <html>bad gateway</html>" });
  });

  test("an unreachable registry is REGISTRY_UNREACHABLE with status 0", async () => {
    const down = new HttpRegistryClient({ url: "http://127.0.0.1:9" });
    const e = await errorOf(down.getById(1));
    expect(e).toMatchObject({ name: "SchemaRegistryError", code: "REGISTRY_UNREACHABLE", status: 0 });
    expect(e.message).toMatch(/^schema registry GET \/schemas\/ids\/1 failed: .*; check the registry URL and that it is reachable$/);
  });

  test("basic auth and extra headers are sent; the URL must be http(s)", async () => {
    const seen: Headers[] = [];
    const spy = new HttpRegistryClient({
      url: registry.url,
      basicAuth: { username: "key", password: "sécret" },
      headers: { "x-tenant": "t1" },
      fetch: (url, init) => {
        seen.push(new Headers(init?.headers));
        return fetch(url, init);
      },
    });
    await spy.getById(1);
    expect(seen[0]!.get("authorization")).toBe(`Basic ${Buffer.from("key:sécret").toString("base64")}`);
    expect(seen[0]!.get("x-tenant")).toBe("t1");
    expect(seen[0]!.get("accept")).toBe("application/vnd.schemaregistry.v1+json");
    expect(() => new HttpRegistryClient({ url: "localhost:8081" })).toThrow("HttpRegistryClient: url must be an http(s) URL, e.g. http://localhost:8081; got localhost:8081");
  });
});

test("end to end over HTTP: the serializer registers, the deserializer reads format=serialized without a compiler", async () => {
  const text = `syntax = "proto3"; package shop; import "google/protobuf/timestamp.proto";
message Line { string sku = 1; }
message Order { int64 id = 1; repeated Line lines = 2; google.protobuf.Timestamp at = 3; map<string, Line> by_sku = 4; }`;
  const type = ProtobufType.of({ fileDescriptorSet: compileProtoText({ "shop.proto": text }), messageName: "shop.Order" });
  const value = { id: 3n, lines: [{ sku: "a" }], at: { seconds: 5n }, by_sku: { a: { sku: "a" } } };
  const bytes = await new RegistrySerializer(type, { client }).serialize("shop", value);
  const back = await new RegistryDeserializer(type, { client }).deserialize("shop", bytes);
  expect(back.toObject()).toEqual({ id: 3n, lines: [{ sku: "a" }], at: { seconds: 5n, nanos: 0 }, by_sku: { a: { sku: "a" } } });
  const registered = await client.getBySubjectVersion("shop-value", "latest");
  expect(registered.references).toEqual([{ name: "shop.Line.proto", subject: "shop.Line.proto", version: 1 }]);
  expect(registered.schema).toContain('import "google/protobuf/timestamp.proto";');
});

describe("subjects a URL path cannot carry", () => {
  // fetch resolves "." and ".." path segments (percent-encoded ones too), so register("..")
  // posted to /versions and register(".") to /subjects/versions: the lookup endpoint of a subject
  // named "versions", whose answer was taken as the new registration's id.
  const spy = () => {
    const paths: string[] = [];
    const client = new HttpRegistryClient({
      url: "http://registry.invalid/prefix",
      fetch: async (url, init) => {
        paths.push(`${init?.method} ${new URL(String(url)).pathname}`);
        return new Response(JSON.stringify({ id: 1, version: 1, subject: "s", schema: "", schemaType: "PROTOBUF" }));
      },
    });
    return { paths, client };
  };

  test.each([".", "..", ""])("subject %j is refused before any request", async (subject) => {
    const { paths, client } = spy();
    const message = `HttpRegistryClient: subject ${JSON.stringify(subject)} cannot be sent in a URL path (an empty, "." or ".." segment does not reach /subjects/{subject}); use another subject name`;
    for (const call of [
      () => client.register(subject, input(ITEM)),
      () => client.lookup(subject, input(ITEM)),
      () => client.getBySubjectVersion(subject, 1),
      () => client.testCompatibility(subject, "latest", input(ITEM)),
    ]) {
      expect(await errorOf(call())).toMatchObject({ name: "TypeError", message });
    }
    // A type with a reference: its file was registered before the client refused the subject.
    const type = ProtobufType.of({
      fileDescriptorSet: compileProtoText({ "a.proto": 'syntax = "proto3"; import "b.proto"; message A { int32 v = 1; B b = 2; }', "b.proto": 'syntax = "proto3"; message B { int32 w = 1; }' }),
      messageName: "A",
    });
    // The serializer refuses these subjects itself, before any request.
    const got = subject === "" ? "an empty string" : JSON.stringify(subject);
    const refused = `RegistrySerializer: options.subject gave ${got} for topic "t"; it must give a non-empty string other than "." and ".." (a subject is a segment of the registry's URL paths)`;
    expect(await errorOf(new RegistrySerializer(type, { client, subject }).serialize("t", { v: 1 }))).toMatchObject({ name: "TypeError", message: refused });
    const byReference = new RegistrySerializer(type, { client, referenceSubject: () => subject });
    expect(await errorOf(byReference.serialize("t", { v: 1 }))).toMatchObject({
      name: "TypeError",
      message: `RegistrySerializer: options.referenceSubject gave ${got} for import path "B.proto"; it must give a non-empty string other than "." and ".." (a subject is a segment of the registry's URL paths)`,
    });
    expect(paths).toEqual([]);
  });

  test.each([
    ["a/../b", "POST /prefix/subjects/a%2F..%2Fb/versions"],
    ["..-value", "POST /prefix/subjects/..-value/versions"],
    ["%2e%2e", "POST /prefix/subjects/%252e%252e/versions"],
    ["x\ny?#", "POST /prefix/subjects/x%0Ay%3F%23/versions"],
  ])("subject %j is one path segment", async (subject, path) => {
    const { paths, client } = spy();
    await client.register(subject, input(ITEM));
    expect(paths).toEqual([path]);
  });

  test("a reference to subject .. from the registry makes the schema unusable, naming it", async () => {
    const hostile = new HttpRegistryClient({
      url: "http://registry.invalid",
      fetch: async () => new Response(JSON.stringify({ schema: "x", schemaType: "PROTOBUF", references: [{ name: "a.proto", subject: "..", version: 1 }] })),
    });
    const type = ProtobufType.of({ fileDescriptorSet: compileProtoText({ "a.proto": 'syntax = "proto3"; message A { int32 v = 1; }' }), messageName: "A" });
    const e = await errorOf(new RegistryDeserializer(type, { client: hostile }).deserialize(undefined, new Uint8Array([0, 0, 0, 0, 1, 0])));
    expect(e).toMatchObject({
      name: "CodecError",
      code: "REGISTRY_SCHEMA_UNUSABLE",
      message: `schema registry schema 1 cannot be read: its reference a.proto (subject .. version 1) cannot be fetched: HttpRegistryClient: subject ".." cannot be sent in a URL path (an empty, "." or ".." segment does not reach /subjects/{subject}); use another subject name`,
    });
  });
});
