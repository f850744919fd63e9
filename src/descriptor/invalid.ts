// The one constructor of construction errors, shared by every descriptor pass.
import { InvalidDescriptorError } from "../errors.js";
import { shortName } from "./names.js";

/** `invalid descriptor <root>: <detail>`; the root is shortened so a huge name cannot flood logs. */
export function invalid(root: string | undefined, code: string, detail: string): InvalidDescriptorError {
  const head = root === undefined ? "invalid descriptor" : `invalid descriptor ${shortName(root)}`;
  return new InvalidDescriptorError(code, `${head}: ${detail}`);
}
