// The memory backend's checkpoint file, version 1 (all integers big-endian):
//   "PKCP" magic, u8 version (1), u32 state count, then per state:
//     u16 + UTF-8 state name, u8 kind (1 value, 2 map, 3 list), u32 section length L, L bytes of
//     section, u32 CRC-32C over the state's bytes from its name length to the section's end.
//   A section: u32 snapshot length, the serializer snapshot (writeSnapshot), u32 entry count, then
//   per entry a key (u8 tag 0 string / 1 bytes, u32 length, bytes) and
//     value state: one frame;  map state: u32 count, then per item a user key and one frame;
//     list state: u32 count, then that many frames.
//   A frame is the serializer's framing (varint length + message). Nothing may follow the last state.
// Reading checks every state's CRC before decoding anything in it, and decodes every state before
// the store opens: a truncated or corrupted file never yields partial data.
import { concatBytes } from "../bytes.js";
import { CodecError, RestoreError, SnapshotFormatError, StateStoreError, isProtokeelError } from "../errors.js";
import type { DynamicMessage } from "../message/dynamic-message.js";
import type { ProtobufSerializer } from "../serializer.js";
import { crc32c } from "../snapshot/crc32c.js";
import { readSnapshot } from "../snapshot/envelope.js";
import type { SerializerSnapshot } from "../snapshot/types.js";
import { KIND_CODES, keyBytes, keyId, kindOfCode, readKey, showKey, type StateKey, type StateKind } from "./common.js";
import { quoted } from "../descriptor/names.js";

const MAGIC = Uint8Array.of(0x50, 0x4b, 0x43, 0x50); // "PKCP"
export const CHECKPOINT_VERSION = 1;

/** What one state holds, in the order it is written. */
export type StateEntries =
  | { kind: "value"; entries: [StateKey, DynamicMessage][] }
  | { kind: "map"; entries: [StateKey, [StateKey, DynamicMessage][]][] }
  | { kind: "list"; entries: [StateKey, DynamicMessage[]][] };

export interface SavedState {
  readonly name: string;
  readonly kind: StateKind;
  readonly snapshot: SerializerSnapshot;
  readonly snapshotBytes: Uint8Array;
  readonly data: StateEntries;
}

class Out {
  chunks: Uint8Array[] = [];
  push(b: Uint8Array): void {
    this.chunks.push(b);
  }
  u8(v: number): void {
    this.push(Uint8Array.of(v));
  }
  u16(v: number): void {
    this.push(Uint8Array.of(v >>> 8, v & 255));
  }
  u32(v: number): void {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, v);
    this.push(b);
  }
  concat(): Uint8Array {
    return concatBytes(this.chunks);
  }
}

/** Writes one state with `serializer` (write acceptance decides each value); `snapshot` is its writeSnapshot bytes. */
export function encodeState(name: string, data: StateEntries, snapshot: Uint8Array, serializer: ProtobufSerializer): Uint8Array {
  const sec = new Out();
  sec.u32(snapshot.length);
  sec.push(snapshot);
  sec.u32(data.entries.length);
  const frame = (key: StateKey, v: DynamicMessage): Uint8Array => {
    try {
      return serializer.encode(v);
    } catch (e) {
      if (e instanceof CodecError) {
        throw new CodecError(e.code, `state "${name}", key ${showKey(key)}: ${e.message}; the checkpoint was not written`, { path: e.path, cause: e });
      }
      throw e;
    }
  };
  switch (data.kind) {
    case "value":
      for (const [k, v] of data.entries) {
        sec.push(keyBytes(k));
        sec.push(frame(k, v));
      }
      break;
    case "map":
      for (const [k, m] of data.entries) {
        sec.push(keyBytes(k));
        sec.u32(m.length);
        for (const [uk, v] of m) {
          sec.push(keyBytes(uk));
          sec.push(frame(k, v));
        }
      }
      break;
    case "list":
      for (const [k, list] of data.entries) {
        sec.push(keyBytes(k));
        sec.u32(list.length);
        for (const v of list) sec.push(frame(k, v));
      }
      break;
  }
  const section = sec.concat();
  const nameBytes = new TextEncoder().encode(name);
  const out = new Out();
  out.u16(nameBytes.length);
  out.push(nameBytes);
  out.u8(KIND_CODES[data.kind]);
  out.u32(section.length);
  out.push(section);
  const body = out.concat();
  const full = new Uint8Array(body.length + 4);
  full.set(body);
  new DataView(full.buffer).setUint32(body.length, crc32c(body));
  return full;
}

