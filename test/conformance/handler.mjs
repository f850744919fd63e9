// The conformance testee's logic, shared by the live run against protobuf's own runner
// (scripts/conformance.mjs, with dist/) and the replay of its recorded requests in the tests
// (test/conformance.test.ts, with src/). protokeel reads and writes
// protobuf_test_messages.proto3.TestAllTypesProto3; @bufbuild/protobuf only decodes the runner's
// ConformanceRequest and encodes the ConformanceResponse. Requests for other messages (proto2,
// editions) and for other formats (text format, JSPB) are answered `skipped`: protokeel is proto3
// with binary and ProtoJSON only.
import { create, createFileRegistry, fromBinary, fromJsonString, toBinary, toJsonString } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

export const TEST_MESSAGE = "protobuf_test_messages.proto3.TestAllTypesProto3";

// conformance.proto's enums.
export const FORMAT_PROTOBUF = 1;
export const FORMAT_JSON = 2;
const JSON_IGNORE_UNKNOWN_PARSING_TEST = 3;

/** The runner's envelope types and the registry of the compiled set (conformance.proto, test_messages_proto3.proto). */
export function envelope(setBytes) {
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, setBytes));
  return { registry, Request: registry.getMessage("conformance.ConformanceRequest"), Response: registry.getMessage("conformance.ConformanceResponse"), Test: registry.getMessage(TEST_MESSAGE) };
}

/**
 * A function from ConformanceRequest bytes to ConformanceResponse bytes. `kind` "dynamic" reads
 * and writes binary and JSON with protokeel; "generated" (ProtobufType.ofGenerated: protobuf-es
 * message objects) has no JSON methods of its own (README), so its JSON goes through protobuf-es
 * and only its binary answers are protokeel's.
 */
export function conformanceHandler(ProtobufType, setBytes, { kind, deterministic }) {
  const { registry, Request, Response, Test } = envelope(setBytes);
  const type =
    kind === "generated"
      ? ProtobufType.newGeneratedBuilder(Test).deterministic(deterministic).build()
      : ProtobufType.newBuilder({ fileDescriptorSet: setBytes, messageName: TEST_MESSAGE }).deterministic(deterministic).build();
  const ser = type.createSerializer();
  const esJson = kind === "generated";

  // A protokeel error carries a code; anything else from protokeel is a defect (runtime_error).
  // protobuf-es' JSON errors carry none.
  const failed = (e, which, viaEs) => (e?.code !== undefined || viaEs ? { case: which, value: String(e.message) } : { case: "runtimeError", value: `untyped error: ${e?.stack ?? e}` });

  function answer(req) {
    if (req.messageType !== TEST_MESSAGE) return { case: "skipped", value: "protokeel reads proto3 only" };
    const p = req.payload;
    if (p.case !== "protobufPayload" && p.case !== "jsonPayload") return { case: "skipped", value: `no ${p.case} input` };
    const out = req.requestedOutputFormat;
    if (out !== FORMAT_PROTOBUF && out !== FORMAT_JSON) return { case: "skipped", value: `no output format ${out}` };
    const ignoreUnknownFields = req.testCategory === JSON_IGNORE_UNKNOWN_PARSING_TEST;
    let msg;
    const jsonIn = p.case === "jsonPayload";
    try {
      if (!jsonIn) msg = ser.fromBinary(p.value);
      else if (esJson) msg = fromJsonString(Test, p.value, { ignoreUnknownFields, registry });
      else msg = ser.fromJsonString(p.value, { ignoreUnknownFields, registry });
    } catch (e) {
      return failed(e, "parseError", jsonIn && esJson);
    }
    try {
      if (out === FORMAT_PROTOBUF) return { case: "protobufPayload", value: ser.toBinary(msg) };
      // JSON drops unknown fields (protobuf's JSON mapping has no form for them).
      if (esJson) return { case: "jsonPayload", value: toJsonString(Test, msg, { registry }) };
      return { case: "jsonPayload", value: ser.toJsonString(msg, { registry, discardUnknownFields: true }) };
    } catch (e) {
      return failed(e, "serializeError", out === FORMAT_JSON && esJson);
    }
  }

  return (requestBytes) => toBinary(Response, create(Response, { result: answer(fromBinary(Request, requestBytes)) }));
}
