import { test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
test("x", () => {
  const registry = registryFromDir("fixtures/all-types");
  const All = registry.getMessage("alltypes.AllTypes")!;
  const ser = ProtobufType.of(All).createSerializer();
  for (const t of ['{"fInt32": "x"}', '{"fBytes": "A"}', '{"fUint64": "-1"}','{"fFloat": 1e39}','[1]', '{"fInt32": 1', '{"wktStruct": {"a": {"b": [1, 1e400]}}}', '{"wktAny": {"@type": "type.googleapis.com/google.protobuf.Duration"}}', '{"wktFieldMask": "a_b"}', '{"mvMessage": {"k": 5}}']) {
    try { ser.fromJsonString(t, { registry }); console.log("OK", t) } catch (e) { const c = e as CodecError; console.log(JSON.stringify([t, c.code, c.path, c.offset ?? null, c.message])) }
  }
});
