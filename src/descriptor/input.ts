// The three inputs of ProtobufType.of / newBuilder (docs/design.md §4.1), resolved to a root DescMessage.
import { MESSAGE_BRAND, TYPE_BRAND, hasBrand, isBrandedClass } from "../brand.js";
import { createFileRegistry, equals, fromBinary, type DescMessage, type FileRegistry } from "@bufbuild/protobuf";
import { bytesEqual, bytesProblem, privateInput } from "../bytes.js";
import { crc32c } from "../snapshot/crc32c.js";
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  type DescriptorProto,
  type FileDescriptorProto,
  type FileDescriptorSet,
} from "@bufbuild/protobuf/wkt";
import { invalid } from "./invalid.js";
import { isProtobufjsType, lowerProtobufjsType, protobufjsClassName } from "./protobufjs.js";
import { forEachDeclaration, reason } from "./rebuild.js";
import { isMapEntryShape, RuleCode } from "./rules.js";
import { shortName } from "./names.js";
import { scanDescriptorSet } from "./set-scan.js";

/** The output of `protoc --include_imports --descriptor_set_out` or `buf build`, and a message in it. */
export interface FileDescriptorSetInput {
  readonly fileDescriptorSet: Uint8Array;
  /** Full name of the root message, e.g. `acme.Order`. */
  readonly messageName: string;
}

/**
 * What `ProtobufType.of` accepts as the root: a `DescMessage`, a protobufjs `Type` (typed
 * structurally, protobufjs is never imported) or a FileDescriptorSet with a message name.
 */
export type DescriptorInput = DescMessage | FileDescriptorSetInput | ProtobufjsTypeLike;

/** The shape by which a protobufjs `Type` is recognised (`constructor.className === "Type"`). */
export interface ProtobufjsTypeLike {
  readonly fullName: string;
  readonly fieldsArray: readonly unknown[];
}

export const InputCode = {
  DYNAMIC_MESSAGE_CLASS: "DYNAMIC_MESSAGE_CLASS",
  UNSUPPORTED_INPUT: "UNSUPPORTED_INPUT",
  DESCRIPTOR_SET_INVALID: "DESCRIPTOR_SET_INVALID",
  DESCRIPTOR_SET_TOO_LARGE: "DESCRIPTOR_SET_TOO_LARGE",
  UNRESOLVED_TYPE: "UNRESOLVED_TYPE",
  MESSAGE_NOT_FOUND: "MESSAGE_NOT_FOUND",
  INPUT_INVALID: "INPUT_INVALID",
} as const;

/** True for the `DynamicMessage` class of this or another copy of the package (by its brand, not its name: bundlers rename classes). */
export function isDynamicMessageClass(x: unknown): boolean {
  return isBrandedClass(x, MESSAGE_BRAND);
}

export function isDescMessage(x: unknown): x is DescMessage {
  if (x === null || typeof x !== "object") return false;
  const d = x as Partial<DescMessage>;
  return d.kind === "message" && typeof d.typeName === "string" && Array.isArray(d.fields) && d.file?.kind === "file";
}

function isFileDescriptorSetInput(x: unknown): x is FileDescriptorSetInput {
  return x !== null && typeof x === "object" && "fileDescriptorSet" in x && "messageName" in x;
}

/** Resolves any accepted input to its root `DescMessage`; throws `InvalidDescriptorError`. */
export function resolveRoot(input: unknown): DescMessage {
  if (isDescMessage(input)) return input;
  if (isProtobufjsType(input)) return lowerProtobufjsType(input);
  if (isFileDescriptorSetInput(input)) return fromFileDescriptorSet(input);
  if (isDynamicMessageClass(input)) {
    throw invalid(
      undefined,
      InputCode.DYNAMIC_MESSAGE_CLASS,
      "DynamicMessage is a class and cannot select a schema; pass the root message descriptor: ProtobufType.of(descriptor)",
    );
  }
  throw invalid(
    undefined,
    InputCode.UNSUPPORTED_INPUT,
    `unsupported input ${describe(input)}; ${hintFor(input) ?? "pass a DescMessage, a protobufjs Type or { fileDescriptorSet, messageName }"}`,
  );
}

