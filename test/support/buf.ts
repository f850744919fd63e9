// Compiles .proto fixtures under test/ with buf (offline), cached by content so reruns are fast.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createFileRegistry, fromBinary, type DescMessage, type FileRegistry } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const bufBin = join(root, "node_modules", ".bin", "buf");
const cacheDir = join(tmpdir(), "protokeel-buf-cache");

function listProtos(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listProtos(p));
    else if (name.endsWith(".proto")) out.push(p);
  }
  return out;
}

export interface CompileOptions {
  /** Keep source info (comments, spans) in the output. Defaults to false. */
  sourceInfo?: boolean;
}

/**
 * `buf build <dir> --as-file-descriptor-set` for a fixture directory given relative to test/
 * (e.g. "fixtures/compat/field-added/saved"). Imports, including well-known types, are included.
 */
export function compileProtoDir(dirFromTest: string, options: CompileOptions = {}): Uint8Array {
  const dir = resolve(root, "test", dirFromTest);
  const files = listProtos(dir);
  if (files.length === 0) throw new Error(`no .proto files under ${dir}`);
  const h = createHash("sha256");
  h.update(String(options.sourceInfo ?? false));
  for (const f of files) {
    h.update(relative(dir, f));
    h.update(readFileSync(f));
  }
  const key = h.digest("hex");
  const cached = join(cacheDir, `${key}.binpb`);
  if (existsSync(cached)) return new Uint8Array(readFileSync(cached));
  mkdirSync(cacheDir, { recursive: true });
  const args = ["build", dir, "--as-file-descriptor-set", "-o", cached];
  if (!options.sourceInfo) args.push("--exclude-source-info");
  execFileSync(bufBin, args, { stdio: ["ignore", "ignore", "pipe"] });
  return new Uint8Array(readFileSync(cached));
}

/** A @bufbuild/protobuf registry over a compiled fixture directory. */
export function registryFromDir(dirFromTest: string, options: CompileOptions = {}): FileRegistry {
  return createFileRegistry(fromBinary(FileDescriptorSetSchema, compileProtoDir(dirFromTest, options)));
}

/** The message `typeName` from a compiled fixture directory; throws when it is missing. */
export function messageFromDir(dirFromTest: string, typeName: string, options: CompileOptions = {}): DescMessage {
  const desc = registryFromDir(dirFromTest, options).getMessage(typeName);
  if (!desc) throw new Error(`fixture ${dirFromTest} has no message ${typeName}`);
  return desc;
}

/** Writes a one-off .proto text into a temp dir and compiles it (for tests that generate schemas). */
export function compileProtoText(files: Record<string, string>, options: CompileOptions = {}): Uint8Array {
  const h = createHash("sha256").update(JSON.stringify(files)).digest("hex").slice(0, 16);
  const dir = join(tmpdir(), "protokeel-proto-text", h);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return compileProtoDir(relative(join(root, "test"), dir), options);
}
