// Schema inputs of the command line: a FileDescriptorSet (`buf build -o`, `protoc
// --descriptor_set_out`), a snapshot (writeSnapshot), a type transfer file (type.toBytes()), or
// .proto files (a file or a directory) compiled with buf when it is installed.
import { spawnSync } from "node:child_process";
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, readSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { createFileRegistry, fromBinary, type FileRegistry } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, type FileDescriptorSet } from "@bufbuild/protobuf/wkt";
import { concatBytes } from "../bytes.js";
import { findBuf } from "../node/find-buf.js";
import { ProtobufType, isProtokeelError, readSnapshot, type ProtobufDynamicSerializerSnapshot, type ProtobufGeneratedSerializerSnapshot } from "../index.js";
import { withSettings } from "../type.js";

/** A usage or input problem: exit code 2, the message on stderr. */
export class InputError extends Error {}

/** Why a file given on the command line cannot be read, in one line (ENOENT, EACCES, ENXIO…). */
export function unreadable(path: string, e: unknown): InputError {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === "ENOENT") return new InputError(`${path} does not exist`);
  if (code === "EISDIR") return new InputError(`${path} is a directory; pass a file`);
  return new InputError(`${path} cannot be read (${typeof code === "string" ? code : (e as Error)?.message ?? String(e)}); check the path and its permissions`);
}

/**
 * Opens a file given on the command line for reading: a descriptor, or an InputError that says
 * why not. Opening first (not a stat, then an open later) makes a file that exists but cannot be
 * read (no permission, a socket) an input error, and leaves no stream to fail with nobody
 * listening.
 */
export function openInput(path: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    throw unreadable(path, e);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new InputError(`${path} is a directory; pass a file`);
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e instanceof InputError ? e : unreadable(path, e);
  }
}

/**
 * The largest schema file read: a snapshot or a type file holds at most a 64 MiB set; four times
 * that leaves room for descriptor sets with source info. Without a bound, /dev/zero or a FIFO
 * that never ends was read until the heap ran out.
 */
export const MAX_SCHEMA_FILE_BYTES = 256 * 1024 * 1024;

function readInput(path: string): Uint8Array {
  const { fd } = openInput(path);
  try {
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const chunk = new Uint8Array(1 << 20);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > MAX_SCHEMA_FILE_BYTES) {
        throw new InputError(`${path} holds more than ${MAX_SCHEMA_FILE_BYTES} bytes (256 MiB), more than any descriptor set, snapshot or type file; pass the schema file`);
      }
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    }
    return concatBytes(chunks);
  } catch (e) {
    throw e instanceof InputError ? e : unreadable(path, e);
  } finally {
    closeSync(fd);
  }
}

export interface LoadedSchema {
  readonly type: ProtobufType;
  /** Every message of the input's set, for google.protobuf.Any. */
  readonly registry: FileRegistry;
  /** What the input was, for reports: "descriptor set", "snapshot", "type file", ".proto files". */
  readonly source: string;
  readonly snapshot: ProtobufDynamicSerializerSnapshot | ProtobufGeneratedSerializerSnapshot | undefined;
}

/**
 * The schema a snapshot saved, as a dynamic type with the saved settings. A generated snapshot
 * restores only with the application's generated code, which a command line never has; its
 * saved schema and settings are all that decoding, checking and inspecting need.
 */
function savedType(snapshot: ProtobufDynamicSerializerSnapshot | ProtobufGeneratedSerializerSnapshot): ProtobufType {
  if (snapshot.kind === "dynamic") return snapshot.restoreType();
  return withSettings(ProtobufType.newBuilder({ fileDescriptorSet: snapshot.normalizedDescriptorSet(), messageName: snapshot.fullName }), snapshot.settings).build();
}

const SNAPSHOT_MAGIC = "PKSS";
const TYPE_MAGIC = "PKTY";

function magic(bytes: Uint8Array): string {
  return String.fromCharCode(...bytes.subarray(0, 4));
}

