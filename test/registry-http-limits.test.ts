// HttpRegistryClient against registries that misbehave: one that accepts a request and never
// answers (a deserializer caches a pending lookup per schema id, so one stalled request stalled
// every later record of that id, forever), one that answers with an endless or huge body (read
// whole: ~4x its size in memory before it failed), and answers whose references (a plain
// TypeError), ids or versions (a null id read as schema 0) are not the REST API's shape. Each ends
// in a SchemaRegistryError with a code, in bounded time.
import http from "node:http";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { ProtobufType, SchemaRegistryError } from "../src/index.js";
import { HttpRegistryClient, MemoryRegistryClient, RegistryDeserializer, RegistrySerializer } from "../src/registry/index.js";
import { compileProtoText } from "./support/buf.js";
import { localServers } from "./support/http-server.js";

const TYPE = ProtobufType.of({
  fileDescriptorSet: compileProtoText({ "acme/order.proto": 'syntax = "proto3";\npackage acme;\nmessage Order { int64 id = 1; }\n' }),
  messageName: "acme.Order",
});
const SCHEMA = Buffer.from(toBinary(FileDescriptorProtoSchema, fromBinary(FileDescriptorSetSchema, TYPE.normalizedDescriptorSet()).file[0]!)).toString("base64");

const serve = localServers();

async function rejection(p: Promise<unknown>): Promise<SchemaRegistryError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(SchemaRegistryError);
    return e as SchemaRegistryError;
  }
  throw new Error("expected a rejection");
}

const answer = (res: http.ServerResponse, body: unknown): void => {
  res.writeHead(200, { "content-type": "application/vnd.schemaregistry.v1+json" });
  res.end(JSON.stringify(body));
};

describe("a registry that never answers", () => {
  test("the request ends at timeoutMs, and the deserializer asks again next time", async () => {
    let healthy = false;
    let requests = 0;
    const url = await serve((_req, res) => {
      requests++;
      if (healthy) answer(res, { schema: SCHEMA, schemaType: "PROTOBUF" });
    });
    const record = await new RegistrySerializer(TYPE, { client: new MemoryRegistryClient() }).serialize("orders", { id: 7n });
    const reader = new RegistryDeserializer(TYPE, { client: new HttpRegistryClient({ url, timeoutMs: 200 }) });
    const e = await rejection(reader.deserialize("orders", record));
    expect(e.code).toBe("REGISTRY_UNREACHABLE");
    expect(e.message).toBe("schema registry GET /schemas/ids/1?format=serialized did not answer within 200 ms; check that the registry is up, or raise timeoutMs");
    healthy = true;
    expect((await reader.deserialize("orders", record)).get("id")).toBe(7n);
    expect(requests).toBe(2);
  });

  test("a fetch that ignores the abort signal is bounded too", async () => {
    const client = new HttpRegistryClient({ url: "http://registry.invalid", timeoutMs: 50, fetch: () => new Promise<Response>(() => {}) });
    expect((await rejection(client.getById(1))).code).toBe("REGISTRY_UNREACHABLE");
  });

  test("a body that stops half-way is bounded by the same timeout", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"schema": "');
    });
    const e = await rejection(new HttpRegistryClient({ url, timeoutMs: 200 }).getById(1));
    expect(e.code).toBe("REGISTRY_UNREACHABLE");
  });

  // Past 2^31 - 1 ms setTimeout fires after 1 ms: every request failed at once.
  test.each([0, -1, 1.5, "10", Number.NaN, 2 ** 31, 1e10, Number.MAX_SAFE_INTEGER])("timeoutMs %j is refused", (v) => {
    expect(() => new HttpRegistryClient({ url: "http://x", timeoutMs: v as number })).toThrow(
      /^HttpRegistryClient: timeoutMs must be a positive integer up to 2147483647 \(the longest timer delay, ~24.8 days\), got /,
    );
  });
});

describe("answer bodies past maxResponseBytes", () => {
  test.each<[string, http.RequestListener]>([
    [
      "a declared length over the limit",
      (_req, res) => {
        res.writeHead(200, { "content-length": String(5_000_000) });
        res.write("x".repeat(1000));
      },
    ],
    [
      "an endless chunked body",
      (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        const chunk = "x".repeat(64 * 1024);
        const more = (): void => {
          while (res.write(chunk)) {
            /* until the socket pushes back */
          }
          res.once("drain", more);
        };
        more();
      },
    ],
  ])("%s", async (_name, handler) => {
    const url = await serve(handler);
    const e = await rejection(new HttpRegistryClient({ url, maxResponseBytes: 1_000_000, timeoutMs: 20_000 }).getById(1));
    expect(e.code).toBe("REGISTRY_RESPONSE_TOO_LARGE");
    expect(e.message).toBe(
      "schema registry GET /schemas/ids/1 answered with a body of more than 1000000 bytes (maxResponseBytes); check the registry URL, or raise maxResponseBytes",
    );
  });

  test("a body of exactly the limit is read", async () => {
    const body = JSON.stringify({ schema: "s".repeat(1000), schemaType: "PROTOBUF" });
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.end(body);
    });
    expect((await new HttpRegistryClient({ url, maxResponseBytes: body.length }).getById(3)).schema).toBe("s".repeat(1000));
    expect((await rejection(new HttpRegistryClient({ url, maxResponseBytes: body.length - 1 }).getById(3))).code).toBe("REGISTRY_RESPONSE_TOO_LARGE");
  });
});

