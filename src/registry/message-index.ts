// Message indexes (the wire format's path of a message in its schema file): the top-level index
// in the file's message list, then the index among each message's nested messages. Map entries
// are not counted: Confluent's Java serializers index the parsed .proto text, where a map is a
// field and not a nested type, and its JavaScript serializers index protobuf-es `nestedMessages`,
// which leaves map entries out. Counting them would point other readers at the wrong message.
import type { DescriptorProto, FileDescriptorProto } from "@bufbuild/protobuf/wkt";

function messagesOf(list: readonly DescriptorProto[]): DescriptorProto[] {
  return list.filter((m) => m.options?.mapEntry !== true);
}

/** The path of message `fullName` in `file`, or undefined when the file does not declare it. */
export function messageIndexesOf(file: FileDescriptorProto, fullName: string): number[] | undefined {
  const prefix = file.package === "" ? "" : `${file.package}.`;
  if (!fullName.startsWith(prefix)) return undefined;
  const parts = fullName.slice(prefix.length).split(".");
  const path: number[] = [];
  let list = messagesOf(file.messageType);
  for (const part of parts) {
    const i = list.findIndex((m) => m.name === part);
    if (i < 0) return undefined;
    path.push(i);
    list = messagesOf(list[i]!.nestedType);
  }
  return path;
}

/** The full name of the message at `indexes` in `file`, or the depth (0-based) where the path leaves the file. */
export function messageAtIndexes(file: FileDescriptorProto, indexes: readonly number[]): { name: string } | { missingAt: number } {
  let list = messagesOf(file.messageType);
  let name = file.package;
  for (let k = 0; k < indexes.length; k++) {
    const m = list[indexes[k]!];
    if (m === undefined) return { missingAt: k };
    name = name === "" ? m.name : `${name}.${m.name}`;
    list = messagesOf(m.nestedType);
  }
  return { name };
}
