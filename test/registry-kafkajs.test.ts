// protokeel/registry's serializer callbacks on KafkaJS's own message objects (kafkajs 2.2.4, a dev
// dependency), without a broker (none exists on the test machine): the `{ key, value, headers }`
// messages producer.send takes go through KafkaJS's own record-batch encoder (what
// producer.send puts on the wire, plain and gzip-compressed) and its own decoder (what a
// consumer's fetch gives eachMessage), and the consumer callback reads the values back.
import { createRequire } from "node:module";
import { CompressionTypes, type EachMessagePayload, type KafkaMessage, type Message } from "kafkajs";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { MemoryRegistryClient, RegistryDeserializer, RegistrySerializer, readRegistryHeader } from "../src/registry/index.js";
import { bufCompiler } from "../src/registry/buf.js";
import { compileProtoText } from "./support/buf.js";

const require = createRequire(import.meta.url);
// KafkaJS's protocol layer, as its producer and consumer use it (src/protocol/requests/produce/v3
// and src/protocol/requests/fetch/v4 call these).
const Record = require("kafkajs/src/protocol/recordBatch/record/v0") as (r: Message & { offsetDelta: number; timestampDelta: number }) => unknown;
const { RecordBatch } = require("kafkajs/src/protocol/recordBatch/v0") as { RecordBatch: (o: Record<string, unknown>) => Promise<{ buffer: Buffer }> };
const decodeRecordBatch = require("kafkajs/src/protocol/recordBatch/v0/decoder") as (d: unknown) => Promise<{ records: KafkaMessage[] }>;
const Decoder = require("kafkajs/src/protocol/decoder") as new (b: Buffer) => unknown;

const TEXT = `syntax = "proto3"; package shop;
message Line { string sku = 1; int32 qty = 2; }
message Order { int64 id = 1; repeated Line lines = 2; map<string, string> labels = 3; optional string note = 4; }`;
const type = ProtobufType.of({ fileDescriptorSet: compileProtoText({ "shop.proto": TEXT }), messageName: "shop.Order" });

/** What a broker would hand back: the messages through KafkaJS's record-batch encoder and decoder. */
async function throughKafkaJs(messages: Message[], compression: CompressionTypes): Promise<KafkaMessage[]> {
  const now = Date.now();
  const records = messages.map((m, i) => Record({ ...m, offsetDelta: i, timestampDelta: 0 }));
  const batch = await RecordBatch({ compression, records, firstTimestamp: now, maxTimestamp: now, lastOffsetDelta: records.length - 1 });
  return (await decodeRecordBatch(new Decoder(batch.buffer))).records;
}

describe.each([
  ["uncompressed", CompressionTypes.None],
  ["gzip", CompressionTypes.GZIP],
])("KafkaJS messages, %s", (_what, compression) => {
  test("producer messages carry registry-format values; eachMessage reads them back", async () => {
    const client = new MemoryRegistryClient();
    const serializer = new RegistrySerializer(type, { client });
    const deserializer = new RegistryDeserializer(type, { client, compile: bufCompiler() });
    const orders = [
      { id: 7n, lines: [{ sku: "a", qty: 2 }], labels: { region: "eu" } },
      { id: 8n, note: "" },
      { id: 9n, lines: Array.from({ length: 300 }, (_, i) => ({ sku: `sku-${i}`, qty: i })) },
    ];

    // The messages of producer.send({ topic, messages }).
    const messages: Message[] = [];
    for (const order of orders) {
      messages.push({ key: String(order.id), value: Buffer.from(await serializer.serialize("orders", order)), headers: { "content-type": "application/x-protobuf" } });
    }
    // A tombstone: KafkaJS delivers value null.
    messages.push({ key: "10", value: null });

    const delivered = await throughKafkaJs(messages, compression);
    const read: Array<DynamicMessage | null> = [];
    // The consumer's callback, as consumer.run({ eachMessage }) calls it.
    const eachMessage = async ({ message }: EachMessagePayload): Promise<void> => {
      read.push(message.value === null ? null : await deserializer.deserialize("orders", message.value));
    };
    for (const message of delivered) {
      await eachMessage({ topic: "orders", partition: 0, message, heartbeat: async () => {}, pause: () => () => {} });
    }

    expect(delivered.map((m) => m.key?.toString())).toEqual(["7", "8", "9", "10"]);
    expect(delivered[0]!.headers).toEqual({ "content-type": Buffer.from("application/x-protobuf") });
    expect(readRegistryHeader(delivered[0]!.value!).schemaId).toBe(await serializer.schemaId("orders"));
    expect(read.slice(0, 3).map((v, i) => v!.equals(DynamicMessage.create(type.descriptor, orders[i]!)))).toEqual([true, true, true]);
    expect((read[1] as DynamicMessage).has("note")).toBe(true);
    expect(read[3]).toBeNull();
  });
});

test("a record that is not in the registry format is refused by the consumer callback with the header's error", async () => {
  const client = new MemoryRegistryClient();
  const deserializer = new RegistryDeserializer(type, { client });
  const [message] = await throughKafkaJs([{ key: "1", value: Buffer.from(type.createSerializer().toBinary({ id: 1n })) }], CompressionTypes.None);
  await expect(deserializer.deserialize("orders", message!.value!)).rejects.toMatchObject({ code: "REGISTRY_MAGIC_BYTE", offset: 0 });
});
