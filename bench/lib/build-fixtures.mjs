// The benchmark fixtures from a compiled registry: seeded content, the reference bytes and the
// probe inputs the checks use. Pure JavaScript (no Node API), so the same fixtures are built inside
// every runtime that `npm run bench:runtimes` measures; fixtures.mjs compiles the registry in Node.
import { create, createFileRegistry, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { countStrings, mapContent } from "./content.mjs";
import { classicContent, createRandom, DEFAULT_SEED, framesContent, nestedContent, numericContent, smallContent, spanContent } from "./generate.mjs";

/** Field numbers no fixture declares; the relay check appends them as unknown fields. */
export const UNKNOWN_FIELDS = [
  { number: 1000, wire: "varint", value: 42 },
  { number: 1001, wire: "len", value: "kept as unknown" },
];

/** The registry of a FileDescriptorSet (the bytes `buf build` wrote). */
export const registryOf = (fileDescriptorSet) => createFileRegistry(fromBinary(FileDescriptorSetSchema, fileDescriptorSet));

/** The @bufbuild/protobuf init form of neutral content. */
export const toEsInit = (desc, content) => mapContent(desc, content, { key: (f) => f.localName, long: (v) => v, oneof: "case" });

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function unknownTail() {
  const w = new BinaryWriter();
  for (const u of UNKNOWN_FIELDS) {
    if (u.wire === "varint") w.tag(u.number, WireType.Varint).uint32(u.value);
    else w.tag(u.number, WireType.LengthDelimited).string(u.value);
  }
  return w.finish();
}

const PLACEHOLDER = "@@not-utf8@@";

/** Content with its first string (depth-first, field order) replaced, or null when it has none. */
function replaceFirstString(desc, content, replacement) {
  for (const field of desc.fields) {
    const v = content[field.name];
    if (v === undefined || v === null) continue;
    const kind = field.fieldKind === "list" ? field.listKind : field.fieldKind;
    if (kind === "message") {
      const items = field.fieldKind === "list" ? v : [v];
      for (let i = 0; i < items.length; i++) {
        const sub = replaceFirstString(field.message, items[i], replacement);
        if (sub === null) continue;
        if (field.fieldKind !== "list") return { ...content, [field.name]: sub };
        const list = [...v];
        list[i] = sub;
        return { ...content, [field.name]: list };
      }
    } else if (field.scalar === 9 /* STRING */ && field.fieldKind === "scalar" && v !== "") {
      return { ...content, [field.name]: replacement };
    }
  }
  return null;
}

/** The reference bytes with one string's bytes overwritten by 0xff (never valid UTF-8), or null. */
function invalidUtf8(desc, content) {
  const marked = replaceFirstString(desc, content, PLACEHOLDER);
  if (marked === null) return null;
  const bytes = toBinary(desc, create(desc, toEsInit(desc, marked)));
  const needle = new TextEncoder().encode(PLACEHOLDER);
  outer: for (let i = 0; i + needle.length <= bytes.length; i++) {
    for (let j = 0; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer;
    bytes.fill(0xff, i, i + needle.length);
    return bytes;
  }
  throw new Error("bench fixtures: placeholder string not found in its encoding");
}

function messageFixture(registry, id, title, typeName, content) {
  const desc = registry.getMessage(typeName);
  if (desc === undefined) throw new Error(`bench fixtures: ${typeName} is missing from bench/fixtures`);
  const reference = create(desc, toEsInit(desc, content));
  const bytes = toBinary(desc, reference);
  return {
    id,
    title,
    kind: "message",
    typeName,
    desc,
    content,
    reference,
    bytes,
    withUnknown: concat([bytes, unknownTail()]),
    truncated: bytes.subarray(0, bytes.length - 1),
    invalidUtf8: invalidUtf8(desc, content),
    stats: { bytes: bytes.length, strings: countStrings(desc, content) },
  };
}

function framesFixture(registry, id, title, typeName, contents) {
  const desc = registry.getMessage(typeName);
  const references = contents.map((c) => create(desc, toEsInit(desc, c)));
  const w = new BinaryWriter();
  for (const m of references) w.bytes(toBinary(desc, m));
  const bytes = w.finish();
  const strings = contents.reduce((n, c) => n + countStrings(desc, c), 0);
  return { id, title, kind: "frames", typeName, desc, contents, references, bytes, count: contents.length, stats: { bytes: bytes.length, strings } };
}

/**
 * All fixtures, in table order. Each generator gets its own stream derived from the seed, so
 * changing one fixture does not change the others.
 */
export function buildFixtures(registry, seed = DEFAULT_SEED) {
  const rng = (salt) => createRandom((seed ^ Math.imul(salt, 0x9e3779b1)) >>> 0);
  return [
    messageFixture(registry, "small", "small message", "bench.Small", smallContent(rng(1))),
    messageFixture(registry, "classic", "classic small (protobufjs bench shape)", "bench.Classic", classicContent(rng(6))),
    messageFixture(registry, "span", "span batch (OpenTelemetry-like)", "bench.SpanBatch", spanContent(rng(2))),
    messageFixture(registry, "numeric", "numeric (packed)", "bench.Numeric", numericContent(rng(3))),
    messageFixture(registry, "nested", "nested (depth 80)", "bench.Node", nestedContent(rng(4))),
    framesFixture(registry, "frames", "1000 small frames", "bench.Small", framesContent(rng(5))),
  ];
}
