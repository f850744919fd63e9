// Rebuild (DESIGN §4.4): every path that turns normalized bytes back into descriptors goes
// through here, so construction, type transfer and snapshot restore agree on what resolves.
import { createFileRegistry, fromBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, type DescriptorProto, type FileDescriptorSet } from "@bufbuild/protobuf/wkt";
import { invalid } from "./rules.js";

export const RebuildCode = {
  REBUILD_FAILED: "REBUILD_FAILED",
  ROOT_NOT_FOUND: "ROOT_NOT_FOUND",
  ROOT_NOT_UNIQUE: "ROOT_NOT_UNIQUE",
} as const;

/**
 * Decodes a normalized set, builds a registry over it and looks the root up once. Throws
 * `InvalidDescriptorError` when the bytes do not decode, a type does not resolve, a declaration
 * repeats, or the root is missing or not unique.
 */
export function rebuildRoot(normalized: Uint8Array, fullName: string): DescMessage {
  let set: FileDescriptorSet;
  try {
    set = fromBinary(FileDescriptorSetSchema, normalized, { readUnknownFields: false });
  } catch (e) {
    throw invalid(fullName, RebuildCode.REBUILD_FAILED, `the descriptor set does not decode (${reason(e)})`);
  }
  // @bufbuild/protobuf lets a later declaration of a name silently replace an earlier one, so
  // count declarations ourselves: the root must resolve exactly once, and nothing may repeat.
  const seen = new Set<string>();
  let rootCount = 0;
  const visit = (prefix: string, names: readonly string[], nested: readonly DescriptorProto[]): void => {
    for (const n of names) declare(`${prefix}${n}`);
    for (const m of nested) {
      const name = `${prefix}${m.name}`;
      if (name === fullName) rootCount++;
      declare(name);
      visit(`${name}.`, m.enumType.map((e) => e.name), m.nestedType);
    }
  };
  const declare = (name: string): void => {
    if (seen.has(name) && name !== fullName) {
      throw invalid(fullName, RebuildCode.REBUILD_FAILED, `the descriptor set declares ${name} more than once`);
    }
    seen.add(name);
  };
  for (const file of set.file) {
    const prefix = file.package === "" ? "" : `${file.package}.`;
    visit(prefix, file.enumType.map((e) => e.name), file.messageType);
  }
  if (rootCount === 0) {
    throw invalid(fullName, RebuildCode.ROOT_NOT_FOUND, `the descriptor set does not declare message ${fullName}`);
  }
  if (rootCount > 1) {
    throw invalid(fullName, RebuildCode.ROOT_NOT_UNIQUE, `the descriptor set declares message ${fullName} ${rootCount} times`);
  }
  let root: DescMessage | undefined;
  try {
    root = createFileRegistry(set).getMessage(fullName);
  } catch (e) {
    throw invalid(fullName, RebuildCode.REBUILD_FAILED, `the descriptor set does not rebuild (${reason(e)})`);
  }
  if (root === undefined) {
    throw invalid(fullName, RebuildCode.ROOT_NOT_FOUND, `the descriptor set does not declare message ${fullName}`);
  }
  return root;
}

export function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
