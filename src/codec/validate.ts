// The validate-only read (docs/design.md §14): the same core checks as BoundDecoder.message/frames, and
// the same CodecError for the same input, without a tape or any value built.
import type { DescMessage } from "@bufbuild/protobuf";
import type { Settings } from "../settings.js";
import { validateFrames, validateMessage } from "../wasm/ops.js";
import { layoutOf } from "./layout.js";

/** Checks one bare message of `root` as a decode would; throws the same CodecError. */
export function validateMessageBytes(root: DescMessage, input: Uint8Array, settings: Settings): void {
  validateMessage(layoutOf(root).typeOffset, input, settings);
}

/** Checks every frame of a framing-v1 buffer as decodeAll would; throws the same CodecError. */
export function validateFrameBytes(root: DescMessage, input: Uint8Array, settings: Settings): void {
  validateFrames(layoutOf(root).typeOffset, input, settings);
}
