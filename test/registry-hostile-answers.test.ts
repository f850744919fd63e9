// A registry (or what answers at its URL) that redirects, or answers in a shape the REST API
// never has, or serves a corrupt descriptor; and an application that passes a topic that is not a
// string. Each ends in an error that names what happened, before anything is registered or sent
// on: a redirect was followed with the client's headers (an API key in `headers` went to the
// address the answer named), `[]` or `{}` was read as an AVRO schema, a corrupt base64 descriptor
// was taken for .proto text ("pass bufCompiler()"), and `serialize(undefined, v)` registered the
// subject "undefined-value".
import { describe, expect, test } from "vitest";
import { CodecError, ProtobufType, SchemaRegistryError } from "../src/index.js";
import { HttpRegistryClient, MemoryRegistryClient, RegistryDeserializer, RegistrySerializer } from "../src/registry/index.js";
import { compileProtoText } from "./support/buf.js";
import { localServers } from "./support/http-server.js";

const TYPE = ProtobufType.of({
  fileDescriptorSet: compileProtoText({ "acme/order.proto": 'syntax = "proto3";\npackage acme;\nmessage Order { int64 id = 1; }\n' }),
  messageName: "acme.Order",
});
const RECORD = Uint8Array.of(0, 0, 0, 0, 1, 0, 0x08, 0x07); // schema 1, message [0], id 7

const serve = localServers();

/** A registry answering every request with `status` and `body` as the registry's JSON type. */
function answering(status: number, body: string): Promise<string> {
  return serve((_req, res) => {
    res.writeHead(status, { "content-type": "application/vnd.schemaregistry.v1+json" });
    res.end(body);
  });
}

/** Expects `p` to fail with REGISTRY_RESPONSE_INVALID and exactly `message`. */
async function expectInvalid(p: Promise<unknown>, message: string): Promise<void> {
  const e = await rejection<SchemaRegistryError>(p);
  expect(e).toBeInstanceOf(SchemaRegistryError);
  expect([e.code, e.message]).toEqual(["REGISTRY_RESPONSE_INVALID", message]);
}

async function rejection<E>(p: Promise<unknown>): Promise<E> {
  try {
    await p;
  } catch (e) {
    return e as E;
  }
  throw new Error("expected a rejection");
}

describe("redirects are not followed", () => {
  test.each([301, 302, 307, 308])("%i: REGISTRY_HTTP_<status>, and the target sees no request", async (status) => {
    const seen: (string | undefined)[] = [];
    const target = await serve((req, res) => {
      seen.push(req.headers["x-api-key"] as string | undefined);
      res.end("{}");
    });
    const url = await serve((_req, res) => {
      res.writeHead(status, { location: `${target}/schemas/ids/1` });
      res.end();
    });
    const client = new HttpRegistryClient({ url, headers: { "x-api-key": "secret" } });
    const e = await rejection<SchemaRegistryError>(new RegistryDeserializer(TYPE, { client }).deserialize("orders", RECORD));
    expect(e).toBeInstanceOf(SchemaRegistryError);
    expect([e.code, e.message]).toEqual([
      `REGISTRY_HTTP_${status}`,
      `schema registry GET /schemas/ids/1?format=serialized answered with a redirect (${status} to "${target}/schemas/ids/1"), which is not followed: the request's headers, credentials among them, would go to that address; set url to the registry's own address`,
    ]);
    expect(seen).toEqual([]);
  });
});

describe("answers in another shape are REGISTRY_RESPONSE_INVALID", () => {
  const INVALID = (why: string) => `schema registry GET /schemas/ids/1 answered ${why}; check that the URL is a Confluent-compatible schema registry`;
  test.each<[string, number, string, string]>([
    ["an empty answer", 200, "", INVALID("a schema that is not a string (got none)")],
    ["204 No Content", 204, "", INVALID("a schema that is not a string (got none)")],
    ["an empty object", 200, "{}", INVALID("a schema that is not a string (got none)")],
    ["an array", 200, "[]", INVALID("a JSON array where a schema object belongs")],
    ["a schema that is an object", 200, '{"schema":{"a":1},"schemaType":"PROTOBUF"}', INVALID("a schema that is not a string (got object)")],
    ["a schemaType that is a number", 200, '{"schema":"x","schemaType":3}', INVALID("a schemaType that is not a string (got 3)")],
    // A success whose body is no JSON object (a proxy's login page): not REGISTRY_HTTP_200.
    ["an HTML page", 200, "<html>proxy login</html>", INVALID('200 with a body that is not a JSON object: "<html>proxy login</html>"')],
    ["JSON null", 200, "null", INVALID('200 with a body that is not a JSON object: "null"')],
    ["a JSON string", 200, '"abc"', INVALID('200 with a body that is not a JSON object: "\\"abc\\""')],
    ["a JSON number, 201", 201, "42", INVALID('201 with a body that is not a JSON object: "42"')],
  ])("%s", async (_name, status, body, message) => {
    const url = await answering(status, body);
    await expectInvalid(new HttpRegistryClient({ url }).getById(1), message);
  });
});

