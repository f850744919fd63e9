// ProtobufType.of({ fileDescriptorSet, messageName }) parses a set once for several types
// (src/descriptor/input.ts, registryOf): a hit needs the same bytes, not the same array; bytes
// changed in place are parsed again; failures are never kept; at most 4 sets are held.
import { describe, expect, test } from "vitest";
import { InvalidDescriptorError, ProtobufType } from "../src/index.js";
import { acme, messageOf, scalar, setBytes } from "./support/descriptors.js";

function setWith(messageName: string, fieldName = "id"): Uint8Array {
  return setBytes([acme({ name: "acme/one.proto", messageType: [{ name: messageName, field: [scalar(fieldName, 1)] }, { name: "Other", field: [scalar("x", 1)] }] })]);
}

const of = (fileDescriptorSet: Uint8Array, messageName: string) => ProtobufType.of({ fileDescriptorSet, messageName });

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidDescriptorError);
    return (e as InvalidDescriptorError).code;
  }
  throw new Error("did not throw");
}

describe("a file descriptor set is parsed once for several types", () => {
  test("the same bytes, in the same array or another, resolve to the same descriptors", () => {
    const bytes = setWith("CacheA");
    const a = of(bytes, "acme.CacheA");
    expect(of(bytes, "acme.CacheA").descriptor).toBe(a.descriptor);
    expect(of(bytes.slice(), "acme.CacheA").descriptor).toBe(a.descriptor);
    expect(of(bytes, "acme.Other").descriptor.file).toBe(a.descriptor.file);
    expect(of(bytes, "acme.CacheA").equals(a)).toBe(true);
  });

  test("bytes changed in place after a call are parsed again", () => {
    const bytes = setWith("CacheB", "aaaa");
    const before = of(bytes, "acme.CacheB");
    expect(before.descriptor.fields[0]!.name).toBe("aaaa");
    const at = Buffer.from(bytes).indexOf("aaaa");
    bytes.set([0x7a, 0x7a, 0x7a, 0x7a], at);
    const after = of(bytes, "acme.CacheB");
    expect(after.descriptor.fields[0]!.name).toBe("zzzz");
    expect(after.equals(before)).toBe(false);
    bytes.set([0x61, 0x61, 0x61, 0x61], at);
    expect(of(bytes, "acme.CacheB").descriptor.fields[0]!.name).toBe("aaaa");
  });

  test.each([
    ["bytes that do not decode", new Uint8Array([0x0a, 0xff]), "acme.X", "DESCRIPTOR_SET_INVALID"],
    ["a set without the message", setWith("CacheC"), "acme.Missing", "MESSAGE_NOT_FOUND"],
  ])("%s fail the same way every time (failures are not kept)", (_, bytes, name, code) => {
    expect(codeOf(() => of(bytes, name))).toBe(code);
    expect(codeOf(() => of(bytes, name))).toBe(code);
  });

  test("a set whose import is missing fails every time, and resolves once the import is there", () => {
    const main = acme({ name: "acme/main.proto", dependency: ["acme/dep.proto"], messageType: [{ name: "Main", field: [scalar("id", 1)] }] });
    const dep = acme({ name: "acme/dep.proto", messageType: [{ name: "Dep", field: [scalar("id", 1)] }] });
    const broken = setBytes([main]);
    expect(codeOf(() => of(broken, "acme.Main"))).toBe("UNRESOLVED_TYPE");
    expect(codeOf(() => of(broken, "acme.Main"))).toBe("UNRESOLVED_TYPE");
    expect(of(setBytes([dep, main]), "acme.Main").fullName).toBe("acme.Main");
  });

  test("at most four sets are held: the fifth set parsed evicts the least recently used", () => {
    const sets = ["E0", "E1", "E2", "E3", "E4"].map((n) => setWith(n));
    const first = of(sets[0]!, "acme.E0").descriptor;
    for (let i = 1; i < 4; i++) of(sets[i]!, `acme.E${i}`);
    expect(of(sets[0]!, "acme.E0").descriptor).toBe(first); // used last now
    of(sets[4]!, "acme.E4"); // evicts E1
    expect(of(sets[0]!, "acme.E0").descriptor).toBe(first);
    const e1 = of(sets[1]!, "acme.E1").descriptor; // parsed again
    expect(of(sets[1]!, "acme.E1").descriptor).toBe(e1);
  });

  test("a type built from a descriptor of another registry is not affected", () => {
    const bytes = setWith("CacheD");
    const own = messageOf([acme({ name: "acme/one.proto", messageType: [{ name: "CacheD", field: [scalar("id", 1)] }, { name: "Other", field: [scalar("x", 1)] }] })], "acme.CacheD");
    expect(of(bytes, "acme.CacheD").descriptor).not.toBe(own);
    expect(ProtobufType.of(own).equals(of(bytes, "acme.CacheD"))).toBe(true);
  });
});
