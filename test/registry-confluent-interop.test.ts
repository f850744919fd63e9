// Interop with Confluent's own JavaScript client (@confluentinc/schemaregistry 1.10.1, a dev
// dependency): its ProtobufSerializer writes, protokeel's RegistryDeserializer reads; protokeel's
// RegistrySerializer writes, its ProtobufDeserializer reads; both over its MockClient, on the
// all-types fixture (every field shape, well-known types), the first and nested message indexes,
// fixed values and random ones. Headers are byte-identical to the ones its SchemaId writes.
//
// Its MockClient keeps schemas as registered, while a real registry serves any Protobuf schema
// as a base64 FileDescriptorProto when asked for format=serialized (its deserializer always asks
// for that). protokeel registers .proto text, so the mock gets that one registry behaviour here:
// text is compiled with buf when format=serialized is asked for.
import { create, createFileRegistry, fromBinary, toBinary, type DescMessage, type FileRegistry } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { MockClient, ProtobufDeserializer, ProtobufSerializer, SchemaId, SerdeType } from "@confluentinc/schemaregistry";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import {
  RegistryDeserializer,
  RegistrySerializer,
  readRegistryHeader,
  writeRegistryHeader,
  type RegisteredSchema,
  type SchemaInput,
  type SchemaRegistryClient,
  type SubjectVersion,
} from "../src/registry/index.js";
import { messageArb } from "./support/arbitrary-message.js";
import { compileProtoDir, compileProtoText } from "./support/buf.js";
import { params } from "./support/property.js";

type Info = { schema: string; schemaType?: string; references?: readonly { name: string; subject: string; version: number }[] };

/** MockClient plus the registry's format=serialized: .proto text comes back as a base64 FileDescriptorProto. */
class SerializingMockClient extends MockClient {
  constructor() {
    super({ baseURLs: ["mock://"] } as never);
  }

  async #serialized<T extends Info>(info: T, format: string | undefined): Promise<T> {
    if (format !== "serialized" || /^[A-Za-z0-9+/]+={0,2}$/.test(info.schema)) return info;
    const files: Record<string, string> = { "__schema__.proto": info.schema };
    const queue = [...(info.references ?? [])];
    while (queue.length > 0) {
      const ref = queue.shift()!;
      const dep = (await super.getSchemaMetadata(ref.subject, ref.version)) as unknown as Info;
      files[ref.name] = dep.schema;
      queue.push(...(dep.references ?? []));
    }
    const set = fromBinary(FileDescriptorSetSchema, compileProtoText(files));
    const main = set.file.find((f) => f.name === "__schema__.proto")!;
    return { ...info, schema: Buffer.from(toBinary(FileDescriptorProtoSchema, main)).toString("base64") };
  }

  override async getBySubjectAndId(subject: string | undefined, id: number, format?: string) {
    return this.#serialized(await super.getBySubjectAndId(subject as string, id, format), format);
  }

  override async getSchemaMetadata(subject: string, version: number, deleted = false, format?: string) {
    return this.#serialized(await super.getSchemaMetadata(subject, version, deleted, format), format);
  }
}

/** protokeel's client interface over the same MockClient. */
function adapter(mock: MockClient): SchemaRegistryClient {
  const info = (s: SchemaInput) => ({ schema: s.schema, schemaType: s.schemaType, references: [...s.references] });
  const registered = (id: number, x: Info): RegisteredSchema => ({ id, schema: x.schema, schemaType: x.schemaType ?? "AVRO", references: x.references ?? [] });
  return {
    register: (subject, s) => mock.register(subject, info(s)),
    lookup: async (subject, s): Promise<SubjectVersion> => ({ ...registered(await mock.getId(subject, info(s)), s), subject, version: await mock.getVersion(subject, info(s)) }),
    getById: async (id, format) => registered(id, (await mock.getBySubjectAndId("", id, format)) as Info),
    getBySubjectVersion: async (subject, version, format) => {
      const m = (version === "latest" ? await mock.getLatestSchemaMetadata(subject, format) : await mock.getSchemaMetadata(subject, version, false, format)) as unknown as Info & { id: number; version: number };
      return { ...registered(m.id, m), subject, version: m.version };
    },
    testCompatibility: async (subject, version, s) => ({ isCompatible: await mock.testCompatibility(subject, version === "latest" ? -1 : version, info(s)), messages: [] }),
  };
}

const set = compileProtoDir("fixtures/all-types");
const registry: FileRegistry = createFileRegistry(fromBinary(FileDescriptorSetSchema, set));
const ROOTS = [
  ["the first message of its file (Leaf, [0])", "alltypes.Leaf", [0]],
  ["a later top-level message (AllTypes, [1])", "alltypes.AllTypes", [1]],
  ["a nested message after 17 map entries (AllTypes.Nested, [1, 0])", "alltypes.AllTypes.Nested", [1, 0]],
] as const;