export function checkpointHeader(stateCount: number): Uint8Array {
  const out = new Out();
  out.push(MAGIC);
  out.u8(CHECKPOINT_VERSION);
  out.u32(stateCount);
  return out.concat();
}

/** Reads a whole checkpoint; `restore` gives the serializer that reads a state's values (the saved one). */
export function readCheckpoint(bytes: Uint8Array, file: string): SavedState[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fail = (code: string, at: number, what: string, state?: string): never => {
    throw new SnapshotFormatError(
      code,
      `invalid checkpoint ${file}${state === undefined ? "" : `, state ${quoted(state)}`} at byte ${at}: ${what}; the store did not open: restore from an intact checkpoint`,
      { offset: at },
    );
  };
  if (bytes.length < 9 || MAGIC.some((b, i) => bytes[i] !== b)) {
    fail(bytes.length < 9 ? "CHECKPOINT_TRUNCATED" : "CHECKPOINT_BAD_MAGIC", 0, bytes.length < 9 ? `the file has ${bytes.length} bytes, shorter than the header` : 'the file does not start with "PKCP"');
  }
  if (bytes[4] !== CHECKPOINT_VERSION) fail("CHECKPOINT_UNSUPPORTED_VERSION", 4, `checkpoint version ${bytes[4]} is not supported (supported: ${CHECKPOINT_VERSION})`);
  const count = view.getUint32(5);
  let p = 9;
  const states: SavedState[] = [];
  const seen = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const start = p;
    const label = `#${i + 1} of ${count}`;
    if (p + 2 > bytes.length) fail("CHECKPOINT_TRUNCATED", p, `the file ends before state ${label}`);
    const nameLength = view.getUint16(p);
    if (p + 2 + nameLength + 5 > bytes.length) fail("CHECKPOINT_TRUNCATED", bytes.length, `the file ends inside the header of state ${label}`);
    let name: string;
    try {
      // ignoreBOM: a name beginning with U+FEFF lost it, and its state restored empty.
      name = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes.subarray(p + 2, p + 2 + nameLength));
    } catch {
      return fail("CHECKPOINT_CORRUPTED", p + 2, `the name of state ${label} is not valid UTF-8`);
    }
    // A name twice would leave which copy a store opens to the order of reading: refused.
    const first = seen.get(name);
    if (first !== undefined) fail("CHECKPOINT_CORRUPTED", p + 2, `state ${label} repeats the name of state #${first} of ${count}`, name);
    seen.set(name, i + 1);
    p += 2 + nameLength;
    const kindCode = bytes[p]!;
    const sectionLength = view.getUint32(p + 1);
    p += 5;
    if (p + sectionLength + 4 > bytes.length) {
      fail("CHECKPOINT_TRUNCATED", bytes.length, `the file ends inside the state (it records ${sectionLength} bytes of data from byte ${p})`, name);
    }
    const recorded = view.getUint32(p + sectionLength);
    const computed = crc32c(bytes.subarray(start, p + sectionLength));
    if (recorded !== computed) {
      fail("CHECKPOINT_CORRUPTED", start, `the state's bytes ${start}..${p + sectionLength} fail their CRC-32C check (the file was corrupted or modified)`, name);
    }
    const kind = kindOfCode(kindCode);
    if (kind === undefined) return fail("CHECKPOINT_CORRUPTED", p - 5, `state kind ${kindCode} is unknown`, name);
    states.push(readState(name, kind, bytes.subarray(p, p + sectionLength), p, file));
    p += sectionLength + 4;
  }
  if (p !== bytes.length) fail("CHECKPOINT_TRAILING_BYTES", p, `${bytes.length - p} bytes follow the last state`);
  return states;
}

