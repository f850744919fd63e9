// The worker of protokeel/pool (dist/pool/worker.js, an ES module in every build: a CJS pool starts
// it too). It rebuilds the pool's type once from its transfer form and runs tasks one at a time,
// with the same serializer calls a single thread makes, so that results and errors are theirs.
import { parentPort, workerData } from "node:worker_threads";
import { evaluateSchemaChange, ProtobufType, type EvaluateSchemaChangeOptions, type ProtobufSerializer } from "../index.js";
import { shifted } from "../errors.js";
import { toWire, type Hello, type Reply, type Task } from "./protocol.js";

const port = parentPort!;

/** `bytes` as an array that owns its whole buffer, so that transferring the buffer moves nothing else. */
function owned(bytes: Uint8Array): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && !(bytes.buffer instanceof SharedArrayBuffer)) return bytes;
  const out = new Uint8Array(bytes.length);
  out.set(bytes);
  return out;
}

function run(ser: ProtobufSerializer, type: ProtobufType, task: Task): { result: unknown; transfer: ArrayBuffer[] } {
  switch (task.op) {
    case "decodeFrames": {
      if (task.as === "message") {
        validateFrames(ser, task.bytes, task.shift);
        return { result: task.bytes, transfer: [task.bytes.buffer as ArrayBuffer] };
      }
      let values;
      try {
        values = ser.decodeAll(task.bytes);
      } catch (e) {
        throw shifted(e, task.shift);
      }
      return { result: values.map((v) => v.toObject()), transfer: [] };
    }
    case "decodeBare": {
      if (task.as === "message") {
        for (const b of task.items) ser.validate(b);
        return { result: task.items, transfer: buffersOf(task.items) };
      }
      return { result: task.items.map((b) => ser.fromBinary(b).toObject()), transfer: [] };
    }
    case "validateFrames":
      validateFrames(ser, task.bytes, task.shift);
      return { result: undefined, transfer: [] };
    case "validateBare":
      for (const b of task.items) ser.validate(b);
      return { result: undefined, transfer: [] };
    case "encode": {
      if (task.form === "frames") {
        const out = owned(ser.encodeAll(task.values as never));
        return { result: out, transfer: [out.buffer as ArrayBuffer] };
      }
      const out = task.values.map((v) => owned(ser.toBinary(v as never)));
      return { result: out, transfer: out.map((b) => b.buffer as ArrayBuffer) };
    }
    case "evaluate": {
      const options = { currentSettings: type.settings, boundary: task.boundary } as EvaluateSchemaChangeOptions;
      const result = task.saved.map((bytes) => {
        const saved = ProtobufType.fromBytes(bytes);
        return evaluateSchemaChange(saved.descriptor, type.descriptor, { ...options, savedSettings: saved.settings });
      });
      return { result, transfer: [] };
    }
  }
}

function validateFrames(ser: ProtobufSerializer, bytes: Uint8Array, shift: number): void {
  try {
    ser.validateAll(bytes);
  } catch (e) {
    throw shifted(e, shift);
  }
}

function buffersOf(items: readonly Uint8Array[]): ArrayBuffer[] {
  return [...new Set(items.map((b) => b.buffer as ArrayBuffer))];
}

let type: ProtobufType;
let ser: ProtobufSerializer;
try {
  type = ProtobufType.fromBytes((workerData as { type: Uint8Array }).type);
  ser = type.createSerializer();
  port.postMessage({ ready: true } satisfies Hello);
} catch (e) {
  port.postMessage({ ready: false, error: toWire(e) } satisfies Hello);
}

port.on("message", (task: Task) => {
  let reply: Reply;
  let transfer: ArrayBuffer[] = [];
  try {
    const done = run(ser, type, task);
    reply = { id: task.id, ok: true, result: done.result };
    transfer = done.transfer;
  } catch (e) {
    reply = { id: task.id, ok: false, error: toWire(e) };
  }
  port.postMessage(reply, transfer);
});
