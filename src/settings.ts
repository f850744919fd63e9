import { quoted, shortName } from "./descriptor/names.js";

/** The four settings of a type (docs/design.md §5). They are part of type identity. */
export interface Settings {
  /** Largest message payload written or read, in bytes. Defaults to 67,108,864 (64 MiB). */
  readonly maxMessageBytes: number;
  /** Deepest message nesting written or read; the root is depth 1. Defaults to 100. */
  readonly maxDepth: number;
  /**
   * Canonical output: known fields by number, map entries by key, unknown fields last in stored
   * order. Defaults to false.
   */
  readonly deterministic: boolean;
  /**
   * Bytes fields of at least this many bytes decode as views into the input buffer instead of
   * copies; 0 means never alias. Defaults to 0.
   */
  readonly aliasThreshold: number;
}

export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  maxMessageBytes: 67_108_864,
  maxDepth: 100,
  deterministic: false,
  aliasThreshold: 0,
});

/** Largest accepted value of `maxMessageBytes` (the largest signed 32-bit integer). */
export const MAX_MESSAGE_BYTES_LIMIT = 2_147_483_647;
/** Largest accepted value of `maxDepth`. */
export const MAX_DEPTH_LIMIT = 10_000;

function checkInt(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(
      `setting ${name} must be an integer in ${min}..${max}, got ${describe(value)}`,
    );
  }
  return value;
}

function describe(value: unknown): string {
  if (typeof value === "string") return quoted(value);
  if (typeof value === "bigint") return `${shortName(String(value))}n`;
  return String(value);
}

/**
 * Validates a complete or partial settings object and fills defaults. Throws `RangeError`
 * naming the setting and its range. A setting that is missing or `undefined` takes its default;
 * `null` is refused like any other value out of range (it was taken for the default). With
 * `strict` (a builder's setter), a setting present as `undefined` is refused too: `.maxDepth()`
 * called with nothing is a mistake, not a request for the default.
 */
export function resolveSettings(partial: Partial<Settings> = {}, strict = false): Settings {
  if (typeof partial !== "object" || partial === null) {
    throw new TypeError(`settings must be an object ({ maxMessageBytes?, maxDepth?, deterministic?, aliasThreshold? }), got ${partial === null ? "null" : typeof partial}`);
  }
  const pick = <K extends keyof Settings>(key: K): Settings[K] => {
    const v = partial[key];
    return v === undefined && !(strict && key in partial) ? DEFAULT_SETTINGS[key] : (v as Settings[K]);
  };
  const maxMessageBytes = checkInt("maxMessageBytes", pick("maxMessageBytes"), 1, MAX_MESSAGE_BYTES_LIMIT);
  const maxDepth = checkInt("maxDepth", pick("maxDepth"), 1, MAX_DEPTH_LIMIT);
  const deterministic = pick("deterministic");
  if (typeof deterministic !== "boolean") {
    throw new RangeError(`setting deterministic must be a boolean, got ${describe(deterministic)}`);
  }
  const aliasThreshold = checkInt("aliasThreshold", pick("aliasThreshold"), 0, maxMessageBytes);
  return Object.freeze({ maxMessageBytes, maxDepth, deterministic, aliasThreshold });
}

export function settingsEqual(a: Settings, b: Settings): boolean {
  return (
    a.maxMessageBytes === b.maxMessageBytes &&
    a.maxDepth === b.maxDepth &&
    a.deterministic === b.deterministic &&
    a.aliasThreshold === b.aliasThreshold
  );
}
