// A ProtobufType as Schema Registry schemas: each file of its normalized set (docs/design.md §4.3)
// printed as .proto text, deterministically (equal types give equal text). The root's file is the
// subject's schema; every other file is a reference, except the well-known types, which the
// registry provides and which are imported by their canonical path.
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { protoFileText } from "../descriptor/proto-text.js";
import { internalError } from "../errors.js";
import type { ProtobufType } from "../type.js";
import { messageIndexesOf } from "./message-index.js";
import { canonicalPathOf } from "./well-known.js";

export interface RegistryFile {
  /** The file's name: its import path, and the name of the reference that points at it. */
  readonly name: string;
  /** The file as .proto text. */
  readonly text: string;
  /** The files it imports that are registered as references (well-known imports excluded), by name. */
  readonly references: readonly string[];
}

export interface RegistrySchemas {
  /** Every file to register, each after the files it imports; the root's file last. */
  readonly files: readonly RegistryFile[];
  /** The root's file. */
  readonly main: RegistryFile;
  /** The root's message indexes in the main file (the wire format's path). */
  readonly messageIndexes: readonly number[];
}

const cache = new WeakMap<ProtobufType, RegistrySchemas>();

/** The registry schemas of a type; computed once per type. */
export function registrySchemasOf(type: ProtobufType): RegistrySchemas {
  let out = cache.get(type);
  if (out === undefined) {
    out = render(fromBinary(FileDescriptorSetSchema, type.normalizedDescriptorSet()).file, type.fullName);
    cache.set(type, out);
  }
  return out;
}

function render(files: readonly FileDescriptorProto[], root: string): RegistrySchemas {
  const canonical = new Map<string, string>();
  for (const f of files) {
    const path = canonicalPathOf(f);
    if (path !== undefined) canonical.set(f.name, path);
  }
  let main: RegistryFile | undefined;
  let messageIndexes: number[] | undefined;
  const out: RegistryFile[] = [];
  for (const f of files) {
    if (canonical.has(f.name)) continue;
    const imports: string[] = [];
    const references: string[] = [];
    for (const d of f.dependency) {
      const path = canonical.get(d);
      if (path === undefined) references.push(d);
      if (!imports.includes(path ?? d)) imports.push(path ?? d);
    }
    const file: RegistryFile = { name: f.name, text: protoFileText(f, { qualified: true, imports }), references };
    const path = messageIndexesOf(f, root);
    if (path !== undefined) {
      main = file;
      messageIndexes = path;
    } else out.push(file);
  }
  // A normalized set always holds its root (rule 8, checked at construction).
  if (main === undefined || messageIndexes === undefined) throw internalError("registry schemas", `the normalized set has no file declaring ${root}`);
  out.push(main);
  return { files: out, main, messageIndexes };
}
