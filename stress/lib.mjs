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

/**
 * A ProtobufType for `message` of proto3 `text` that may import the well-known types (Any,
 * Struct, FieldMask, Duration, Timestamp), for the ProtoJSON families. maxDepth and maxMessageBytes
 * are the largest allowed unless `settings` says otherwise.
 */
export function jsonTypeOf(text, message, settings = {}) {
  const root = new protobuf.Root();
  for (const f of ["any", "struct", "field_mask", "duration", "timestamp", "wrappers"]) root.addJSON(protobuf.common[`google/protobuf/${f}.proto`].nested);
  protobuf.parse(text, root, { keepCase: true });
  let b = pk.ProtobufType.newBuilder(root.lookupType(message)).maxDepth(10_000).maxMessageBytes(0x7fff_ffff);
  for (const [k, v] of Object.entries(settings)) b = b[k](v);
  return { type: b.build(), root };
}

/** The ProtoJSON families' schema: every shape the families send, on one message `J`. */
export const JSON_SCHEMA = `syntax = "proto3";
import "google/protobuf/any.proto"; import "google/protobuf/struct.proto"; import "google/protobuf/field_mask.proto";
import "google/protobuf/duration.proto"; import "google/protobuf/timestamp.proto";
enum E { E_ZERO = 0; E_ONE = 1; }
message J {
  int32 a = 1; string my_field = 2; map<string, int32> ms = 3; map<int64, int32> mi = 4; map<int32, int32> m32 = 5;
  repeated E es = 6; repeated bytes bs = 7; repeated int64 i64 = 8; repeated string ss = 9; string s = 10;
  google.protobuf.Struct st = 11; google.protobuf.Value v = 12; google.protobuf.Any any = 13;
  google.protobuf.FieldMask fm = 14; google.protobuf.Duration d = 15; google.protobuf.Timestamp t = 16;
  repeated J kids = 17; J next = 18; int64 big = 19; double dbl = 20; map<string, J> mj = 21;
}`;