/** What to pass instead of an input that is close to an accepted one. */
function hintFor(x: unknown): string | undefined {
  const pbjs = protobufjsClassName(x);
  if (pbjs === "Root" || pbjs === "Namespace") return `a protobufjs ${pbjs} holds many types: pass the root message's Type, e.g. root.lookupType("acme.Order")`;
  if (pbjs !== undefined) return `a protobufjs ${pbjs} is not a message: pass the root message's Type, e.g. root.lookupType("acme.Order")`;
  if (hasBrand(x, TYPE_BRAND)) return "this is a ProtobufType already: use it, or pass type.descriptor to ProtobufType.newBuilder to change its settings";
  const kind = x !== null && typeof x === "object" ? (x as { kind?: unknown }).kind : undefined;
  if (kind === "file") return 'a file descriptor holds many types: pass one of its messages, e.g. file.messages[0] or registry.getMessage("acme.Order")';
  if (kind === "enum" || kind === "service" || kind === "extension" || kind === "field" || kind === "oneof") return `${kind === "enum" || kind === "extension" || kind === "oneof" ? "an" : "a"} ${kind} descriptor cannot be a root: pass the root message's DescMessage`;
  return undefined;
}

function describe(x: unknown): string {
  if (x === null) return "null";
  if (x === undefined) return "undefined";
  const pbjs = protobufjsClassName(x);
  if (pbjs !== undefined) return `(protobufjs ${pbjs} ${shortName(String((x as { fullName?: unknown }).fullName ?? ""))})`.replace(" )", ")");
  if (hasBrand(x, TYPE_BRAND)) return "(ProtobufType)";
  if (typeof x === "object") {
    const kind = (x as { kind?: unknown }).kind;
    if (typeof kind === "string") {
      return `(descriptor of kind ${shortName(kind)}${typeof (x as { typeName?: unknown }).typeName === "string" ? ` ${shortName((x as { typeName: string }).typeName)}` : ""})`;
    }
    const name = (x as object).constructor?.name;
    return `(${typeof name === "string" && name !== "" ? shortName(name) : "object"})`;
  }
  if (typeof x === "function") return `(function ${shortName(x.name) || "anonymous"})`;
  return `(${typeof x})`;
}

function fromFileDescriptorSet(input: FileDescriptorSetInput): DescMessage {
  const { fileDescriptorSet: bytes, messageName } = input;
  if (typeof messageName !== "string" || messageName === "") {
    throw invalid(undefined, InputCode.UNSUPPORTED_INPUT, "messageName must be the root message's full name, e.g. acme.Order");
  }
  const name = messageName.startsWith(".") ? messageName.slice(1) : messageName;
  if (!(bytes instanceof Uint8Array)) {
    throw invalid(
      name,
      InputCode.UNSUPPORTED_INPUT,
      "fileDescriptorSet must be a Uint8Array holding an encoded google.protobuf.FileDescriptorSet",
    );
  }
  const problem = bytesProblem(bytes);
  if (problem !== undefined) {
    throw invalid(name, InputCode.UNSUPPORTED_INPUT, `fileDescriptorSet must be a Uint8Array holding an encoded google.protobuf.FileDescriptorSet, got ${problem}`);
  }
  const root = registryOf(name, bytes).getMessage(name);
  if (root === undefined) {
    if (declaresMapEntry(bytes, name)) {
      throw invalid(
        name,
        RuleCode.MAP_ENTRY_INVALID,
        `message ${name} is a map entry (option map_entry), the type of its own map field only; pass the message that holds the map field, or declare ${shortName(name)} without map_entry`,
      );
    }
    throw invalid(name, InputCode.MESSAGE_NOT_FOUND, `the file descriptor set declares no message ${name}; check messageName`);
  }
  return root;
}

