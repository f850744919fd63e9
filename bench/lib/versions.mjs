// Installed package versions, read from node_modules (package exports maps hide package.json).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT_DIR } from "./paths.mjs";

/** @param {string} name */
export function packageVersion(name) {
  try {
    return JSON.parse(readFileSync(join(ROOT_DIR, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return "not installed";
  }
}
