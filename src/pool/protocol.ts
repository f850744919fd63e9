// The messages between a protokeel/pool and its workers, and how an error crosses the thread
// boundary: as its name, code, message and details, rebuilt on the calling thread as the same
// class (a structured clone of an Error keeps neither its class nor its code).
// Core names come from "../index.js" only: the CJS build of the pool (tsup.config.ts) maps that
// one import to the core's CJS bundle, so that the rebuilt errors are the application's classes.
import {
  CodecError,
  InvalidDescriptorError,
  InvalidObjectError,
  MissingTypeInfoError,
  PoolError,
  ProtokeelError,
  RestoreError,
  SnapshotFormatError,
  StateStoreError,
} from "../index.js";

/** What the calling thread wants back from a decode: plain objects, or the frames to read lazily. */
export type ResultForm = "object" | "message";

export type Task =
  | { readonly id: number; readonly op: "decodeFrames"; readonly bytes: Uint8Array; readonly shift: number; readonly as: ResultForm }
  | { readonly id: number; readonly op: "decodeBare"; readonly items: Uint8Array[]; readonly as: ResultForm }
  | { readonly id: number; readonly op: "validateFrames"; readonly bytes: Uint8Array; readonly shift: number }
  | { readonly id: number; readonly op: "validateBare"; readonly items: Uint8Array[] }
  | { readonly id: number; readonly op: "encode"; readonly values: unknown[]; readonly form: "frames" | "bare" }
  | { readonly id: number; readonly op: "evaluate"; readonly saved: Uint8Array[]; readonly boundary: unknown };

export type Reply =
  | { readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly id: number; readonly ok: false; readonly error: WireError };

/** The first message of a worker: its type is rebuilt (or why it could not be). */
export type Hello = { readonly ready: true } | { readonly ready: false; readonly error: WireError };

export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly path?: string;
  readonly offset?: number;
  readonly state?: string;
  readonly incompatibilities?: readonly { readonly rule: string; readonly path: string; readonly message: string }[];
}

/** An error as it crosses to the calling thread (JSON-safe fields only, as the errors' toJSON). */
export function toWire(e: unknown): WireError {
  if (!(e instanceof Error)) return { name: "Error", message: `a worker threw a non-error value: ${String(e)}` };
  const x = e as Error & Partial<WireError>;
  const out: { -readonly [K in keyof WireError]: WireError[K] } = { name: e.name, message: e.message };
  if (typeof x.code === "string") out.code = x.code;
  if (typeof x.path === "string") out.path = x.path;
  if (typeof x.offset === "number") out.offset = x.offset;
  if (typeof x.state === "string") out.state = x.state;
  if (Array.isArray(x.incompatibilities)) out.incompatibilities = x.incompatibilities.map((f) => ({ rule: f.rule, path: f.path, message: f.message }));
  return out;
}

const BUILTIN: Record<string, ErrorConstructor> = { Error, RangeError, TypeError, SyntaxError, ReferenceError, EvalError, URIError };

/** The error a worker threw, as the same class with the same code, message and details. */
export function fromWire(w: WireError): Error {
  const code = w.code ?? "";
  switch (w.name) {
    case "CodecError":
      return new CodecError(code, w.message, { path: w.path, offset: w.offset });
    case "SnapshotFormatError":
      return new SnapshotFormatError(code, w.message, { offset: w.offset });
    case "StateStoreError":
      return new StateStoreError(code, w.message, { state: w.state, incompatibilities: w.incompatibilities });
    case "InvalidDescriptorError":
      return new InvalidDescriptorError(code, w.message);
    case "InvalidObjectError":
      return new InvalidObjectError(code, w.message);
    case "MissingTypeInfoError":
      return new MissingTypeInfoError(code, w.message);
    case "RestoreError":
      return new RestoreError(code, w.message);
    case "PoolError":
      return new PoolError(code, w.message);
    case "ProtokeelError":
      return new ProtokeelError(code, w.message);
  }
  const Ctor = BUILTIN[w.name];
  if (Ctor !== undefined) return new Ctor(w.message);
  const e = new Error(w.message);
  e.name = w.name;
  return e;
}