/**
 * Sets parsed lately, by content: building several types from one large set (googleapis' 1.4 MB
 * set: ~300 ms to parse and register warm, ~1 s cold) parses it once. A hit is decided by the
 * CRC-32C and then an exact compare with a private copy (~5 ms for 1.4 MB), so bytes changed in
 * place since are parsed again. Registries are pure functions of the bytes (the root name only
 * enters error messages); failures are not kept. Held strongly (a DescMessage does not reach
 * its registry, so a weak reference would be gone between two calls), bounded to 4 sets and
 * 32 MiB of set bytes.
 */
const SET_CACHE_ENTRIES = 4;
const SET_CACHE_MAX_BYTES = 32 * 1024 * 1024;
interface ParsedSet {
  readonly crc: number;
  readonly bytes: Uint8Array;
  readonly registry: FileRegistry;
}
const parsedSets: ParsedSet[] = [];

function registryOf(name: string, given: Uint8Array): FileRegistry {
  // Read three times (the check, the parse, the cache's copy): from shared memory another thread
  // writes, they were three different sets, and the cache kept a registry under bytes it was not
  // parsed from (every later call with those bytes got the wrong schema).
  const bytes = privateInput(given);
  const cacheable = bytes.length <= SET_CACHE_MAX_BYTES;
  const crc = cacheable ? crc32c(bytes) : 0;
  if (cacheable) {
    for (let i = 0; i < parsedSets.length; i++) {
      const hit = parsedSets[i]!;
      if (hit.crc !== crc || !bytesEqual(hit.bytes, bytes)) continue;
      if (i > 0) parsedSets.unshift(...parsedSets.splice(i, 1));
      return hit.registry;
    }
  }
  // Parsed from a copy of its own, which the cache keeps: the parse's bytes fields
  // (UninterpretedOption.string_value) are views of the bytes it read, and the registry (what
  // type.descriptor exposes, and what later calls get from the cache) outlives the call. Parsed
  // from the caller's array, they changed when the caller reused it. Not bytes.slice(): a Node
  // Buffer's is a view of the same memory.
  const own = new Uint8Array(bytes);
  const registry = parseSet(name, own);
  if (cacheable) {
    parsedSets.unshift({ crc, bytes: own, registry });
    let total = 0;
    for (let i = 0; i < parsedSets.length; i++) {
      total += parsedSets[i]!.bytes.length;
      if (i >= SET_CACHE_ENTRIES || total > SET_CACHE_MAX_BYTES) {
        parsedSets.length = i;
        break;
      }
    }
  }
  return registry;
}

/** True when the set declares `name` as a map entry (which @bufbuild/protobuf makes no DescMessage of): for the error only. */
function declaresMapEntry(bytes: Uint8Array, name: string): boolean {
  let found = false;
  try {
    const set = fromBinary(FileDescriptorSetSchema, scanDescriptorSet(bytes, true).bytes, { readUnknownFields: false });
    forEachDeclaration(set, (n, _kind, message) => {
      if (n === name && message?.options?.mapEntry === true) found = true;
    });
  } catch {
    // The set decoded once already; nothing to add to MESSAGE_NOT_FOUND otherwise.
  }
  return found;
}

function parseSet(name: string, bytes: Uint8Array): FileRegistry {
  // Counted before it is decoded (the decoder's objects are up to ~190x its bytes), and without
  // source_code_info, which nothing here reads and which is most of a set built with it.
  const scan = scanDescriptorSet(bytes, true);
  if (scan.over !== undefined) {
    throw invalid(
      name,
      InputCode.DESCRIPTOR_SET_TOO_LARGE,
      `the file descriptor set holds ${scan.over}; pass a set of the files the message needs (buf build --path, or protoc with only its .proto and --include_imports)`,
    );
  }
  let set: FileDescriptorSet;
  try {
    set = fromBinary(FileDescriptorSetSchema, scan.bytes, { readUnknownFields: false });
  } catch (e) {
    throw invalid(
      name,
      InputCode.DESCRIPTOR_SET_INVALID,
      `the file descriptor set does not decode (${reason(e)}); pass the bytes written by protoc --descriptor_set_out or buf build`,
    );
  }
  set.file = inDependencyOrder(name, filesByName(name, set.file));
  checkReferences(name, set, declaredOnce(name, set));
  try {
    return createFileRegistry(set);
  } catch (e) {
    const why = reason(e);
    const lower = why.toLowerCase();
    if ((lower.includes("not found") || lower.includes("cannot find")) && !why.includes("oneof #")) {
      throw invalid(
        name,
        InputCode.UNRESOLVED_TYPE,
        `the file descriptor set does not resolve (${why}); include every imported file (protoc --include_imports)`,
      );
    }
    throw invalid(
      name,
      InputCode.DESCRIPTOR_SET_INVALID,
      why === ""
        ? "the file descriptor set is not valid (@bufbuild/protobuf refused it without a reason); pass the set that protoc or buf wrote"
        : `the file descriptor set is not valid (${why}); pass the set that protoc or buf wrote`,
    );
  }
}

