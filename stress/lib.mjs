// Shared helpers for the growth sweeps: every family reaches protokeel through the built package.
import protobuf from "protobufjs";
import * as pk from "../dist/index.js";
import { denseNumber } from "./schemas.mjs";

export { pk };

/** A ProtobufType for `message` of the proto3 source `text` (protobufjs keeps proto names). */
export function typeOf(text, message, settings = {}) {
  const root = protobuf.parse(text, { keepCase: true }).root;
  let b = pk.ProtobufType.newBuilder(root.lookupType(message));
  for (const [k, v] of Object.entries(settings)) b = b[k](v);
  return b.build();
}

/** Appends a varint to an array of bytes. */
export function pushVarint(out, v) {
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/** `count` copies of `unit` back to back. */
export function repeatBytes(unit, count) {
  const out = new Uint8Array(unit.length * count);
  for (let i = 0; i < count; i++) out.set(unit, i * unit.length);
  return out;
}

import { create, createFileRegistry, fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

/** FieldDescriptorProto.Type and Label numbers. */
export const T = { DOUBLE: 1, FLOAT: 2, INT64: 3, UINT64: 4, INT32: 5, BOOL: 8, STRING: 9, MESSAGE: 11, BYTES: 12, SINT64: 18 };
export const L = { OPTIONAL: 1, REPEATED: 3 };

/** FileDescriptorSet bytes of proto3 files given as FileDescriptorProto inits (package "s"). */
export function setOf(files) {
  return toBinary(
    FileDescriptorSetSchema,
    create(FileDescriptorSetSchema, { file: files.map((f) => create(FileDescriptorProtoSchema, { syntax: "proto3", package: "s", ...f })) }),
  );
}

/** The message `name` of a new registry over a FileDescriptorSet (bytes). */
export function messageIn(setBytes, name) {
  const reg = createFileRegistry(fromSetBytes(setBytes));
  return reg.getMessage(name);
}

function fromSetBytes(b) {
  return fromBinary(FileDescriptorSetSchema, b);
}

/** Field number `i` (1-based) of a wide type, stepping over 19000..19999 (reserved by protobuf). */
export const wideNumber = (i) => denseNumber(i - 1);

/**
 * FileDescriptorSet bytes of `s.Wide`, whose oneof `pick` has k int32 members m1..mk (numbers
 * wideNumber(i)), and `s.Batch { repeated s.Wide items = 1 }`.
 */
export function wideOneofSet(k) {
  const field = [];
  for (let i = 1; i <= k; i++) field.push({ name: `m${i}`, number: wideNumber(i), label: L.OPTIONAL, type: T.INT32, oneofIndex: 0 });
  return setOf([
    {
      name: "w.proto",
      messageType: [
        { name: "Wide", field, oneofDecl: [{ name: "pick" }] },
        { name: "Batch", field: [{ name: "items", number: 1, label: L.REPEATED, type: T.MESSAGE, typeName: ".s.Wide" }] },
      ],
    },
  ]);
}

/** Bytes of `count` varints, each `tag` then `value`. */
export function varintFields(tag, value, count) {
  const unit = [];
  pushVarint(unit, tag);
  pushVarint(unit, value);
  return repeatBytes(Uint8Array.from(unit), count);
}

/**
 * Runs one evaluation of `[saved, current]` untimed and returns the pair. An evaluation at 1e4
 * takes tens of ms, so the runner times it once; cold (before the JIT optimized the walk) that
 * one run measured up to 7x a warm one and failed steps with x99 that were x8 warm.
 */
export function warm(pair) {
  pk.evaluateSchemaChange(pair[0], pair[1]);
  return pair;
}
