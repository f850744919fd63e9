// Hardening item 1 as a property: nothing a decode returns may alias a buffer that a later write
// reuses, and nothing user-visible may run or materialize inside a write's critical section.
// For any value — created, eager, lazy (a bare message of 4 KiB and more), nested lazy (lazy
// values placed inside a new value), aliased (`aliasThreshold` > 0: bytes fields are views into
// the input), decoded from frames or through a FrameReader, decoded by another descriptor
// instance or a serializer restored from a snapshot — and any writer (the same serializer,
// another instance of the schema, deterministic, aliasing, restored from a snapshot):
// - `decode(encode(v)).equals(v)` with a reader of v's descriptor instance;
// - @bufbuild/protobuf reads the output as the content v was decoded from;
// - v is unchanged afterwards: a deep copy of its content (taken from a twin decoded from its
//   own copy of the bytes, so that v stays lazy until the write) equals v's content after, and
//   every bytes field of an eager v is unchanged byte for byte;
// - the output itself is not changed by the writes that follow.
// Every non-aliased value's input buffer is overwritten right after the decode: only aliased
// values may depend on their input. Batches mix all of these in `encodeAll` (an array, a
// generator and array getters that decode and read other values while the batch is written)
// and in a FrameWriter through `serialize`.
import { create, createFileRegistry, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { DynamicMessage, FrameReader, FrameWriter, ProtobufType, readSnapshot, writeSnapshot, type ProtobufSerializer } from "../../src/index.js";
import { messageArb, type Sample } from "../support/arbitrary-message.js";
import { compileProtoText } from "../support/buf.js";
import { bytesIn, contentOf, esContent, frame, hex, isLazy, padWithUnknown, splitFrames } from "../support/differential.js";
import { check, trickyStrings } from "../support/property.js";

const PROTO = `
syntax = "proto3";
package alias;
message Leaf { bytes b = 1; string s = 2; repeated bytes bs = 3; map<string, bytes> mb = 4; }
message Root {
  bytes b = 1;
  optional bytes ob = 2;
  repeated bytes rb = 3;
  map<string, bytes> mb = 4;
  map<int32, Leaf> ml = 5;
  oneof pick { bytes cb = 6; Leaf cl = 7; string cs = 8; }
  Leaf leaf = 9;
  repeated Leaf leaves = 10;
  Root child = 11;
  repeated Root children = 12;
  string s = 13;
  sint64 n = 14;
  bytes pad = 15;
}
// Fields a later version added: Root readers keep them as unknown fields.
message Extra { bytes x = 100; Leaf xl = 101; repeated bytes xr = 102; string xs = 103; }
`;
const set = fromBinary(FileDescriptorSetSchema, compileProtoText({ "alias/alias.proto": PROTO }));
const Root = createFileRegistry(set).getMessage("alias.Root")!;
const Extra = createFileRegistry(set).getMessage("alias.Extra")!;
// Another instance of the same schema.
const RootB = createFileRegistry(set).getMessage("alias.Root")!;

const ser = ProtobufType.of(Root).createSerializer();
const serB = ProtobufType.of(RootB).createSerializer();
const det = ProtobufType.newBuilder(Root).deterministic(true).build().createSerializer();
const restored = readSnapshot(writeSnapshot(ser.snapshotConfiguration())).restoreSerializer();
const aliasing = (t: number) => ProtobufType.newBuilder(Root).aliasThreshold(t).build().createSerializer();
const aliasingWriter = aliasing(1);

const WRITERS: Record<string, ProtobufSerializer> = { same: ser, otherInstance: serB, deterministic: det, aliasing: aliasingWriter, restored };
/** A plain reader of each descriptor instance, for `decode(encode(v))`. */
const READERS = new Map<DescMessage, ProtobufSerializer>([[Root, ser], [RootB, serB], [restored.type.descriptor, restored]]);

const strings = trickyStrings({ long: false });
const rootArb = messageArb(Root, 2, { maxItems: 3, maxMapEntries: 3, strings });
const extraArb = fc.option(messageArb(Extra, 1, { maxItems: 2, maxMapEntries: 2, strings }), { freq: 2 });
/** Bytes of a pad field large enough to make the message lazy; small (or none) otherwise. */
const padArb = fc.constantFrom(0, 100, 4200, 9000);

interface Input {
  readonly root: Sample;
  readonly extra: Sample | null;
  readonly pad: number;
}
const inputArb: fc.Arbitrary<Input> = fc.record({ root: rootArb, extra: extraArb, pad: padArb });

/** The bare bytes of an input: the root's, then the later version's fields (unknown to Root). */
function bytesOf(x: Input): Uint8Array {
  const init = x.pad > 0 ? { ...x.root.es, pad: new Uint8Array(x.pad).fill(0xa5) } : x.root.es;
  const root = toBinary(Root, create(Root, init as never));
  const extra = x.extra === null ? new Uint8Array(0) : toBinary(Extra, create(Extra, x.extra.es as never));
  const out = new Uint8Array(root.length + extra.length);
  out.set(root);
  out.set(extra, root.length);
  return out;
}

/** A value made from an input: `inputs` are the buffers it was decoded from (overwritten later unless aliased). */
interface Made {
  readonly value: DynamicMessage;
  readonly inputs: Uint8Array[];
  readonly aliased: boolean;
  /** @bufbuild/protobuf's content of the value. */
  readonly want: string;
  readonly lazy: boolean;
}

const lazyBytes = (x: Input) => padWithUnknown(Root, bytesOf(x)).bytes;
// A serializer turns its large decodes eager while nearly every value it decodes is read
// (src/codec/reader.ts, LARGE_READ_MIN), which these runs do: the lazy sources decode with a new
// serializer of the same type each time, so that their values are lazy whatever ran before.
const fresh = (s: ProtobufSerializer) => s.type.createSerializer();

/** Each source makes a fresh value (from fresh copies of the bytes) every call. */
const SOURCES: Record<string, (x: Input) => Made> = {
  created: (x) => {
    const value = DynamicMessage.create(Root, x.pad > 0 ? { ...x.root.ours, pad: new Uint8Array(x.pad).fill(0xa5) } : x.root.ours);
    return { value, inputs: [], aliased: false, want: esContent(Root, bytesOf({ ...x, extra: null })), lazy: false };
  },
  eager: (x) => {
    const input = bytesOf({ ...x, pad: Math.min(x.pad, 100) });
    return { value: ser.fromBinary(input), inputs: [input], aliased: false, want: esContent(Root, input), lazy: false };
  },
  lazy: (x) => {
    const input = lazyBytes(x);
    return { value: fresh(ser).fromBinary(input), inputs: [input], aliased: false, want: esContent(Root, input), lazy: true };
  },
  nestedLazy: (x) => {
    const a = lazyBytes(x);
    const b = lazyBytes(x);
    const e = bytesOf({ ...x, pad: 0 });
    const child = fresh(ser).fromBinary(a);
    const value = DynamicMessage.create(Root, { child, children: [fresh(ser).fromBinary(b), ser.fromBinary(e), child], s: "outer" });
    const want = esContent(Root, toBinary(Root, create(Root, { child: fromBinary(Root, a), children: [fromBinary(Root, b), fromBinary(Root, e), fromBinary(Root, a)], s: "outer" })));
    return { value, inputs: [a, b, e], aliased: false, want, lazy: false };
  },
  aliased1: (x) => {
    const input = bytesOf(x);
    return { value: aliasing(1).fromBinary(input), inputs: [input], aliased: true, want: esContent(Root, input), lazy: false };
  },
  aliased16: (x) => {
    const input = lazyBytes(x);
    return { value: aliasing(16).fromBinary(input), inputs: [input], aliased: true, want: esContent(Root, input), lazy: false };
  },
  frames: (x) => {
    const body = bytesOf(x);
    const input = new Uint8Array([...frame(body), ...frame(lazyBytes(x))]);
    return { value: ser.decodeAll(input)[0]!, inputs: [input], aliased: false, want: esContent(Root, body), lazy: false };
  },
  frameReader: (x) => {
    const body = lazyBytes(x);
    const input = frame(body);
    return { value: fresh(ser).deserialize(new FrameReader(input)), inputs: [input], aliased: false, want: esContent(Root, body), lazy: true };
  },
  otherInstanceLazy: (x) => {
    const input = lazyBytes(x);
    return { value: fresh(serB).fromBinary(input), inputs: [input], aliased: false, want: esContent(Root, input), lazy: true };
  },
  restoredLazy: (x) => {
    const input = lazyBytes(x);
    return { value: fresh(restored).fromBinary(input), inputs: [input], aliased: false, want: esContent(Root, input), lazy: true };
  },
  restoredEager: (x) => {
    const input = bytesOf({ ...x, pad: 0 });
    return { value: restored.decode(frame(input)), inputs: [input], aliased: false, want: esContent(Root, input), lazy: false };
  },
};

/** A value ready to be written: its twin's content taken before, its bytes fields, its inputs overwritten. */
function prepare(source: string, x: Input) {
  const make = SOURCES[source]!;
  const before = contentOf(make(x).value);
  const made = make(x);
  expect(isLazy(made.value)).toBe(made.lazy);
  // Bytes fields of an eager value, by reference, with a copy of their content.
  // (Not for lazy values and values holding them: reading them would materialize them now.)
  const held = made.lazy || source === "nestedLazy" ? [] : bytesIn(made.value).map((b) => [b, hex(b)] as const);
  if (!made.aliased) for (const input of made.inputs) input.fill(0xee);
  return { ...made, before, held };
}

function expectUnchanged(p: ReturnType<typeof prepare>): void {
  expect(contentOf(p.value)).toEqual(p.before);
  for (const [b, was] of p.held) expect(hex(b)).toBe(was);
}

const sourceArb = fc.constantFrom(...Object.keys(SOURCES));
const writerArb = fc.constantFrom(...Object.keys(WRITERS));

describe("decode(encode(v)) equals v, and v is unchanged", () => {
  test("one value of every kind, through every writer and write method", () => {
    const methods = ["encode", "toBinary", "encodeAll", "serialize"] as const;
    check("aliasing, single", 220, inputArb, sourceArb, writerArb, fc.constantFrom(...methods), (x, source, writer, method) => {
      const p = prepare(source, x);
      const w = WRITERS[writer]!;
      let body: Uint8Array;
      let framed: Uint8Array;
      if (method === "toBinary") {
        body = w.toBinary(p.value);
        framed = frame(body);
      } else {
        if (method === "encode") framed = w.encode(p.value);
        else if (method === "encodeAll") framed = w.encodeAll([p.value]);
        else {
          const fw = new FrameWriter(16);
          w.serialize(p.value, fw);
          framed = fw.view();
        }
        body = splitFrames(framed)[0]!;
      }
      const outCopy = hex(body);
      const reader = READERS.get(p.value.descriptor)!;
      expect(reader.decode(framed).equals(p.value)).toBe(true);
      expect(esContent(Root, body)).toBe(p.want);
      expectUnchanged(p);
      // Later writes and decodes leave the output and the value as they were.
      const again = prepare(source, x);
      w.encodeAll([again.value, p.value, again.value]);
      w.toBinary(again.value);
      reader.fromBinary(lazyBytes(x)).get("b");
      expect(hex(body)).toBe(outCopy);
      expectUnchanged(p);
      expectUnchanged(again);
    });
  });
});

describe("batches of mixed values", () => {
  const modes = ["array", "generator", "getters", "frameWriter"] as const;
  test("encodeAll of an array, a generator and array getters that decode while the batch is written; serialize into a FrameWriter", () => {
    const itemArb = fc.tuple(inputArb, sourceArb);
    check("aliasing, batches", 80, fc.array(itemArb, { minLength: 2, maxLength: 6 }), writerArb, fc.constantFrom(...modes), (items, writer, mode) => {
      const w = WRITERS[writer]!;
      const prepared = items.map(([x, source]) => prepare(source, x));
      const values = prepared.map((p) => p.value);
      // User code that runs between the values of a batch: decodes (lazily) and reads other values.
      const sideDecodes: DynamicMessage[] = [];
      const meddle = (i: number) => {
        const [x] = items[i]!;
        const other = ser.fromBinary(lazyBytes(x));
        other.get("b");
        contentOf(other);
        sideDecodes.push(ser.fromBinary(lazyBytes(x)), aliasing(1).fromBinary(bytesOf(x)));
        contentOf(sideDecodes[sideDecodes.length - 1]!);
      };
      let out: Uint8Array;
      if (mode === "array") out = w.encodeAll(values);
      else if (mode === "generator") {
        out = w.encodeAll(
          (function* () {
            for (let i = 0; i < values.length; i++) {
              meddle(i);
              yield values[i]!;
            }
          })(),
        );
      } else if (mode === "getters") {
        const arr: DynamicMessage[] = [];
        values.forEach((v, i) =>
          Object.defineProperty(arr, i, {
            enumerable: true,
            get() {
              meddle(i);
              return v;
            },
          }),
        );
        out = w.encodeAll(arr);
      } else {
        const fw = new FrameWriter(8);
        for (let i = 0; i < values.length; i++) {
          w.serialize(values[i]!, fw);
          meddle(i);
        }
        out = fw.view();
      }
      const bodies = splitFrames(out);
      expect(bodies.map((b) => esContent(Root, b))).toEqual(prepared.map((p) => p.want));
      const back = ser.decodeAll(out);
      back.forEach((d, i) => expect(contentOf(d)).toEqual(contentOf(values[i]!)));
      values.forEach((v, i) => expect(READERS.get(v.descriptor)!.fromBinary(bodies[i]!).equals(v)).toBe(true));
      prepared.forEach(expectUnchanged);
    });
  });
});