function setup() {
  const mock = new SerializingMockClient();
  const client = adapter(mock);
  const theirSer = new ProtobufSerializer(mock, SerdeType.VALUE, { autoRegisterSchemas: true, registry: registry as never });
  const theirDe = new ProtobufDeserializer(mock, SerdeType.VALUE, {});
  return { mock, client, theirSer, theirDe };
}

/** What their deserializer returned, as protokeel reads it (through their own encoder). */
function theirsAsOurs(de: ProtobufDeserializer, msg: { $typeName: string }, type: ProtobufType): DynamicMessage {
  const desc = (de as unknown as { fileRegistry: FileRegistry }).fileRegistry.getMessage(msg.$typeName)!;
  return type.createSerializer().fromBinary(toBinary(desc, msg as never));
}

function theirHeader(bytes: Uint8Array): Uint8Array {
  const id = new SchemaId("PROTOBUF");
  const n = id.fromBytes(Buffer.from(bytes));
  expect(Buffer.from(id.idToBytes()).equals(Buffer.from(bytes.subarray(0, n)))).toBe(true);
  return bytes.subarray(0, n);
}

const LEAF = { name: "leaf", value: -3 };
const ALL = { f_string: "héllo", f_int64: -5n, r_sint64: [1n, -2n], m_bool: { true: "t" }, f_message: LEAF, c_enum: 2, wkt_timestamp: { seconds: 9n }, nested: { a: 4, leaves: [LEAF] }, f_max_number: "max" };
const NESTED = { a: 1, inner: { a: 2 }, outer: { f_bool: true }, leaves: [LEAF, LEAF] };
const VALUES: Record<string, Record<string, unknown>> = { "alltypes.Leaf": LEAF, "alltypes.AllTypes": ALL, "alltypes.AllTypes.Nested": NESTED };

describe.each(ROOTS)("%s", (_what, name, theirIndexes) => {
  const desc = registry.getMessage(name) as DescMessage;
  const type = ProtobufType.of(desc);
  const ours = DynamicMessage.create(type.descriptor, VALUES[name]!);

  test("their ProtobufSerializer writes, protokeel reads; the header is theirs byte for byte", async () => {
    const { client, theirSer } = setup();
    const bytes = new Uint8Array(await theirSer.serialize("t", create(desc, fromBinary(desc, type.createSerializer().toBinary(ours)))));
    const header = readRegistryHeader(bytes);
    expect(header.messageIndexes).toEqual(theirIndexes);
    expect(writeRegistryHeader(header.schemaId, header.messageIndexes)).toEqual(theirHeader(bytes));
    const back = await new RegistryDeserializer(type, { client }).deserialize("t", bytes);
    expect(back.equals(ours)).toBe(true);
  });

  test("protokeel writes .proto text, their ProtobufDeserializer reads", async () => {
    const { client, theirDe } = setup();
    const bytes = await new RegistrySerializer(type, { client }).serialize("t", ours);
    theirHeader(bytes);
    const msg = (await theirDe.deserialize("t", Buffer.from(bytes))) as { $typeName: string };
    expect(msg.$typeName).toBe(name);
    expect(theirsAsOurs(theirDe, msg, type).equals(ours)).toBe(true);
  });
});

// @bufbuild/protobuf's create() takes JSON for these (the other tests' init shape is not theirs).
const JSON_TYPES = ["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"];

describe("random messages of AllTypes, both ways", () => {
  const desc = registry.getMessage("alltypes.AllTypes") as DescMessage;
  const type = ProtobufType.of(desc);

  test("their bytes → protokeel, protokeel bytes → them", async () => {
    const { client, theirSer, theirDe } = setup();
    const ourSer = new RegistrySerializer(type, { client });
    const ourDe = new RegistryDeserializer(type, { client });
    await fc.assert(
      fc.asyncProperty(messageArb(desc, 2, { skipTypes: JSON_TYPES }), async (sample) => {
        const value = DynamicMessage.create(type.descriptor, sample.ours);
        const theirBytes = new Uint8Array(await theirSer.serialize("random", create(desc, sample.es as never)));
        expect((await ourDe.deserialize("random", theirBytes)).equals(value)).toBe(true);
        const ourBytes = await ourSer.serialize("random-ours", value);
        const msg = (await theirDe.deserialize("random-ours", Buffer.from(ourBytes))) as { $typeName: string };
        expect(theirsAsOurs(theirDe, msg, type).equals(value)).toBe(true);
      }),
      params("registry confluent interop random", 60),
    );
  });
});
