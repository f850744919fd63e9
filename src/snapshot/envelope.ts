// The snapshot envelope (docs/design.md §10.1): "PKSS", u8 envelope version, u16+UTF-8 class name,
// u32 snapshot version, then the payload of that class, then a 4-byte CRC-32C of every byte
// before it (docs/design.md §10.2 item 7). The check is verified right after the envelope version: the
// version says where the check is, and nothing after it is read unverified. Each class has its own payload reader
// and version line, so a new snapshot kind adds one entry to PAYLOAD_READERS and nothing else.
import { SnapshotInput, SnapshotOutput } from "./bytes.js";
import { bytesProblem, privateInput } from "../bytes.js";
import { argumentKind, DYNAMIC_SNAPSHOT_CLASS, readDynamicPayload } from "./dynamic.js";
import { GENERATED_SNAPSHOT_CLASS, readGeneratedPayload } from "./generated.js";
import type { ProtobufGeneratedSerializer } from "../generated/serializer.js";
import type { ProtobufSerializer } from "../serializer.js";
import type { PayloadReader, ReadSnapshotOptions, SerializerSnapshot } from "./types.js";

const MAGIC = Uint8Array.of(0x50, 0x4b, 0x53, 0x53); // "PKSS"
export const ENVELOPE_VERSION = 1;

const PAYLOAD_READERS: ReadonlyMap<string, PayloadReader> = new Map<string, PayloadReader>([
  [DYNAMIC_SNAPSHOT_CLASS, readDynamicPayload],
  [GENERATED_SNAPSHOT_CLASS, readGeneratedPayload],
]);

/** The bytes of a snapshot, to store beside the data it describes. */
export function writeSnapshot(snapshot: SerializerSnapshot<unknown>): Uint8Array {
  if (
    typeof snapshot !== "object" ||
    snapshot === null ||
    typeof snapshot.writePayload !== "function" ||
    !PAYLOAD_READERS.has(snapshot.className)
  ) {
    throw new TypeError(
      "writeSnapshot expects a snapshot from serializer.snapshotConfiguration() or readSnapshot()",
    );
  }
  const out = new SnapshotOutput();
  out.raw(MAGIC);
  out.u8(ENVELOPE_VERSION);
  out.utf8(snapshot.className, "the snapshot class name");
  out.u32(snapshot.version);
  snapshot.writePayload(out);
  return out.finishWithCheck();
}

/**
 * Decodes and checks a snapshot without any application input: magic, envelope version, the
 * integrity check over every byte, class, versions, lengths, limits, fingerprint, that the
 * descriptor set declares the root once, and that nothing follows.
 * Throws `SnapshotFormatError` with a stable `code` and the byte `offset`.
 */
export function readSnapshot(bytes: Uint8Array, options?: ReadSnapshotOptions & { readonly registry?: undefined }): SerializerSnapshot;
/**
 * With a registry the snapshot may be of the generated kind (docs/design.md §11): its serializer is then a
 * ProtobufGeneratedSerializer of the registered schema (`snapshot.kind` tells which).
 */
export function readSnapshot(
  bytes: Uint8Array,
  options?: ReadSnapshotOptions,
): SerializerSnapshot<ProtobufSerializer | ProtobufGeneratedSerializer>;
export function readSnapshot(bytes: Uint8Array, options: ReadSnapshotOptions = {}): SerializerSnapshot<unknown> {
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError(`readSnapshot expects the Uint8Array writeSnapshot returned, got ${argumentKind(bytes)}${(bytes as unknown) instanceof ArrayBuffer ? ": wrap it as new Uint8Array(buffer)" : ""}`);
  }
  const problem = bytesProblem(bytes);
  if (problem !== undefined) throw new TypeError(`readSnapshot expects the Uint8Array writeSnapshot returned, got ${problem}`);
  checkRegistry((options as ReadSnapshotOptions | null)?.registry, options);
  // One private copy of shared memory: the integrity check and the reads after it see the same bytes.
  const input = new SnapshotInput(privateInput(bytes));
  const magic = input.take(MAGIC.length, "the magic");
  if (magic.some((b, i) => b !== MAGIC[i])) {
    input.fail("SNAPSHOT_BAD_MAGIC", 0, 'the bytes do not start with "PKSS"', "pass bytes written by writeSnapshot");
  }
  let at = input.pos;
  const envelopeVersion = input.u8("the envelope version");
  if (envelopeVersion !== ENVELOPE_VERSION) {
    input.fail(
      "SNAPSHOT_UNSUPPORTED_ENVELOPE_VERSION",
      at,
      `envelope version ${envelopeVersion} is not supported (supported: ${ENVELOPE_VERSION})`,
      "read it with the protokeel version that wrote it or a newer one",
    );
  }
  input.verifyCheck();
  at = input.pos;
  const className = input.utf8("the snapshot class name");
  const reader = PAYLOAD_READERS.get(className);
  if (reader === undefined) {
    return input.fail(
      "SNAPSHOT_UNKNOWN_CLASS",
      at,
      `snapshot class ${JSON.stringify(className.slice(0, 200))} is unknown (known: ${[...PAYLOAD_READERS.keys()].join(", ")})`,
      "read it with the protokeel version that wrote it or a newer one",
    );
  }
  at = input.pos;
  const version = input.u32("the snapshot version");
  const snapshot = reader(input, version, at, options);
  if (input.remaining > 0) {
    input.fail(
      "SNAPSHOT_TRAILING_BYTES",
      input.pos,
      `${input.remaining} byte${input.remaining === 1 ? "" : "s"} follow the end of the snapshot`,
      "pass exactly the bytes written by writeSnapshot",
    );
  }
  return snapshot;
}

/**
 * readSnapshot's `registry`: a protobuf-es Registry (getMessage), a Map or a plain object of type
 * name to generated schema, or a list of generated schemas. Another value (a string, a number, a
 * Set) was taken for an empty registry, and the snapshot's restore then said the type was
 * missing from it.
 */
function checkRegistry(registry: unknown, options: unknown): void {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new TypeError(`readSnapshot: options must be an object ({ registry? }), got ${options === null ? "null" : typeof options}`);
  }
  // null is "no registry", as undefined (an earlier version read both so).
  if (registry === undefined || registry === null) return;
  if (Array.isArray(registry)) {
    if (registry.every((d) => (d as { kind?: unknown } | null)?.kind === "message")) return;
    throw new TypeError("readSnapshot: option registry lists something that is not a generated message schema; pass the GenMessage schemas (OrderSchema, …)");
  }
  // A Set, a GenFile, a Uint8Array…: looked up as a plain object, each found nothing.
  if (typeof registry === "object") {
    const proto = Object.getPrototypeOf(registry);
    if (typeof (registry as { getMessage?: unknown }).getMessage === "function" || registry instanceof Map || proto === Object.prototype || proto === null) return;
  }
  throw new TypeError(
    `readSnapshot: option registry must be a protobuf-es Registry, a Map or object of type name to generated schema, or a list of generated schemas, got ${argumentKind(registry)}`,
  );
}