describe("references that are not the REST API's shape", () => {
  test.each<[string, unknown, string]>([
    ["a null entry", [null], "reference 0 without a string name and subject and an integer version"],
    ["a string entry", ["x"], "reference 0 without a string name and subject and an integer version"],
    ["no version", [{ name: "a.proto", subject: "a" }], "reference 0 without a string name and subject and an integer version"],
    ["a second entry without a subject", [{ name: "a.proto", subject: "a", version: 1 }, { name: "b.proto", version: 1 }], "reference 1 without a string name and subject and an integer version"],
    ["an object", { name: "a.proto" }, "references that are not a list"],
  ])("%s", async (_name, references, why) => {
    const url = await serve((_req, res) => answer(res, { schema: SCHEMA, schemaType: "PROTOBUF", references }));
    const e = await rejection(new HttpRegistryClient({ url }).getById(5));
    expect(e.code).toBe("REGISTRY_RESPONSE_INVALID");
    expect(e.message).toBe(`schema registry GET /schemas/ids/5 answered ${why}; check that the URL is a Confluent-compatible schema registry`);
  });

  test("null and absent references are none", async () => {
    const url = await serve((_req, res) => answer(res, { schema: SCHEMA, schemaType: "PROTOBUF", references: null }));
    expect((await new HttpRegistryClient({ url }).getById(5)).references).toEqual([]);
  });
});

describe("ids and versions that are not the REST API's shape", () => {
  // Number(answer.id) read a null id as 0 (every record then named schema 0) and a missing or
  // out-of-range one as NaN or -1, which failed later as a plain RangeError of the header writer.
  const ID = "an id that is not an integer in 0..4294967295";
  const VERSION = "a version that is not an integer in 1..2147483647";
  test.each<[string, "register" | "lookup" | "version", Record<string, unknown>, string]>([
    ["register: no id", "register", {}, `POST /subjects/orders-value/versions answered ${ID} (got none)`],
    ["register: a null id", "register", { id: null }, `POST /subjects/orders-value/versions answered ${ID} (got null)`],
    ["register: a string id", "register", { id: "7" }, `POST /subjects/orders-value/versions answered ${ID} (got "7")`],
    ["register: a negative id", "register", { id: -1 }, `POST /subjects/orders-value/versions answered ${ID} (got -1)`],
    ["register: a fractional id", "register", { id: 1.5 }, `POST /subjects/orders-value/versions answered ${ID} (got 1.5)`],
    ["register: an id past 32 bits", "register", { id: 2 ** 32 }, `POST /subjects/orders-value/versions answered ${ID} (got 4294967296)`],
    ["lookup: a null id", "lookup", { id: null, version: 1 }, `POST /subjects/orders-value answered ${ID} (got null)`],
    ["lookup: no version", "lookup", { id: 3 }, `POST /subjects/orders-value answered ${VERSION} (got none)`],
    ["lookup: version 0", "lookup", { id: 3, version: 0 }, `POST /subjects/orders-value answered ${VERSION} (got 0)`],
    ["get version: an object id", "version", { id: {}, version: 1, schema: SCHEMA, schemaType: "PROTOBUF" }, `GET /subjects/orders-value/versions/latest answered ${ID} (got object)`],
  ])("%s", async (_name, call, body, why) => {
    let healthy = false;
    const url = await serve((_req, res) => answer(res, healthy ? { id: 3, version: 1, schema: SCHEMA, schemaType: "PROTOBUF" } : body));
    const client = new HttpRegistryClient({ url });
    const run = (): Promise<unknown> =>
      call === "version"
        ? client.getBySubjectVersion("orders-value", "latest")
        : new RegistrySerializer(TYPE, { client, autoRegister: call === "register" }).serialize("orders", { id: 7n });
    const e = await rejection(run());
    expect(e).toMatchObject({ code: "REGISTRY_RESPONSE_INVALID", message: `schema registry ${why}; check that the URL is a Confluent-compatible schema registry` });
    healthy = true;
    if (call !== "version") expect(Buffer.from((await run()) as Uint8Array).toString("hex")).toBe("0000000003000807");
  });
});

test("an error answer's message is quoted by its head and length", async () => {
  const url = await serve((_req, res) => {
    res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ error_code: 50001, message: "m".repeat(100_000) }));
  });
  const e = await rejection(new HttpRegistryClient({ url }).getById(1));
  expect(e).toMatchObject({ code: "REGISTRY_50001", message: `schema registry GET /schemas/ids/1 failed: 500 error_code 50001: ${"m".repeat(120)}…(100000 chars)` });
});
