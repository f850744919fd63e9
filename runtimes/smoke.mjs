// The public-API smoke suite that runs against the packed tarball in every runtime (Node ESM and
// CJS, Deno, Bun, workerd, Chromium; runtimes/run.mjs). Plain JavaScript that any of them runs
// unchanged: it gets the package's exports from the harness (import, require or a bundle) and
// uses nothing else — no Node API, no file system, no other package.
import { descriptorSets } from "./descriptor-sets.mjs";

/**
 * Runs every check against `pk` (the package's exports) and returns
 * `{ passed, failed, checks: [{ name, ok, message? }] }`. It never throws: a failed check is a row.
 */
export async function runSmoke(pk) {
  const checks = [];
  const ctx = setup(pk);
  for (const [name, check] of Object.entries(CHECKS)) {
    try {
      await check(pk, ctx);
      checks.push({ name, ok: true });
    } catch (e) {
      checks.push({ name, ok: false, message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
    }
  }
  const passed = checks.filter((c) => c.ok).length;
  return { passed, failed: checks.length - passed, checks };
}

function setup(pk) {
  const v1 = { fileDescriptorSet: fromBase64(descriptorSets.v1), messageName: "smoke.Order" };
  const v2 = { fileDescriptorSet: fromBase64(descriptorSets.v2), messageName: "smoke.Order" };
  return { v1, v2, type: pk.ProtobufType.of(v1) };
}

const ORDER = { id: 7n, items: [{ sku: "a", qty: 2 }], labels: { region: "eu" }, card: "4242", blob: new Uint8Array([1, 2, 3]) };

const CHECKS = {
  "ProtobufType from a FileDescriptorSet"(pk, { v1, type }) {
    eq(type.fullName, "smoke.Order");
    eq(type.kind, "dynamic");
    ok(/^[0-9a-f]{64}$/.test(type.fingerprint()), `fingerprint ${type.fingerprint()}`);
    ok(type.equals(pk.ProtobufType.of(v1)), "two types of the same schema are equal");
    ok(type.equals(pk.ProtobufType.fromBytes(type.toBytes())), "the transfer form gives an equal type");
  },

  "create, encode and decode a message"(pk, { type }) {
    const ser = type.createSerializer();
    const order = pk.DynamicMessage.create(type.descriptor, ORDER);
    const back = ser.decode(ser.encode(order));
    ok(back.equals(order), "decode(encode(order)) equals order");
    eq(back.get("id"), 7n);
    eq(back.get("card"), "4242");
    eq(back.has("note"), false);
    eq(back.get("items")[0].get("qty"), 2);
    eq(back.get("labels").get("region"), "eu");
    eq(hex(back.get("blob")), "010203");
    eq(hex(ser.toBinary(pk.DynamicMessage.create(type.descriptor, { id: 1n }))), "0801");
    eq(ser.fromBinary(ser.toBinary(order)).equals(order), true);
    eq(ser.decodeAll(ser.encodeAll([order, order])).length, 2);
    eq(json(back.toObject()), json({ id: 7n, items: [{ sku: "a", qty: 2 }], labels: { region: "eu" }, card: "4242", blob: new Uint8Array([1, 2, 3]) }));
  },

  "strings of every length around the runtime's string paths read back exactly"(pk, { type }) {
    // Short ASCII strings are built in JavaScript where the runtime has no Buffer latin1Slice
    // (browsers), longer ones and non-ASCII ones otherwise: every length from 0 to
    // 300 crosses those limits, bare (read in TypeScript under 256 bytes, by the core above) and
    // framed in a batch. Every ASCII code (NUL included), then é, U+FEFF and an astral character.
    const ser = type.createSerializer();
    const ascii = (n, k) => Array.from({ length: n }, (_, i) => String.fromCharCode((i * 7 + k) % 128)).join("");
    const strings = [];
    for (let n = 0; n <= 300; n++) strings.push(ascii(n, n));
    for (const n of [1, 2, 31, 32, 63, 64, 65, 100]) strings.push("é" + ascii(n, 3), ascii(n, 5) + "\ufeff", "😀" + ascii(n, 9));
    for (const s of strings) {
      const order = pk.DynamicMessage.create(type.descriptor, { card: s, labels: { [s]: s } });
      const back = ser.fromBinary(ser.toBinary(order));
      eq(back.get("card"), s);
      eq(back.get("labels").get(s), s);
    }
    const batch = ser.decodeAll(ser.encodeAll(strings.map((s) => pk.DynamicMessage.create(type.descriptor, { card: s }))));
    batch.forEach((v, i) => eq(v.get("card"), strings[i]));
  },

  "encode from a plain init object: the built value's bytes, create's errors"(pk, { type }) {
    // The write methods walk an init object directly (no DynamicMessage built), falling back to
    // the dynamic writer when they refuse it: both paths, in every runtime.
    const ser = type.createSerializer();
    const built = (init) => pk.DynamicMessage.create(type.descriptor, init);
    const inits = [ORDER, { id: 1n }, {}, { id: -1n, note: "", iban: "x" }, { items: [{}, { qty: -1 }], labels: { "": "", "é": "😀" } }];
    // Strings around the writer's short-string bound (43 units), non-ASCII, a leading U+FEFF.
    for (const s of ["", "x".repeat(42), "x".repeat(43), "é".repeat(21), "é".repeat(22), "😀".repeat(30), "\ufeff" + "a".repeat(300)]) {
      inits.push({ card: s, items: [{ sku: s }, { sku: s, qty: 3 }], labels: { [s]: s } });
    }
    for (const init of inits) {
      eq(hex(ser.toBinary(init)), hex(ser.toBinary(built(init))));
      eq(hex(ser.encode(init)), hex(ser.encode(built(init))));
    }
    eq(hex(ser.encodeAll(inits)), hex(ser.encodeAll(inits.map(built))));
    // A DynamicMessage inside an init object: written by the fallback.
    const item = pk.DynamicMessage.create(type.descriptor.fields[1].message, { sku: "b" });
    eq(hex(ser.toBinary({ ...ORDER, items: [{ sku: "a" }, item] })), hex(ser.toBinary(built({ ...ORDER, items: [{ sku: "a" }, { sku: "b" }] }))));
    for (const bad of [{ id: 7n, nope: 1 }, { card: "a", iban: "b" }, { items: [{ qty: 2 ** 31 }] }, { card: "a\ud800" }, { id: 2n ** 63n }, { blob: [1, 2] }]) {
      const direct = thrown(() => ser.toBinary(bad));
      eq(direct.message, thrown(() => built(bad)).message);
      eq(thrown(() => ser.encodeAll([ORDER, bad])).message, direct.message);
    }
  },

  "64-bit integers: every kind at every range boundary, exact bits on each read and write path"(pk, { v1 }) {
    // JavaScriptCore reads and writes 64-bit integers through DataView, V8 through typed-array
    // elements (src/int64-access.ts): the bytes must be the protobuf encoding (computed here with
    // bigint arithmetic) and the values the same bigints, bare (under 256 bytes: the TypeScript
    // reader), long (the core's tape; over 4 KiB: the lazy path), framed, and the generated kind.
    const type = pk.ProtobufType.of({ ...v1, messageName: "smoke.Numbers64" });
    const ser = type.createSerializer();
    const gen = pk.ProtobufType.ofGenerated(type.descriptor).createSerializer();
    const signed = [0n, 1n, -1n, 127n, 128n, 2n ** 31n, -(2n ** 31n) - 1n, 2n ** 32n, 2n ** 53n - 1n, -(2n ** 53n), 2n ** 62n, 2n ** 63n - 1n, -(2n ** 63n)];
    const unsigned = [0n, 1n, 128n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n, 2n ** 63n, 2n ** 64n - 1n];
    const KINDS = [["a", "ra", "varint", signed], ["b", "rb", "zigzag", signed], ["c", "rc", "fixed", signed], ["d", "rd", "varint", unsigned], ["e", "re", "fixed", unsigned]];
    for (const times of [0, 1, 12, 60]) {
      const init = {};
      const singular = [];
      const packed = [];
      KINDS.forEach(([one, many, enc, values], i) => {
        init[one] = values[values.length - 1];
        singular.push(...int64Field(i + 1, enc, [init[one]], false));
        init[many] = Array.from({ length: times }, () => values).flat();
        packed.push(...int64Field(i + 6, enc, init[many], true));
      });
      const want = [...singular, ...packed];
      const bytes = ser.toBinary(init);
      eq(hex(bytes), hex(new Uint8Array(want)));
      eq(hex(ser.toBinary(pk.DynamicMessage.create(type.descriptor, init))), hex(bytes));
      const back = ser.fromBinary(bytes);
      const esBack = gen.fromBinary(bytes);
      for (const [one, many] of KINDS) {
        eq(back.get(one), init[one]);
        eq(esBack[one], init[one]);
        eq(json(back.get(many)), json(init[many]));
        eq(json(esBack[many]), json(init[many]));
      }
      eq(hex(ser.toBinary(back)), hex(bytes));
      eq(hex(gen.toBinary(esBack)), hex(bytes));
      const frames = ser.decodeAll(ser.encodeAll([init, init]));
      eq(json(frames[1].toObject()), json(back.toObject()));
    }
  },

  "relay keeps unknown fields byte for byte"(pk, { type }) {
    const ser = type.createSerializer();
    const bare = ser.toBinary(pk.DynamicMessage.create(type.descriptor, ORDER));
    // field 100, varint 1: a field this schema does not declare
    const withUnknown = concat(bare, new Uint8Array([0xa0, 0x06, 0x01]));
    const relayed = ser.fromBinary(withUnknown);
    ok(relayed.unknownFields.has(100), "the unknown field is kept");
    eq(hex(ser.toBinary(relayed)), hex(withUnknown));
  },

  "evaluateSchemaChange finds the incompatible change"(pk, { v1, v2 }) {
    const result = pk.evaluateSchemaChange(v1, v2);
    eq(result.compatible, false);
    eq(result.incompatibilities[0].rule, "FIELD_TYPE_CHANGED");
    eq(result.incompatibilities[0].path, "smoke.Order.items(2).qty(2)");
    ok(pk.formatFindings(result).startsWith("incompatible: 1 incompatibility"), pk.formatFindings(result));
    eq(pk.evaluateSchemaChange(v1, v1).compatible, true);
  },

  "snapshot: write, read, restore, resolve"(pk, { v2, type }) {
    const ser = type.createSerializer();
    const frame = ser.encode(pk.DynamicMessage.create(type.descriptor, ORDER));
    const bytes = pk.writeSnapshot(ser.snapshotConfiguration());
    const saved = pk.readSnapshot(bytes);
    const restored = saved.restoreSerializer();
    eq(json(restored.decode(frame).toObject()), json(ser.decode(frame).toObject()));
    eq(hex(pk.writeSnapshot(restored.snapshotConfiguration())), hex(bytes));
    eq(ser.snapshotConfiguration().resolveSchemaCompatibility(saved).kind, "compatibleAsIs");
    const current = pk.ProtobufType.of(v2).createSerializer();
    eq(current.snapshotConfiguration().resolveSchemaCompatibility(saved).kind, "incompatible");
  },

  "ProtoJSON: toJson, fromJson, text, unknown properties"(pk, { type }) {
    const ser = type.createSerializer();
    const order = pk.DynamicMessage.create(type.descriptor, ORDER);
    const text = ser.toJsonString(order);
    eq(text, JSON.stringify(order));
    ok(ser.fromJsonString(text).equals(order), "fromJsonString(toJsonString(order)) equals order");
    eq(ser.toJson(order).id, "7");
    eq(ser.toJson(order).blob, "AQID");
    eq(thrown(() => ser.fromJson({ nope: 1 })).code, "JSON_UNKNOWN_FIELD");
    eq(ser.fromJson({ nope: 1, id: "3" }, { ignoreUnknownFields: true }).get("id"), 3n);
    eq(pk.evaluateSchemaChange(type.descriptor, type.descriptor, { boundary: "binary+json" }).compatible, true);
  },

  async "streams: encodeStream into decodeStream, 1-byte chunks"(pk, { type }) {
    const ser = type.createSerializer();
    const values = [ORDER, { id: 8n }];
    const source = new ReadableStream({
      start(c) {
        for (const v of values) c.enqueue(v);
        c.close();
      },
    });
    const ids = [];
    for await (const v of ser.decodeStream(source.pipeThrough(ser.encodeStream()))) ids.push(v.get("id"));
    eq(ids.join(","), "7,8");
    const bytes = ser.encodeAll(values);
    async function* ones() {
      for (const b of bytes) yield Uint8Array.of(b);
    }
    let n = 0;
    for await (const v of ser.decodeStream(ones())) n += v.get("id") > 0n ? 1 : 0;
    eq(n, 2);
  },

  "generated kind: protobuf-es message objects, small and large"(pk, { type }) {
    // The type's descriptor is a @bufbuild/protobuf DescMessage, as generated code's schema is.
    const gen = pk.ProtobufType.ofGenerated(type.descriptor);
    eq(gen.kind, "generated");
    const ser = gen.createSerializer();
    const dyn = type.createSerializer();
    // Under 256 bytes: the TypeScript reader of small messages; the 400-byte note: the WASM path.
    for (const note of [undefined, "n".repeat(400)]) {
      const bytes = dyn.toBinary(pk.DynamicMessage.create(type.descriptor, { ...ORDER, note }));
      const o = ser.fromBinary(bytes);
      eq(o.$typeName, "smoke.Order");
      eq(o.id, 7n);
      eq(o.items[0].$typeName, "smoke.Item");
      eq(o.items[0].qty, 2);
      eq(o.labels.region, "eu");
      eq(o.payment.case, "card");
      eq(o.payment.value, "4242");
      eq(hex(o.blob), "010203");
      eq(o.note, note);
      eq(hex(ser.toBinary(o)), hex(bytes));
      eq(hex(ser.encode(ser.decode(ser.encode(o)))), hex(ser.encode(o)));
    }
    eq(thrown(() => ser.fromBinary(new Uint8Array([0x12, 0x05, 0x01]))).code, "LENGTH_PAST_END");
  },

  "a wide type: values hold the fields they set"(pk) {
    // 1,200 members of one oneof and 1,100 one-member oneofs: past the width where values hold
    // only their set fields (message/values.ts), which relies on how the engine stores sparse arrays.
    const type = pk.ProtobufType.of({ fileDescriptorSet: wideSet(1200, 1100), messageName: "wide.Batch" });
    const ser = type.createSerializer();
    const init = { items: Array.from({ length: 300 }, (_, i) => ({ [`m${1200 - (i % 7)}`]: i + 1, [`p${1 + (i % 1100)}`]: "p", [`p${1100 - (i % 3)}`]: "q" })) };
    const m = pk.DynamicMessage.create(type.descriptor, init);
    const bytes = ser.toBinary(m);
    eq(hex(ser.toBinary(init)), hex(bytes));
    const back = ser.fromBinary(bytes);
    ok(back.equals(m) && m.equals(back), "read back equals the value");
    const third = back.get("items")[2];
    eq(third.whichOneof("pick"), "m1198");
    eq(third.get("m1198"), 3);
    eq(third.has("m1200"), false);
    eq(Object.keys(third.toObject()).join(), "m1198,p3,p1098");
    eq(JSON.stringify(ser.toJson(m).items[2]), '{"m1198":3,"p3":"p","p1098":"q"}');
    ok(ser.fromJson(ser.toJson(m)).equals(m), "fromJson(toJson(value)) equals the value");
    const changed = third.toBuilder().set("m1", 9).build();
    eq(changed.whichOneof("pick"), "m1");
    eq(changed.has("m1198"), false);
    // Last member wins across the oneof: m5, then m1200, then m7 on the wire.
    const wide = type.descriptor.fields[0].message;
    const w = pk.ProtobufType.of(wide).createSerializer();
    const three = [{ m5: 5 }, { m1200: 1 }, { m7: 7 }].map((x) => Array.from(w.toBinary(x)));
    eq(w.fromBinary(new Uint8Array(three.flat())).whichOneof("pick"), "m7");
  },

  "typed errors carry a stable code"(pk, { v1, type }) {
    const ser = type.createSerializer();
    // field 2 (items) announces 5 bytes and has 1
    const codec = thrown(() => ser.fromBinary(new Uint8Array([0x12, 0x05, 0x01])));
    ok(codec instanceof pk.CodecError && codec instanceof pk.ProtokeelError, `a CodecError, got ${codec?.name}`);
    eq(codec.code, "LENGTH_PAST_END");
    eq(pk.isProtokeelError(codec), true);
    const missing = thrown(() => pk.ProtobufType.of({ ...v1, messageName: "smoke.Missing" }));
    ok(missing instanceof pk.InvalidDescriptorError, `an InvalidDescriptorError, got ${missing?.name}`);
    eq(missing.code, "MESSAGE_NOT_FOUND");
    const snapshot = thrown(() => pk.readSnapshot(new Uint8Array([1, 2, 3, 4, 5])));
    ok(snapshot instanceof pk.SnapshotFormatError, `a SnapshotFormatError, got ${snapshot?.name}`);
    eq(snapshot.code, "SNAPSHOT_BAD_MAGIC");
  },
};

/**
 * FileDescriptorSet bytes of package `wide`: message Wide (oneof pick of int32 m1..m<members>,
 * then strings p1..p<oneofs>, each alone in a oneof) and Batch (repeated Wide items = 1). Encoded
 * by hand: the suite imports nothing but the package.
 */
function wideSet(members, oneofs) {
  const out = [];
  const varint = (v) => pushVarint(out, v);
  const text = (s) => Array.from(s, (c) => c.charCodeAt(0));
  // A length-delimited field whose body `fill` writes.
  const len = (no, fill) => {
    const start = out.length;
    fill();
    const body = out.splice(start);
    varint(no * 8 + 2);
    varint(body.length);
    for (const b of body) out.push(b);
  };
  const str = (no, s) => len(no, () => out.push(...text(s)));
  const int = (no, v) => {
    varint(no * 8);
    varint(v);
  };
  const field = (name, number, label, type, typeName, oneof) =>
    len(2, () => {
      str(1, name);
      int(3, number);
      int(4, label);
      int(5, type);
      if (typeName !== undefined) str(6, typeName);
      if (oneof !== undefined) int(9, oneof);
      str(10, name);
    });
  len(1, () => {
    str(1, "wide.proto");
    str(2, "wide");
    len(4, () => {
      str(1, "Wide");
      for (let i = 1; i <= members; i++) field(`m${i}`, i, 1, 5, undefined, 0);
      for (let i = 1; i <= oneofs; i++) field(`p${i}`, 5000 + i, 1, 9, undefined, i);
      for (let i = 0; i <= oneofs; i++) len(8, () => str(1, i === 0 ? "pick" : `q${i}`));
    });
    len(4, () => {
      str(1, "Batch");
      field("items", 1, 3, 11, ".wide.Wide", undefined);
    });
    str(12, "proto3");
  });
  return new Uint8Array(out);
}

/** A 64-bit field's encoding (`enc`: varint, zigzag or fixed), packed when `packed`, with bigint arithmetic only. */
function int64Field(no, enc, values, packed) {
  const body = [];
  for (const v of values) {
    let u = BigInt.asUintN(64, enc === "zigzag" ? (v << 1n) ^ (v >> 63n) : v);
    if (enc === "fixed") for (let i = 0; i < 8; i++, u >>= 8n) body.push(Number(u & 0xffn));
    else {
      for (; u > 0x7fn; u >>= 7n) body.push(Number(u & 0x7fn) | 0x80);
      body.push(Number(u));
    }
  }
  if (!packed) return values[0] === 0n ? [] : [(no << 3) | (enc === "fixed" ? 1 : 0), ...body];
  if (body.length === 0) return [];
  const out = [(no << 3) | 2];
  pushVarint(out, body.length);
  return [...out, ...body];
}

/** Appends the varint of a non-negative integer number to `out`. */
function pushVarint(out, v) {
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

function thrown(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected an error, none was thrown");
}

function ok(cond, what) {
  if (!cond) throw new Error(`expected: ${what}`);
}

function eq(actual, expected) {
  if (actual !== expected) throw new Error(`expected ${show(expected)}, got ${show(actual)}`);
}

const show = (v) => (typeof v === "bigint" ? `${v}n` : typeof v === "string" ? JSON.stringify(v) : String(v));

/** JSON with bigint as "7n" and bytes as hex, to compare plain objects. */
const json = (v) => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x instanceof Uint8Array ? hex(x) : x));

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function fromBase64(text) {
  const bin = atob(text);
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
