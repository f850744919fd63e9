// The well-known types (google/protobuf/*.proto) in the registry: every Schema Registry and every
// protobuf compiler provides them, so a schema imports them by their canonical path and registers
// no reference for them (what Confluent's serializers do). A normalized set files them under
// synthetic names (`google.protobuf.Timestamp.proto`); a synthetic file whose bytes equal the
// normalized form of the canonical declarations is written as the canonical import.
import { fromBinary, toBinary, type DescFile } from "@bufbuild/protobuf";
import {
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  file_google_protobuf_any,
  file_google_protobuf_api,
  file_google_protobuf_duration,
  file_google_protobuf_empty,
  file_google_protobuf_field_mask,
  file_google_protobuf_source_context,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_type,
  file_google_protobuf_wrappers,
  type FileDescriptorProto,
} from "@bufbuild/protobuf/wkt";
import { normalize } from "../descriptor/normalize.js";
import { bytesEqual } from "../bytes.js";

const FILES: readonly DescFile[] = [
  file_google_protobuf_any,
  file_google_protobuf_api,
  file_google_protobuf_duration,
  file_google_protobuf_empty,
  file_google_protobuf_field_mask,
  file_google_protobuf_source_context,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_type,
  file_google_protobuf_wrappers,
];

/** The canonical file of a well-known file's path (`google/protobuf/timestamp.proto`), for sets read from the registry. */
export function wellKnownFile(path: string): FileDescriptorProto | undefined {
  const f = FILES.find((d) => d.proto.name === path);
  // A copy: the caller's set owns its files.
  return f === undefined ? undefined : fromBinary(FileDescriptorProtoSchema, toBinary(FileDescriptorProtoSchema, f.proto));
}

let canonical: Map<string, { path: string; bytes: Uint8Array }> | undefined;

/** Synthetic file name → its canonical path and normalized bytes, built once. */
function canonicalFiles(): Map<string, { path: string; bytes: Uint8Array }> {
  if (canonical !== undefined) return canonical;
  const out = new Map<string, { path: string; bytes: Uint8Array }>();
  const pathOf = new Map<string, string>();
  for (const f of FILES) {
    for (const m of f.messages) pathOf.set(m.typeName, f.proto.name);
    for (const e of f.enums) pathOf.set(e.typeName, f.proto.name);
  }
  for (const f of FILES) {
    for (const m of f.messages) {
      const set = fromBinary(FileDescriptorSetSchema, normalize(m));
      for (const file of set.file) {
        if (out.has(file.name)) continue;
        const first = file.messageType[0]?.name ?? file.enumType[0]?.name;
        const path = first === undefined ? undefined : pathOf.get(`google.protobuf.${first}`);
        if (path !== undefined) out.set(file.name, { path, bytes: toBinary(FileDescriptorProtoSchema, file) });
      }
    }
  }
  canonical = out;
  return out;
}

/** The canonical import path of a normalized file when it holds exactly the well-known declarations it is named for. */
export function canonicalPathOf(file: FileDescriptorProto): string | undefined {
  if (file.package !== "google.protobuf") return undefined;
  const known = canonicalFiles().get(file.name);
  if (known === undefined) return undefined;
  return bytesEqual(toBinary(FileDescriptorProtoSchema, file), known.bytes) ? known.path : undefined;
}
