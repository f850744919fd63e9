// Hand-built descriptors for deliberately invalid schemas (buf and protoc refuse to compile them).
import { create, createFileRegistry, toBinary, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
} from "@bufbuild/protobuf/wkt";

export type FileInit = MessageInitShape<typeof FileDescriptorProtoSchema>;
export const T = FieldDescriptorProto_Type;
export const L = FieldDescriptorProto_Label;

/** Encoded FileDescriptorSet of the given files. */
export function setBytes(files: FileInit[]): Uint8Array {
  return toBinary(
    FileDescriptorSetSchema,
    create(FileDescriptorSetSchema, { file: files.map((f) => create(FileDescriptorProtoSchema, f)) }),
  );
}

/** The message `name` of a registry built from the given files. */
export function messageOf(files: FileInit[], name: string): DescMessage {
  const reg = createFileRegistry(
    create(FileDescriptorSetSchema, { file: files.map((f) => create(FileDescriptorProtoSchema, f)) }),
  );
  const m = reg.getMessage(name);
  if (!m) throw new Error(`no message ${name}`);
  return m;
}

/** A proto3 file `acme/order.proto` in package acme with the given messages and enums. */
export function acme(init: Partial<FileInit>): FileInit {
  return { name: "acme/order.proto", package: "acme", syntax: "proto3", ...init } as FileInit;
}

export function scalar(name: string, number: number, type = T.INT64, extra: Record<string, unknown> = {}) {
  return { name, number, type, label: L.OPTIONAL, ...extra };
}
