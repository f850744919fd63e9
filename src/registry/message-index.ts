// Message indexes (the wire format's path of a message in its schema file): the top-level index
// in the file's message list, then the index in each nested-type list, map entries counted, as
// the file's FileDescriptorProto lists them (what Confluent's serializers count too).
import type { DescriptorProto, FileDescriptorProto } from "@bufbuild/protobuf/wkt";

/** The path of message `fullName` in `file`, or undefined when the file does not declare it. */
export function messageIndexesOf(file: FileDescriptorProto, fullName: string): number[] | undefined {
  const prefix = file.package === "" ? "" : `${file.package}.`;
  if (!fullName.startsWith(prefix)) return undefined;
  const parts = fullName.slice(prefix.length).split(".");
  const path: number[] = [];
  let list: readonly DescriptorProto[] = file.messageType;
  for (const part of parts) {
    const i = list.findIndex((m) => m.name === part);
    if (i < 0) return undefined;
    path.push(i);
    list = list[i]!.nestedType;
  }
  return path;
}

/** The full name of the message at `indexes` in `file`, or the depth (0-based) where the path leaves the file. */
export function messageAtIndexes(file: FileDescriptorProto, indexes: readonly number[]): { name: string } | { missingAt: number } {
  let list: readonly DescriptorProto[] = file.messageType;
  let name = file.package;
  for (let k = 0; k < indexes.length; k++) {
    const m = list[indexes[k]!];
    if (m === undefined) return { missingAt: k };
    name = name === "" ? m.name : `${name}.${m.name}`;
    list = m.nestedType;
  }
  return { name };
}
