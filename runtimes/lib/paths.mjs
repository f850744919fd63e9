// Paths of the runtime stage, relative to the repository root.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const RUNTIMES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const ROOT = resolve(RUNTIMES_DIR, "..");
export const HARNESS_DIR = join(RUNTIMES_DIR, "harness");
export const PROTO_DIR = join(RUNTIMES_DIR, "proto");