describe("a compatibility answer without a boolean is_compatible is REGISTRY_RESPONSE_INVALID, not a verdict", () => {
  const PATH = "POST /compatibility/subjects/s/versions/latest?verbose=true";
  const INVALID = (why: string) => `schema registry ${PATH} answered ${why}; check that the URL is a Confluent-compatible schema registry`;
  test.each<[string, number, string, string]>([
    ["an empty answer", 200, "", INVALID("an is_compatible that is not a boolean (got none)")],
    ["an empty object", 200, "{}", INVALID("an is_compatible that is not a boolean (got none)")],
    ["an array", 200, "[]", INVALID("a JSON array where a verdict object belongs")],
    ["a string", 200, '{"is_compatible":"true"}', INVALID('an is_compatible that is not a boolean (got "true")')],
    ["a number, 299", 299, '{"is_compatible":1}', INVALID("an is_compatible that is not a boolean (got 1)")],
  ])("%s", async (_name, status, body, message) => {
    const url = await answering(status, body);
    await expectInvalid(new HttpRegistryClient({ url }).testCompatibility("s", "latest", { schemaType: "PROTOBUF", schema: "x", references: [] }), message);
  });

  test("a verdict reads as given", async () => {
    const url = await serve((_req, res) => res.end('{"is_compatible":false,"messages":["TYPE_CHANGED: id"]}'));
    expect(await new HttpRegistryClient({ url }).testCompatibility("s", 1, { schemaType: "PROTOBUF", schema: "x", references: [] })).toEqual({ isCompatible: false, messages: ["TYPE_CHANGED: id"] });
  });
});

describe("an answer cut off or undecodable is REGISTRY_UNREACHABLE, and the next call is made afresh", () => {
  test.each<[string, (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void]>([
    ["the connection drops mid-body", (req, res) => {
      res.writeHead(200, { "content-length": "1000" });
      res.write('{"schema":"');
      setTimeout(() => req.socket.destroy(), 20);
    }],
    ["an error answer cut off", (req, res) => {
      res.writeHead(500, { "content-length": "1000" });
      res.write('{"error_code":500');
      setTimeout(() => req.socket.destroy(), 20);
    }],
    ["a gzip body that does not decode", (_req, res) => {
      res.writeHead(200, { "content-encoding": "gzip" });
      res.end(Buffer.from("not gzip at all, but claims to be"));
    }],
  ])("%s", async (_name, handler) => {
    let calls = 0;
    const url = await serve((req, res) => {
      if (++calls === 1) return handler(req, res);
      res.writeHead(200, { "content-type": "application/vnd.schemaregistry.v1+json" });
      res.end('{"id":7}');
    });
    const client = new HttpRegistryClient({ url, timeoutMs: 5000 });
    const input = { schemaType: "PROTOBUF", schema: "x", references: [] } as const;
    const e = await rejection<SchemaRegistryError>(client.register("s", input));
    expect(e).toBeInstanceOf(SchemaRegistryError);
    expect(e.code).toBe("REGISTRY_UNREACHABLE");
    expect(e.message).toMatch(/^schema registry POST \/subjects\/s\/versions failed while its answer \((200|500)\) was read: .+; check the registry URL and that it is reachable$/);
    expect(await client.register("s", input)).toBe(7);
  });
});

test("a URL's scheme in capitals is an http URL", async () => {
  const url = await serve((_req, res) => res.end('{"id":3}'));
  expect(await new HttpRegistryClient({ url: url.replace("http://", "HTTP://") }).register("s", { schemaType: "PROTOBUF", schema: "x", references: [] })).toBe(3);
});

test("a corrupt base64 descriptor is named as one, not taken for .proto text", async () => {
  const client = new MemoryRegistryClient();
  // Base64 of the first 20 bytes of a FileDescriptorProto: a length runs past the end.
  const whole = Buffer.from(TYPE.normalizedDescriptorSet()).subarray(2);
  const corrupt = Buffer.from(whole.subarray(0, 21)).toString("base64");
  const id = await client.register("orders-value", { schemaType: "PROTOBUF", schema: corrupt, references: [] });
  const record = Uint8Array.of(0, 0, 0, 0, id, 0, 0x08, 0x07);
  const e = await rejection<CodecError>(new RegistryDeserializer(TYPE, { client }).deserialize("orders", record));
  expect(e).toBeInstanceOf(CodecError);
  expect(e.code).toBe("REGISTRY_SCHEMA_UNUSABLE");
  expect(e.message).toMatch(new RegExp(`^schema registry schema ${id} cannot be read: its schema is base64 \\(21 bytes\\) that does not decode as a FileDescriptorProto \\(.+\\); the registry holds a corrupt schema$`));
});

test.each([undefined, null, 5, ""])("serialize(%j, value) is a TypeError before any request", async (topic) => {
  let requests = 0;
  const client = new (class extends MemoryRegistryClient {
    override register(...a: Parameters<MemoryRegistryClient["register"]>) {
      requests++;
      return super.register(...a);
    }
    override lookup(...a: Parameters<MemoryRegistryClient["lookup"]>) {
      requests++;
      return super.lookup(...a);
    }
  })();
  const ser = new RegistrySerializer(TYPE, { client });
  const e = await rejection<TypeError>(ser.serialize(topic as never, { id: 1n }));
  expect(e).toBeInstanceOf(TypeError);
  const got = topic === "" ? "an empty string" : topic === null || topic === undefined ? String(topic) : typeof topic;
  expect(e.message).toBe(`RegistrySerializer: the topic must be a non-empty string (its values' subject is <topic>-value), got ${got}`);
  expect(requests).toBe(0);
});
