// A deterministic serializer's ProtoJSON read packs Any content with deterministic writes too: map
// entries inside an Any (at any depth of Any in Any) come out by key, whatever order the JSON
// text lists them in, as they do outside one. The content was packed by a serializer of the
// outer limits only, and kept the text's key order.
import { describe, expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const det = ProtobufType.newBuilder(All).deterministic(true).build().createSerializer();
const plain = ProtobufType.of(All).createSerializer();
const ALL_URL = "type.googleapis.com/alltypes.AllTypes";
const ANY_URL = "type.googleapis.com/google.protobuf.Any";

const map = (keys: string[]) => `{${keys.map((k) => `"${k}":"v"`).join(",")}}`;
/** An AllTypes whose map field is `depth` Any levels down (0: the root's own map). */
function text(keys: string[], depth: number): string {
  let inner = `"mString":${map(keys)}`;
  for (let d = 0; d < depth; d++) inner = d === 0 ? `"wktAny":{"@type":"${ALL_URL}",${inner}}` : `"wktAny":{"@type":"${ANY_URL}","value":{"@type":"${ALL_URL}",${inner}}}`;
  return `{${inner}}`;
}
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("maps inside Any content read from JSON", () => {
  test.each([0, 1, 2, 3])("%i Any levels down: deterministic bytes do not depend on the text's key order", (depth) => {
    const sorted = hex(det.toBinary(det.fromJsonString(text(["a", "b", "c"], depth), { registry })));
    for (const keys of [["c", "b", "a"], ["b", "a", "c"], ["a", "c", "b"]]) {
      expect(hex(det.toBinary(det.fromJsonString(text(keys, depth), { registry })))).toBe(sorted);
    }
  });

  test("a serializer that is not deterministic keeps the text's order, inside an Any too", () => {
    const ba = hex(plain.toBinary(plain.fromJsonString(text(["b", "a"], 1), { registry })));
    const ab = hex(plain.toBinary(plain.fromJsonString(text(["a", "b"], 1), { registry })));
    expect(ba).not.toBe(ab);
    // the same content: its JSON reads the same (equals compares an Any's bytes)
    const json = (h: string) => plain.toJsonString(plain.fromBinary(Buffer.from(h, "hex")), { registry });
    expect(JSON.parse(json(ba))).toEqual(JSON.parse(json(ab)));
  });
});