/**
 * The files by name, in the set's order, with a repeated file dropped when it is the same file
 * again (sets joined by concatenation repeat their shared imports, which protoc accepts), refused
 * when it differs: createFileRegistry kept the later file silently, so which version bound
 * depended on the order.
 */
function filesByName(root: string, files: readonly FileDescriptorProto[]): Map<string, FileDescriptorProto> {
  const byName = new Map<string, FileDescriptorProto>();
  for (const f of files) {
    const first = byName.get(f.name);
    if (first === undefined) {
      byName.set(f.name, f);
      continue;
    }
    if (equals(FileDescriptorProtoSchema, first, f)) continue;
    throw invalid(
      root,
      InputCode.DESCRIPTOR_SET_INVALID,
      `the file descriptor set holds two different files named ${shortName(f.name)} (joined sets of two versions of a schema?); pass the set of one build (protoc --descriptor_set_out, buf build)`,
    );
  }
  return byName;
}

/**
 * Refuses a name declared twice (a message, enum or service), as protoc does ("already
 * defined"): createFileRegistry let the later declaration replace the earlier silently, so a
 * root, a field's type or a registry's message index could bind the other one. Returns the
 * declarations by full name: a message as its DescriptorProto, else its kind.
 */
function declaredOnce(root: string, set: FileDescriptorSet): Map<string, DescriptorProto | "enum" | "service"> {
  const declared = new Map<string, DescriptorProto | "enum" | "service">();
  forEachDeclaration(set, (name, kind, message) => {
    if (!declared.has(name)) {
      declared.set(name, message ?? (kind as "enum" | "service"));
      return;
    }
    throw invalid(
      root,
      InputCode.DESCRIPTOR_SET_INVALID,
      `the file descriptor set declares ${shortName(name)} more than once; protobuf names are unique, pass the set that protoc or buf wrote`,
    );
  });
  return declared;
}

/**
 * Checks what each field's type_name names (`declared`: declaredOnce's) before
 * createFileRegistry reads the set, which asserted on most of these without a reason ("the file
 * descriptor set is not valid ()") or called an enum named as a message type missing ("include
 * every imported file"). protoc writes every type_name fully qualified with a leading dot; a
 * relative one resolves by scope in protoc but as a full name in @bufbuild/protobuf, so the two
 * could bind different types.
 */