function readState(name: string, kind: StateKind, sec: Uint8Array, base: number, file: string): SavedState {
  const view = new DataView(sec.buffer, sec.byteOffset, sec.byteLength);
  let p = 0;
  const fail = (at: number, what: string): never => {
    throw new SnapshotFormatError("CHECKPOINT_CORRUPTED", `invalid checkpoint ${file}, state "${name}" at byte ${base + at}: ${what}; the store did not open: restore from an intact checkpoint`, {
      offset: base + at,
    });
  };
  const u32 = (what: string): number => {
    if (p + 4 > sec.length) fail(p, `the state ends inside ${what}`);
    const v = view.getUint32(p);
    p += 4;
    return v;
  };
  const snapLength = u32("the snapshot length");
  if (p + snapLength > sec.length) fail(p, "the snapshot runs past the end of the state");
  const snapshotBytes = sec.slice(p, p + snapLength);
  let snapshot: SerializerSnapshot;
  let serializer: ProtobufSerializer;
  try {
    snapshot = readSnapshot(snapshotBytes);
  } catch (e) {
    if (e instanceof SnapshotFormatError) {
      const at = base + p + (e.offset ?? 0);
      throw new SnapshotFormatError(e.code, `invalid checkpoint ${file}, state "${name}" at byte ${at}: ${e.message}`, { offset: at, cause: e });
    }
    throw e;
  }
  // The heap rule: values are read with the serializer that the saved snapshot restores, before
  // compatibility with the current type is resolved; they keep the saved descriptor.
  try {
    serializer = snapshot.restoreSerializer();
  } catch (e) {
    // A snapshot this process cannot restore (a generated-kind snapshot without its generated
    // type): the store refuses to open, naming the state.
    if (!(e instanceof RestoreError)) throw e;
    throw new StateStoreError("STATE_RESTORE_FAILED", `invalid checkpoint ${file}, state "${name}": ${e.message}`, { state: name, cause: e });
  }
  p += snapLength;
  // A key read twice would have the later entry win silently, as a repeated state name did: each
  // copy passes the state's CRC, so only a count of keys finds it.
  const key = (seen: Set<string>, what: string): StateKey => {
    const at = p;
    const k = readKey(sec, p);
    if (k === undefined) return fail(p, "a key is truncated or malformed");
    const id = keyId(k.key);
    if (seen.has(id)) fail(at, `the ${what} ${showKey(k.key)} appears twice`);
    seen.add(id);
    p = k.end;
    return k.key;
  };
  const frame = (): DynamicMessage => {
    // varint length, then that many bytes
    let len = 0;
    let shift = 0;
    let q = p;
    for (;;) {
      if (q >= sec.length || shift > 28) fail(p, "a value's frame length is truncated or malformed");
      const b = sec[q++]!;
      len += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) break;
      shift += 7;
    }
    if (q + len > sec.length) fail(p, `a value's frame of ${len} bytes runs past the end of the state`);
    try {
      const v = serializer.decode(sec.subarray(p, q + len));
      p = q + len;
      return v;
    } catch (e) {
      if (isProtokeelError(e) && e instanceof CodecError) {
        const at = base + p + (e.offset ?? 0);
        throw new CodecError(e.code, `invalid checkpoint ${file}, state "${name}" at byte ${at}: ${e.message}; the store did not open: restore from an intact checkpoint`, {
          path: e.path,
          offset: at,
          cause: e,
        });
      }
      throw e;
    }
  };
  const n = u32("the entry count");
  const keys = new Set<string>();
  let data: StateEntries;
  if (kind === "value") {
    const entries: [StateKey, DynamicMessage][] = [];
    for (let i = 0; i < n; i++) entries.push([key(keys, "key"), frame()]);
    data = { kind, entries };
  } else if (kind === "map") {
    const entries: [StateKey, [StateKey, DynamicMessage][]][] = [];
    for (let i = 0; i < n; i++) {
      const k = key(keys, "key");
      const m = u32("a map's item count");
      const items: [StateKey, DynamicMessage][] = [];
      const userKeys = new Set<string>();
      for (let j = 0; j < m; j++) items.push([key(userKeys, "user key"), frame()]);
      entries.push([k, items]);
    }
    data = { kind, entries };
  } else {
    const entries: [StateKey, DynamicMessage[]][] = [];
    for (let i = 0; i < n; i++) {
      const k = key(keys, "key");
      const m = u32("a list's length");
      const items: DynamicMessage[] = [];
      for (let j = 0; j < m; j++) items.push(frame());
      entries.push([k, items]);
    }
    data = { kind, entries };
  }
  if (p !== sec.length) fail(p, `${sec.length - p} bytes follow the state's last entry`);
  return { name, kind, snapshot, snapshotBytes, data };
}
