// The `protokeel` command line: arguments to a command, errors to exit codes. Exit codes: 0
// success (compatible), 1 an incompatible schema change (check) or data that does not decode or
// encode (decode, encode), 2 bad usage or an input that cannot be read.
import { parseArgs } from "node:util";
import { decode, encode, DataError, type DataOptions } from "./data-commands.js";
import { InputError } from "./inputs.js";
import type { Output } from "./output.js";
import { check, inspect } from "./schema-commands.js";
import { quoted } from "../descriptor/names.js";

const USAGE = `usage: protokeel <command> [options]

commands:
  check <saved> <current> [--message <name>] [--boundary binary|json|both] [--format text|json]
      Can a program with the current schema read data written with the saved one? Each side is a
      FileDescriptorSet (buf build -o), a snapshot, a type file, or .proto files (a file or a
      directory, compiled with buf). Exit 0 compatible, 1 incompatible; the report on stdout.
  inspect <snapshot|type file> [--format text|json]
      Kind, root, settings, fingerprint and the schema as .proto text.
  decode --schema <file> [--message <name>] [--framed] [<file>|-]
      Binary (one message, or frames with --framed) to ProtoJSON, one line per message.
      --emit-defaults  --enum-as-integer  --proto-names  --discard-unknown
  encode --schema <file> [--message <name>] [--framed] [<file>|-]
      ProtoJSON (one document, or one message per line with --framed) to binary on stdout.
      --ignore-unknown

options:
  --message <name>      the root message of a descriptor set or .proto input, e.g. acme.Order
  --proto-path <dir>    the import root of a .proto file (default: the file's directory); check
                        takes it twice for sides with roots of their own: the saved side's first
  -h, --help            this text

exit codes: 0 success or compatible, 1 incompatible or bad data, 2 usage or input error
`;

const COMMON = {
  message: { type: "string" },
  "proto-path": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const DATA = {
  ...COMMON,
  schema: { type: "string" },
  framed: { type: "boolean" },
  "emit-defaults": { type: "boolean" },
  "enum-as-integer": { type: "boolean" },
  "proto-names": { type: "boolean" },
  "discard-unknown": { type: "boolean" },
  "ignore-unknown": { type: "boolean" },
} as const;

function positionals(list: string[], min: number, max: number, command: string): string[] {
  if (list.length < min || list.length > max) {
    const want = min === max ? `${min}` : max === min + 1 ? `${min} or ${max}` : `${min} to ${max}`;
    throw new InputError(`protokeel ${command} takes ${want} file argument${max === 1 ? "" : "s"}, got ${list.length}; see protokeel --help`);
  }
  return list;
}

/** Runs one command line; returns the exit code. */
export async function main(argv: string[], out: Output): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === "-h" || command === "--help" || command === "help") {
      out.stdout(USAGE);
      return command === undefined ? 2 : 0;
    }
    switch (command) {
      case "check": {
        const { values, positionals: files } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: { ...COMMON, "proto-path": { type: "string", multiple: true }, boundary: { type: "string" }, format: { type: "string" } },
        });
        if (values.help) return help(out);
        const [saved, current] = positionals(files, 2, 2, command);
        const roots = values["proto-path"] ?? [];
        if (roots.length > 2) throw new InputError(`protokeel check takes --proto-path once (one import root for both sides) or twice (the saved side's, then the current side's), got it ${roots.length} times`);
        return check(saved!, current!, { message: values.message, boundary: values.boundary, format: values.format, protoPaths: [roots[0], roots[1] ?? roots[0]] }, out);
      }
      case "inspect": {
        const { values, positionals: files } = parseArgs({ args: rest, allowPositionals: true, options: { help: COMMON.help, format: { type: "string" } } });
        if (values.help) return help(out);
        return inspect(positionals(files, 1, 1, command)[0]!, values.format, out);
      }
      case "decode":
      case "encode": {
        const { values, positionals: files } = parseArgs({ args: rest, allowPositionals: true, options: DATA });
        if (values.help) return help(out);
        const [file] = positionals(files, 0, 1, command);
        const o: DataOptions = {
          schema: values.schema,
          message: values.message,
          framed: values.framed === true,
          protoPath: values["proto-path"],
          emitDefaults: values["emit-defaults"] === true,
          enumAsInteger: values["enum-as-integer"] === true,
          protoNames: values["proto-names"] === true,
          discardUnknown: values["discard-unknown"] === true,
          ignoreUnknown: values["ignore-unknown"] === true,
        };
        if (command === "decode" && o.ignoreUnknown) throw new InputError("--ignore-unknown is an encode option (reading JSON); decode takes --discard-unknown");
        if (command === "encode" && (o.discardUnknown || o.emitDefaults || o.enumAsInteger || o.protoNames)) {
          throw new InputError("--discard-unknown, --emit-defaults, --enum-as-integer and --proto-names are decode options (writing JSON)");
        }
        return await (command === "decode" ? decode(file, o, out) : encode(file, o, out));
      }
      default:
        throw new InputError(`unknown command ${quoted(command)}; commands: check, inspect, decode, encode (see protokeel --help)`);
    }
  } catch (e) {
    if (e instanceof InputError) {
      out.stderr(`protokeel: ${e.message}\n`);
      return 2;
    }
    if (isUsage(e)) {
      out.stderr(`protokeel: ${usageMessage(e as Error & { code: string }, command!)}\n`);
      return 2;
    }
    if (e instanceof DataError || (e instanceof Error && e.name === "CodecError")) {
      out.stderr(`protokeel: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

function help(out: Output): number {
  out.stdout(USAGE);
  return 0;
}

/**
 * A parseArgs error in the CLI's words (Node's own were capitalized and named no command:
 * "Unknown option '--bogus'. To specify a positional argument starting with a '-', …").
 */
function usageMessage(e: Error & { code: string }, command: string): string {
  // Node names an option with its short form first ("'-h, --help'"): the long one is the name.
  const option = /'(?:-[^-' ], )?(-[^' ]+)/.exec(e.message)?.[1];
  const see = `see protokeel ${command} --help`;
  if (option !== undefined) {
    if (e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `protokeel ${command} has no option ${option}; ${see}`;
    if (/does not take an argument/.test(e.message)) return `option ${option} of protokeel ${command} takes no value; ${see}`;
    if (/argument missing/.test(e.message)) return `option ${option} of protokeel ${command} needs a value; ${see}`;
    if (/argument is ambiguous/.test(e.message)) {
      return `option ${option} of protokeel ${command} needs a value, and the next argument is an option; give one that starts with a dash as ${option}=<value>; ${see}`;
    }
  }
  const first = e.message.split("\n")[0]!.replace(/\.$/, "");
  return `${first.charAt(0).toLowerCase()}${first.slice(1)}; ${see}`;
}

/** parseArgs errors: an unknown option, a missing value. */
function isUsage(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return e instanceof TypeError && typeof code === "string" && code.startsWith("ERR_PARSE_ARGS");
}
