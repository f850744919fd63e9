// Types of stress/schemas.mjs, for the tests under test/adversarial that share its builders.
import type { DescMessage } from "@bufbuild/protobuf";
import type { FileDescriptorSet } from "@bufbuild/protobuf/wkt";

export type Variant = "saved" | "current";
export function denseNumber(i: number): number;
export function sparseNumber(i: number, n: number): number;
export function setOf(files: object[]): FileDescriptorSet;
export function bytesOf(set: FileDescriptorSet): Uint8Array;
export function messageOf(set: FileDescriptorSet, name: string): DescMessage;
export function manyTypes(n: number, variant?: Variant): FileDescriptorSet;
export function sparseFields(n: number, variant?: Variant): FileDescriptorSet;
export function wideOneof(n: number, variant?: Variant): FileDescriptorSet;
export function manyOneofs(n: number, variant?: Variant): FileDescriptorSet;
export function enumAliases(n: number, variant?: Variant): FileDescriptorSet;
export function chain(n: number, options?: { cycle?: boolean; variant?: Variant }): FileDescriptorSet;
export function chainFiles(n: number, options?: { order?: "dependencies-first" | "dependents-first" }): FileDescriptorSet;
export function nestedChain(depth: number): FileDescriptorSet;
export function tree(n: number): FileDescriptorSet;
export function treeJson(n: number): object;