/** `path` relative to `dir` when it lies inside it ("" for `dir` itself; "..x/a" is inside), else undefined. */
function within(dir: string, path: string): string | undefined {
  const rel = relative(dir, path);
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? undefined : rel;
}

/** A --proto-path that is no directory is an input error that names the option. */
function checkImportRoot(root: string): void {
  let isDir: boolean;
  try {
    isDir = statSync(root).isDirectory();
  } catch (e) {
    throw (e as { code?: unknown } | null)?.code === "ENOENT"
      ? new InputError(`the import root ${root} (--proto-path) does not exist`)
      : new InputError(`the import root ${root} (--proto-path) cannot be read (${(e as Error)?.message ?? String(e)})`);
  }
  if (!isDir) throw new InputError(`the import root ${root} (--proto-path) is not a directory; pass the directory that imports are resolved from`);
}

/**
 * `buf build` of a .proto file (its directory is the import root unless `root` says) or a
 * directory; `rootHint` ends the error of a file outside `root`.
 */
function compileProto(path: string, root: string | undefined, rootHint: string): Uint8Array {
  const buf = findBuf((m) => new InputError(m));
  if (buf === undefined) {
    throw new InputError(
      `${path} is .proto source, which protokeel compiles with buf, and buf is not installed: run npm install --save-dev @bufbuild/buf (or put buf on PATH, or set PROTOKEEL_BUF), or pass a FileDescriptorSet (buf build -o schema.binpb)`,
    );
  }
  const isDir = statSync(path).isDirectory();
  if (root !== undefined) checkImportRoot(root);
  const moduleRoot = resolve(root ?? (isDir ? path : dirname(path)));
  const out = mkdtempSync(join(tmpdir(), "protokeel-buf-"));
  try {
    const target = join(out, "set.binpb");
    // The import root is moduleRoot, whatever buf.yaml lies around it: given no config, buf looks
    // for one in and above the input, and refused a directory inside the module of a buf.yaml v2
    // at the project root (what `buf config init` writes) ("contained by module at path ."). A v1
    // config given here is the input's own: no search, and the same build as with no buf.yaml.
    const args = ["build", moduleRoot, "--config", '{"version":"v1"}', "--as-file-descriptor-set", "--exclude-source-info", "-o", target];
    // A file, or a directory below the root, is what is built (--path): a directory given with a
    // --proto-path above it built the whole root, so two sides under one root compared that root
    // with itself (exit 0 whatever changed). Inside the root as written (buf follows symlinks
    // from there: a file that is a symlink to elsewhere is fine), or as real paths (a root given
    // through a symlink holds what its target holds).
    if (root === undefined) {
      if (!isDir) args.push("--path", resolve(path));
    } else {
      const rel = within(moduleRoot, resolve(path)) ?? within(realpathSync(moduleRoot), realpathSync(path));
      if (rel === undefined) throw new InputError(`${path} is not inside the import root ${moduleRoot} (--proto-path)${rootHint}`);
      if (rel !== "") args.push("--path", join(moduleRoot, rel));
    }
    const r = spawnSync(buf[0]!, [...buf.slice(1), ...args], { encoding: "utf8" });
    if (r.error !== undefined) throw new InputError(`could not run buf (${buf.join(" ")}): ${r.error.message}`);
    if (r.status !== 0) throw new InputError(`buf could not compile ${path}:\n${r.stderr.trim()}`);
    return new Uint8Array(readFileSync(target));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function messagesOf(set: FileDescriptorSet): string[] {
  const names: string[] = [];
  for (const f of set.file) for (const m of f.messageType) names.push(f.package === "" ? m.name : `${f.package}.${m.name}`);
  return names;
}

function registryOf(bytes: Uint8Array, path: string): { set: FileDescriptorSet; registry: FileRegistry } {
  let set: FileDescriptorSet;
  try {
    set = fromBinary(FileDescriptorSetSchema, bytes);
  } catch (e) {
    throw new InputError(`${path} is not a FileDescriptorSet, a snapshot or a type file (${(e as Error).message}); pass the output of buf build -o, writeSnapshot or type.toBytes(), or .proto files`);
  }
  if (set.file.length === 0) {
    throw new InputError(`${path} is not a FileDescriptorSet, a snapshot or a type file; pass the output of buf build -o, writeSnapshot or type.toBytes(), or .proto files`);
  }
  try {
    return { set, registry: createFileRegistry(set) };
  } catch (e) {
    throw new InputError(`${path}: the descriptor set does not resolve (${(e as Error).message}); build it with its imports (buf build, or protoc --include_imports)`);
  }
}

/** True when `path` is .proto source: a directory or a `.proto` file. */
export function isProtoSource(path: string): boolean {
  try {
    return statSync(path).isDirectory() || path.endsWith(".proto");
  } catch {
    return path.endsWith(".proto");
  }
}

/**
 * Reads a schema input; `message` names the root in a descriptor set or .proto source. `saved`:
 * the input must be a snapshot or a type file (what `refusal` says of any other). `protoRoot` is
 * --proto-path, and `unusedRoot` the advice when it was given for this input alone (decode and
 * encode, check with two roots) and the input is not .proto source (an error, not ignored); null
 * for a root that serves other inputs too.
 */
export function loadSchema(
  path: string, message: string | undefined, protoRoot: string | undefined, saved?: string, rootHint = "", unusedRoot: string | null = "leave it out",
): LoadedSchema {
  if (protoRoot === "") throw new InputError("--proto-path needs a directory (the import root of .proto input), got an empty value");
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch (e) {
    throw unreadable(path, e);
  }
  const isProto = isDir || path.endsWith(".proto");
  if (!isProto && protoRoot !== undefined && unusedRoot !== null) {
    throw new InputError(`--proto-path ${protoRoot} was given for ${path}, which is not .proto source (a descriptor set, a snapshot or a type file has no imports to resolve); ${unusedRoot}`);
  }
  const bytes = isProto ? compileProto(path, protoRoot, rootHint) : readInput(path);
  try {
    if (!isProto && magic(bytes) === SNAPSHOT_MAGIC) {
      const snapshot = readSnapshot(bytes) as ProtobufDynamicSerializerSnapshot | ProtobufGeneratedSerializerSnapshot;
      const type = savedType(snapshot);
      checkRoot(path, message, type.fullName);
      return { type, registry: registryOf(snapshot.normalizedDescriptorSet(), path).registry, source: "snapshot", snapshot };
    }
    if (!isProto && magic(bytes) === TYPE_MAGIC) {
      const type = ProtobufType.fromBytes(bytes);
      checkRoot(path, message, type.fullName);
      return { type, registry: registryOf(type.normalizedDescriptorSet(), path).registry, source: "type file", snapshot: undefined };
    }
    if (saved !== undefined) throw new InputError(`${path} is ${isProto ? ".proto source" : "a descriptor set"}; ${saved}`);
    const { set, registry } = registryOf(bytes, path);
    const names = messagesOf(set);
    if (names.length === 0) {
      throw new InputError(`${path} is ${isProto ? ".proto source" : "a descriptor set"} that declares no message; pass the schema that declares the root message`);
    }
    if (message === undefined) {
      const shown = names.length > 12 ? `${names.slice(0, 12).join(", ")}, … (${names.length} in all)` : names.join(", ");
      throw new InputError(`${path} is ${isProto ? ".proto source" : "a descriptor set"}: name the root message with --message (its messages: ${shown})`);
    }
    if (registry.getMessage(message) === undefined) {
      throw new InputError(`${path} does not declare message ${message}; pass the full name with its package, e.g. --message acme.Order`);
    }
    const type = ProtobufType.of({ fileDescriptorSet: bytes, messageName: message });
    return { type, registry, source: isProto ? ".proto files" : "descriptor set", snapshot: undefined };
  } catch (e) {
    if (isProtokeelError(e)) throw new InputError(`${path}: ${e.message}`);
    throw e;
  }
}

function checkRoot(path: string, message: string | undefined, root: string): void {
  if (message !== undefined && message !== root) {
    throw new InputError(`${path} holds ${root}, not ${message}; leave out --message for snapshots and type files, or pass --message ${root}`);
  }
}
