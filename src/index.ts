// The public API: explicit named exports only (test/api.test.ts pins the list).
export {
  ProtokeelError,
  InvalidDescriptorError,
  MissingTypeInfoError,
  InvalidObjectError,
  CodecError,
  SnapshotFormatError,
  RestoreError,
  isProtokeelError,
} from "./errors.js";
export type { Settings } from "./settings.js";