function checkReferences(root: string, set: FileDescriptorSet, declared: ReadonlyMap<string, DescriptorProto | "enum" | "service">): void {
  // A missing imported file is createFileRegistry's to name ("Cannot find x.proto"), which says more.
  const fileNames = new Set(set.file.map((f) => f.name));
  const importsMissing = set.file.some((f) => f.dependency.some((d) => !fileNames.has(d)));
  const T = FieldDescriptorProto_Type;
  for (const [owner, proto] of declared) {
    if (typeof proto === "string") continue;
    for (const f of proto.field) {
      const isEnum = f.type === T.ENUM;
      if (!isEnum && f.type !== T.MESSAGE && f.type !== T.GROUP) continue;
      const field = `${shortName(owner)}.${shortName(f.name)}`;
      const target = f.typeName;
      if (!target.startsWith(".")) {
        throw invalid(
          root,
          InputCode.DESCRIPTOR_SET_INVALID,
          `field ${field} names type ${JSON.stringify(shortName(target))}, which is not fully qualified; protoc writes a leading dot and the full name (.pkg.Type), pass the set that protoc or buf wrote`,
        );
      }
      const named = declared.get(target.slice(1));
      if (named === undefined || named === "service") {
        if (importsMissing) continue;
        throw invalid(
          root,
          InputCode.UNRESOLVED_TYPE,
          `field ${field} names type ${shortName(target.slice(1))}, which the file descriptor set does not declare; include every imported file (protoc --include_imports)`,
        );
      }
      if (isEnum !== (named === "enum")) {
        throw invalid(
          root,
          InputCode.DESCRIPTOR_SET_INVALID,
          `field ${field} has type ${isEnum ? "enum" : "message"} but names ${named === "enum" ? "enum" : "message"} ${shortName(target.slice(1))}; pass the set that protoc or buf wrote`,
        );
      }
      // A type declared inside a map entry: protoc generates entries with nothing nested, and the
      // normalized set keeps an entry only with its map field (a field naming one then failed as
      // REBUILD_FAILED, "type ... not found", for a type the input declares).
      const scope = declared.get(target.slice(1, target.lastIndexOf(".")));
      if (typeof scope === "object" && scope.options?.mapEntry === true) {
        throw invalid(
          root,
          RuleCode.MAP_ENTRY_INVALID,
          `field ${field} names type ${shortName(target.slice(1))}, which is declared inside map entry ${shortName(target.slice(1, target.lastIndexOf(".")))}; a map entry holds nothing nested (protoc generates it for a map<K, V> field), declare the type elsewhere`,
        );
      }
      if (named === "enum" || named.options?.mapEntry !== true) continue;
      if (f.label !== FieldDescriptorProto_Label.REPEATED) {
        throw invalid(
          root,
          RuleCode.MAP_ENTRY_INVALID,
          `field ${field} has map entry ${shortName(target.slice(1))} as its type; a map entry is the type of its own map field only, declare the field as map<K, V>`,
        );
      }
      if (!isMapEntryShape(named)) {
        throw invalid(
          root,
          RuleCode.MAP_ENTRY_INVALID,
          `map field ${field} has entry ${shortName(target.slice(1))} that is not the entry protoc generates (exactly the fields key = 1 and value = 2, a key of an integer, bool or string type, nothing nested); declare the field as map<K, V> and let protoc generate the entry`,
        );
      }
    }
  }
}

/**
 * The files in dependency order (each after the files it imports), keeping the given order where
 * it already is one. createFileRegistry reads a set front to back and fails with "Cannot find
 * x.proto" on a file listed before its imports: protoc and buf write dependency order, a set
 * assembled by hand need not. A missing import is left for createFileRegistry to report. The
 * walk keeps its own stack: import chains come from the input.
 */
function inDependencyOrder(root: string, byName: ReadonlyMap<string, FileDescriptorProto>): FileDescriptorProto[] {
  const ON_STACK = 1;
  const DONE = 2;
  const state = new Map<FileDescriptorProto, number>();
  const out: FileDescriptorProto[] = [];
  const stack: Array<{ file: FileDescriptorProto; next: number }> = [];
  for (const start of byName.values()) {
    if (state.has(start)) continue;
    state.set(start, ON_STACK);
    stack.push({ file: start, next: 0 });
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next === top.file.dependency.length) {
        stack.pop();
        state.set(top.file, DONE);
        out.push(top.file);
        continue;
      }
      const depName = top.file.dependency[top.next++]!;
      const dep = byName.get(depName);
      if (dep === undefined || state.get(dep) === DONE) continue;
      if (state.get(dep) === ON_STACK) {
        throw invalid(
          root,
          InputCode.DESCRIPTOR_SET_INVALID,
          `file ${top.file.name} imports ${depName}, which imports it back (directly or through other files); protobuf forbids import cycles, pass the set that protoc or buf wrote`,
        );
      }
      state.set(dep, ON_STACK);
      stack.push({ file: dep, next: 0 });
    }
  }
  return out;
}
