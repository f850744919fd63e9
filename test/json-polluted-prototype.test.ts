// ProtoJSON with Object.prototype polluted (an enumerable property added to it, as a prototype
// pollution does): a parsed value's inherited "@type" is not the type URL of an Any (it made every
// Any object without one read as the polluted type), and nothing polluted is read as data.
import { describe, expect, test } from "vitest";
import { CodecError, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { pollute, polluting } from "./support/pollute.js";
import { thrown } from "./support/thrown.js";

polluting();

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const LEAF_URL = "type.googleapis.com/alltypes.Leaf";

describe('an inherited "@type"', () => {
  test("an Any object without its own is refused as one without a type URL", () => {
    pollute("@type", LEAF_URL);
    const e = thrown(() => ser.fromJson({ wktAny: { name: "x" } }, { registry }));
    expect(e).toBeInstanceOf(CodecError);
    expect((e as CodecError).code).toBe("JSON_INVALID_VALUE");
    expect((e as CodecError).path).toBe("alltypes.AllTypes.wkt_any(143)");
    expect((e as CodecError).message).toContain('expects a google.protobuf.Any with "@type", a type URL such as "type.googleapis.com/acme.Order"');
  });

  test("an Any object with its own reads as that type, and an empty one as the empty Any", () => {
    pollute("@type", "type.googleapis.com/alltypes.AllTypes");
    const v = ser.fromJson({ wktAny: { "@type": LEAF_URL, name: "x" }, fInt32: 1 }, { registry });
    expect(ser.toJsonString(v, { registry })).toBe(`{"fInt32":1,"wktAny":{"@type":"${LEAF_URL}","name":"x"}}`);
    expect(ser.toJsonString(ser.fromJson({ wktAny: {} }, { registry }), { registry })).toBe('{"wktAny":{}}');
  });
});
