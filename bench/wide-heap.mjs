// Heap held per decoded element of a repeated message field whose type has W fields, each element
// with one int32 set (its last field: 4-5 bytes of input an element), for protokeel (both kinds),
// @bufbuild/protobuf and protobufjs (README, "Memory"). Each measurement runs in a process of its
// own (an engine that runs out of heap takes only that cell down), after a full GC before and
// after the decode. Run after `npm run build`:
//
//   node bench/wide-heap.mjs [--elements N] [--widths 5,20,100,1000]
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const LIBS = ["protokeel", "protokeel (generated kind)", "@bufbuild/protobuf", "protobufjs"];

/** FileDescriptorSet bytes of package w: Wide (int32 f1..fW) and Batch (repeated Wide items = 1). */
async function wideSet(width) {
  const { create, toBinary } = await import("@bufbuild/protobuf");
  const { FieldDescriptorProto_Label: L, FieldDescriptorProto_Type: T, FileDescriptorProtoSchema, FileDescriptorSetSchema } = await import("@bufbuild/protobuf/wkt");
  const field = Array.from({ length: width }, (_, i) => ({ name: `f${i + 1}`, number: i + 1, type: T.INT32, label: L.OPTIONAL, jsonName: `f${i + 1}` }));
  const items = { name: "items", number: 1, type: T.MESSAGE, typeName: ".w.Wide", label: L.REPEATED, jsonName: "items" };
  const file = create(FileDescriptorProtoSchema, { name: "w.proto", package: "w", syntax: "proto3", messageType: [{ name: "Wide", field }, { name: "Batch", field: [items] }] });
  return toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: [file] }));
}

/** `count` elements of items, each holding field `width` = 5. */
function input(width, count) {
  const tag = [];
  for (let t = width * 8; ; t >>>= 7) {
    if (t < 128) {
      tag.push(t);
      break;
    }
    tag.push((t & 127) | 128);
  }
  const element = [0x0a, tag.length + 1, ...tag, 5];
  const out = new Uint8Array(count * element.length);
  for (let i = 0; i < count; i++) out.set(element, i * element.length);
  return out;
}

/** A decode function of `lib` for the Batch of `width` fields. */
async function decoderOf(lib, width) {
  const set = await wideSet(width);
  if (lib === "protokeel") {
    const { ProtobufType } = await import("../dist/index.js");
    const ser = ProtobufType.newBuilder({ fileDescriptorSet: set, messageName: "w.Batch" }).maxMessageBytes(2 ** 30).build().createSerializer();
    // Reading a field builds a lazily decoded value's tree.
    return (bytes) => ser.fromBinary(bytes).get("items");
  }
  if (lib !== "protobufjs") {
    const { createFileRegistry, fromBinary } = await import("@bufbuild/protobuf");
    const { FileDescriptorSetSchema } = await import("@bufbuild/protobuf/wkt");
    const batch = createFileRegistry(fromBinary(FileDescriptorSetSchema, set)).getMessage("w.Batch");
    if (lib === "@bufbuild/protobuf") return (bytes) => fromBinary(batch, bytes);
    // protobuf-es message objects, as generated code's schema gives them.
    const { ProtobufType } = await import("../dist/index.js");
    const ser = ProtobufType.newGeneratedBuilder(batch).maxMessageBytes(2 ** 30).build().createSerializer();
    return (bytes) => ser.fromBinary(bytes);
  }
  const { default: protobuf } = await import("protobufjs");
  const root = new protobuf.Root();
  const wide = new protobuf.Type("Wide");
  for (let i = 1; i <= width; i++) wide.add(new protobuf.Field(`f${i}`, i, "int32"));
  root.add(wide);
  root.add(new protobuf.Type("Batch").add(new protobuf.Field("items", 1, "Wide", "repeated")));
  const type = root.lookupType("Batch");
  return (bytes) => type.decode(bytes);
}

/** Child process: prints the heap bytes per element that one decode keeps. */
async function measure(lib, width, count) {
  const decode = await decoderOf(lib, width);
  const bytes = input(width, count);
  decode(input(width, 10));
  globalThis.gc();
  globalThis.gc();
  const before = process.memoryUsage().heapUsed;
  const kept = decode(bytes);
  globalThis.gc();
  globalThis.gc();
  const after = process.memoryUsage().heapUsed;
  if (kept === undefined) throw new Error("nothing decoded");
  process.stdout.write(`${(after - before) / count} ${bytes.length / count}\n`);
}

const { values } = parseArgs({ options: { elements: { type: "string", default: "100000" }, widths: { type: "string", default: "5,20,100,1000" }, child: { type: "string" } } });
const count = Number(values.elements);
if (values.child !== undefined) {
  const [lib, width] = values.child.split(":");
  await measure(lib, Number(width), count);
} else {
  console.log(`heap per decoded element, ${count} elements of one int32 each (Node ${process.versions.node}); ratio = heap / input bytes`);
  console.log(["fields", ...LIBS].join(" | "));
  for (const width of values.widths.split(",").map(Number)) {
    const row = [String(width)];
    for (const lib of LIBS) {
      const r = spawnSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--elements", String(count), "--child", `${lib}:${width}`], { encoding: "utf8" });
      if (r.status !== 0) {
        row.push(/heap out of memory/.test(r.stderr) ? "out of memory" : `failed (exit ${r.status})`);
        continue;
      }
      const [perElement, inputPer] = r.stdout.trim().split(" ").map(Number);
      row.push(`${Math.round(perElement)} B (${Math.round(perElement / inputPer)}×)`);
    }
    console.log(row.join(" | "));
  }
}
