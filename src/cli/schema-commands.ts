// `protokeel check` and `protokeel inspect`: schema questions answered from files.
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { evaluateSchemaChange, formatFindings, type ProtobufType } from "../index.js";
import { InputError, isProtoSource, loadSchema } from "./inputs.js";
import { protoText } from "../descriptor/proto-text.js";
import type { Output } from "./output.js";

// A check's two sides may come from two checkouts, each with its own import root.
const BOTH_SIDES = "; when the saved and the current side have import roots of their own, give --proto-path twice: the saved side's root, then the current side's";

const BOUNDARIES = { binary: "binary", json: "json", both: "binary+json" } as const;

export interface CheckOptions {
  readonly message: string | undefined;
  readonly boundary: string | undefined;
  readonly format: string | undefined;
  /** The import roots of the saved and the current side's .proto input (--proto-path once or twice). */
  readonly protoPaths: readonly [string | undefined, string | undefined];
}

/** Exit code 0 when `current` reads what `saved` wrote, 1 when not; the report on stdout. */
export function check(saved: string, current: string, o: CheckOptions, out: Output): number {
  const boundary = BOUNDARIES[(o.boundary ?? "binary") as keyof typeof BOUNDARIES];
  if (boundary === undefined) throw new InputError(`--boundary must be binary, json or both, got ${o.boundary}`);
  const format = o.format ?? "text";
  if (format !== "text" && format !== "json") throw new InputError(`--format must be text or json, got ${format}`);
  const [savedRoot, currentRoot] = o.protoPaths;
  if ((savedRoot ?? currentRoot) !== undefined && !isProtoSource(saved) && !isProtoSource(current)) {
    throw new InputError(
      "--proto-path applies to .proto input, and neither side is .proto source (descriptor sets, snapshots and type files have no imports to resolve); leave it out",
    );
  }
  const shared = savedRoot === currentRoot;
  const hint = savedRoot !== undefined && shared ? BOTH_SIDES : "";
  // Two roots are one per side: a root given for a side that is no .proto source is a mistake.
  const unused = shared ? null : "give --proto-path once, for the side that is .proto source";
  const s = loadSchema(saved, o.message, savedRoot, undefined, hint, unused);
  const c = loadSchema(current, o.message, currentRoot, undefined, hint, unused);
  const result = evaluateSchemaChange(s.type.descriptor, c.type.descriptor, {
    savedSettings: s.type.settings,
    currentSettings: c.type.settings,
    boundary,
  });
  if (format === "json") {
    out.stdout(`${JSON.stringify({ saved, current, message: c.type.fullName, boundary, ...result }, null, 2)}\n`);
  } else {
    out.stdout(`${c.type.fullName}: ${saved} (${s.source}) → ${current} (${c.source}), ${boundary === "binary+json" ? "binary and JSON" : boundary} boundary\n${formatFindings(result)}\n`);
  }
  return result.compatible ? 0 : 1;
}

const INSPECTS = "inspect reads snapshots (writeSnapshot) and type files (type.toBytes())";

/** Kind, root, settings, fingerprint and the schema of a snapshot or type file. */
export function inspect(path: string, format: string | undefined, out: Output): number {
  const fmt = format ?? "text";
  if (fmt !== "text" && fmt !== "json") throw new InputError(`--format must be text or json, got ${fmt}`);
  const loaded = loadSchema(path, undefined, undefined, INSPECTS);
  const snap = loaded.snapshot;
  const generated = snap?.kind === "generated" ? snap.generatedTypeName : undefined;
  const type: ProtobufType = loaded.type;
  const set = snap !== undefined ? snap.normalizedDescriptorSet() : type.normalizedDescriptorSet();
  const schema = protoText(fromBinary(FileDescriptorSetSchema, set));
  const info = {
    kind: snap !== undefined ? `${snap.kind} serializer snapshot` : `${type.kind} type (transfer form)`,
    className: snap?.className,
    generatedTypeName: generated,
    version: snap?.version,
    root: type.fullName,
    settings: type.settings,
    fingerprint: snap?.fingerprint ?? type.fingerprint(),
    framingVersion: snap?.framingVersion ?? 1,
    normalizationVersion: snap?.normalizationVersion ?? 1,
    descriptorSetBytes: set.length,
  };
  if (fmt === "json") {
    out.stdout(`${JSON.stringify({ ...info, schema }, null, 2)}\n`);
    return 0;
  }
  const s = info.settings;
  out.stdout(
    [
      `kind:         ${info.kind}${snap !== undefined ? ` (${snap.className}, version ${snap.version})` : ""}`,
      `root:         ${info.root}`,
      ...(generated === undefined ? [] : [`generated:    ${generated} (protobuf-es; decode and check read its saved schema)`]),
      `settings:     maxMessageBytes ${s.maxMessageBytes}, maxDepth ${s.maxDepth}, deterministic ${s.deterministic}, aliasThreshold ${s.aliasThreshold}`,
      `fingerprint:  ${info.fingerprint}`,
      `versions:     framing ${info.framingVersion}, normalization ${info.normalizationVersion}`,
      `schema:       ${set.length} bytes (normalized descriptor set)`,
      "",
      schema,
      "",
    ].join("\n"),
  );
  return 0;
}
