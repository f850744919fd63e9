// A pool's life: transferring the caller's buffers (and only when asked), close() and destroy(), a
// worker that exits or throws mid-task (its batch rejects with POOL_WORKER_EXITED, the worker is
// replaced, other batches are unaffected), a worker script that cannot start (the pool closes
// instead of starting workers forever), many concurrent batches queued fairly, and no unhandled
// rejection anywhere.
import protobuf from "protobufjs";
import { afterAll, afterEach, beforeEach, describe, expect, test } from "vitest";
import { PoolError, ProtobufType } from "../src/index.js";
import type { CodecPool } from "../src/pool/index.js";
import { BROKEN_WORKER, CRASH_WORKER, poolOf } from "./support/pool.js";

const Item = protobuf.parse('syntax = "proto3"; package t; message Item { string s = 1; int64 n = 2; }', { keepCase: true }).root.lookupType("t.Item");
const type = ProtobufType.of(Item);
const ser = type.createSerializer();
const inits = (n: number, len = 1000) => Array.from({ length: n }, (_, i) => ({ s: `item ${i} `.padEnd(len, "x"), n: BigInt(i) }));
/** Frames in a buffer of their own (encodeAll's output may view a larger arena buffer). */
const framesOf = (n: number, len?: number) => ser.encodeAll(inits(n, len)).slice();
const objectsOf = (frames: Uint8Array) => ser.decodeAll(frames).map((v) => v.toObject());

const pools: CodecPool[] = [];
const track = (p: CodecPool) => (pools.push(p), p);
afterAll(async () => {
  await Promise.all(pools.map((p) => p.destroy()));
});

const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);
beforeEach(() => {
  unhandled.length = 0;
  process.on("unhandledRejection", onUnhandled);
});
afterEach(async () => {
  await new Promise((r) => setTimeout(r, 20));
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
});

describe("transfer", () => {
  const pool = track(poolOf({ type, size: 2 }));

  test("off (the default): the caller's buffers are untouched", async () => {
    const frames = framesOf(600);
    const copy = frames.slice();
    const bare = [ser.toBinary({ s: "a" }).slice(), ser.toBinary({ s: "b" }).slice()];
    expect(await pool.decode(frames)).toEqual(objectsOf(copy));
    await pool.decode(bare);
    expect(frames).toEqual(copy);
    // A Node Buffer (whose slice() is a view, not a copy) is untouched too.
    const buffer = Buffer.concat([frames]);
    expect(await pool.decode(buffer)).toEqual(objectsOf(copy));
    expect(buffer.equals(copy)).toBe(true);
    expect(bare.map((b) => b.byteLength)).toEqual([3, 3]);
  });

  test("on: a buffer of frames is detached at the call, and the results are the same", async () => {
    const frames = framesOf(600);
    const expected = objectsOf(frames);
    const pending = pool.decode(frames, { transfer: true });
    expect(frames.byteLength).toBe(0);
    expect(await pending).toEqual(expected);
  });

  test("on: each bare message that owns its buffer is detached; views into a larger buffer are copied", async () => {
    const own = [ser.toBinary({ s: "a" }).slice(), ser.toBinary({ s: "b" }).slice()];
    const big = ser.encodeAll([{ s: "c" }]).slice();
    const view = big.subarray(1);
    const pooled = Buffer.from(ser.toBinary({ s: "d" }));
    const pending = pool.decode([...own, view, pooled], { transfer: true, as: "message" });
    expect(own.map((b) => b.byteLength)).toEqual([0, 0]);
    expect(view.byteLength).toBe(3);
    expect(big.byteLength).toBe(4);
    expect(pooled.byteLength).toBe(3);
    expect((await pending).map((m) => m.get("s"))).toEqual(["a", "b", "c", "d"]);
  });

  // Items that share one ArrayBuffer, one viewing all of it and one a part: the buffer stays with
  // the caller (copied), as for any array that views part of its buffer. Moving it for the whole
  // view detached the part, which then read as the whole buffer (a wrong value, no error) when it
  // came after the whole view, and was detached in the caller's hands when it came before.
  const WHOLE = "\n\u0001c"; // t.Item { s } as 0a 03 0a 01 63: its bytes from 2 on are t.Item { s: "c" }
  test.each<[string, (whole: Uint8Array, part: Uint8Array) => Uint8Array[], string[]]>([
    ["the whole view, then a part", (whole, part) => [whole, part], [WHOLE, "c"]],
    ["a part, then the whole view", (whole, part) => [part, whole], ["c", WHOLE]],
    ["the whole view twice around a part", (whole, part) => [whole, part, new Uint8Array(whole.buffer)], [WHOLE, "c", WHOLE]],
  ])("on: %s of one buffer: the values fromBinary gives, and no array is detached", async (_name, order, strings) => {
    for (const as of ["object", "message"] as const) {
      const whole = Uint8Array.from([0x0a, 0x03, 0x0a, 0x01, 0x63]);
      const part = whole.subarray(2);
      const items = order(whole, part);
      const got = await pool.decode(items, { transfer: true, as });
      const objects = as === "object" ? got : (got as { toObject(): unknown }[]).map((m) => m.toObject());
      expect(objects).toEqual(strings.map((s) => ({ s, n: 0n })));
      expect(items.map((b) => b.byteLength)).toEqual(items.map((b) => (b === part ? 3 : 5)));
    }
  });

  test("a pool created with transfer: true moves by default, and { transfer: false } overrides it", async () => {
    const moving = track(poolOf({ type, size: 1, transfer: true }));
    const a = framesOf(10);
    const b = framesOf(10);
    await Promise.all([moving.validate(a), moving.validate(b, { transfer: false })]);
    expect([a.byteLength, b.byteLength > 0]).toEqual([0, true]);
  });
});

describe("close and destroy", () => {
  test("destroy(): every pending batch rejects with POOL_CLOSED; later calls too", async () => {
    const pool = track(poolOf({ type, size: 1 }));
    const frames = framesOf(2000);
    const pending = Array.from({ length: 5 }, () => pool.decode(frames).then(() => "resolved", (e: PoolError) => e));
    await pool.destroy();
    for (const r of await Promise.all(pending)) {
      expect(r).toBeInstanceOf(PoolError);
      expect((r as PoolError).code).toBe("POOL_CLOSED");
      expect((r as PoolError).message).toBe("the pool of t.Item was destroyed before the batch finished; nothing of it is returned");
    }
    const after = await pool.decode(frames).catch((e: PoolError) => e);
    expect(after).toBeInstanceOf(PoolError);
    expect(after).toMatchObject({ code: "POOL_CLOSED", message: "cannot run decode of t.Item: the pool is closed; create a new pool" });
    await pool.destroy();
    await pool.close();
  });

  test("close(): pending batches finish, new ones are refused, and it resolves once the workers have exited", async () => {
    const pool = track(poolOf({ type, size: 2 }));
    const frames = framesOf(1500);
    const pending = [pool.decode(frames), pool.validate(frames), pool.encode(inits(100))];
    const closed = pool.close();
    const refused = await pool.decode(frames).catch((e: PoolError) => e);
    expect(refused).toMatchObject({ name: "PoolError", code: "POOL_CLOSED", message: "cannot run decode of t.Item: the pool is closing; create a new pool" });
    const [objects, valid, encoded] = await Promise.all(pending);
    expect(objects).toEqual(objectsOf(frames));
    expect(valid).toBeUndefined();
    expect(encoded).toEqual(ser.encodeAll(inits(100)));
    await closed;
    await pool.close();
  });

  test("a pool with nothing pending closes at once", async () => {
    const pool = track(poolOf({ type, size: 3 }));
    await pool.close();
    await expect(pool.validate(new Uint8Array(0))).rejects.toMatchObject({ code: "POOL_CLOSED" });
  });
});

describe("a worker that dies", () => {
  test.each([
    ["process.exit(7) in the worker", { exit: 7 }, /^a worker of the pool exited with code 7 while running encode of t\.Item; the batch is rejected and the worker replaced/],
    ["an uncaught error in the worker", { crash: "boom" }, /^a worker of the pool exited with code 1: boom while running encode of t\.Item; the batch is rejected and the worker replaced/],
  ])("%s: its batch rejects with POOL_WORKER_EXITED, other batches finish, the worker is replaced", async (_name, marker, message) => {
    const pool = track(poolOf({ type, size: 2 }, CRASH_WORKER));
    const frames = framesOf(1500);
    await pool.validate(frames); // both workers started
    const others = [pool.decode(frames), pool.decode(frames), pool.encode(inits(300))];
    const crashed = await pool.encode([marker as never, ...inits(10)]).catch((e: PoolError) => e);
    expect(crashed).toBeInstanceOf(PoolError);
    expect((crashed as PoolError).code).toBe("POOL_WORKER_EXITED");
    expect((crashed as PoolError).message).toMatch(message);
    const [a, b, c] = await Promise.all(others);
    expect(a).toEqual(objectsOf(frames));
    expect(b).toEqual(a);
    expect(c).toEqual(ser.encodeAll(inits(300)));
    // Replaced: the pool keeps its size and runs batches again, on every worker.
    expect(await Promise.all([pool.decode(frames), pool.decode(frames), pool.decode(frames)])).toEqual([a, a, a]);
    await pool.close();
  });

  test("workers that cannot start: pending batches reject with POOL_WORKER_EXITED and the pool closes", async () => {
    const pool = track(poolOf({ type, size: 2 }, BROKEN_WORKER));
    const e = await pool.decode(framesOf(10)).catch((x: PoolError) => x);
    expect(e).toBeInstanceOf(PoolError);
    expect((e as PoolError).code).toBe("POOL_WORKER_EXITED");
    expect((e as PoolError).message).toBe("a worker of the pool of t.Item exited with code 1 before it started: this worker cannot start; the pool is closed");
    await expect(pool.decode(framesOf(10))).rejects.toMatchObject({ code: "POOL_CLOSED" });
    await pool.destroy();
  });
});

describe("under back-pressure", () => {
  test("a large batch does not hold back the small ones submitted after it", async () => {
    const pool = track(poolOf({ type, size: 1 }));
    const big = framesOf(1200); // cut into 2 chunks for one worker
    const small = framesOf(5);
    const order: string[] = [];
    const all = [pool.decode(big).then(() => order.push("big"))];
    for (let i = 0; i < 10; i++) all.push(pool.decode(small).then(() => order.push(`small ${i}`)));
    await Promise.all(all);
    expect(order.indexOf("big")).toBe(10);
    expect(order.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => `small ${i}`));
  });

  // A chunk that postMessage refuses settles without running, leaving its worker idle: the
  // dispatch moved on to the next worker instead of giving this one the next chunk, so with one
  // worker every batch queued behind the refused one waited forever (the idle worker is unref'd,
  // so the process could exit with them pending).
  test.each([
    ["one worker", 1],
    ["two workers", 2],
  ])("a batch that cannot be sent to a worker does not stall the batches queued behind it (%s)", async (_name, size) => {
    const pool = track(poolOf({ type, size }));
    const big = framesOf(1200); // cut into chunks that keep every worker busy
    await pool.validate(big);
    const before = pool.decode(big);
    const refused = pool.encode([{ s: () => "b" }] as never).catch((e: PoolError) => e);
    const after = [pool.decode(big), pool.encode(inits(3))];
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise((resolve) => (timer = setTimeout(() => resolve("stalled"), 5_000)));
    const settled = await Promise.race([Promise.all([before, refused, ...after]), stalled]);
    clearTimeout(timer);
    expect(settled).not.toBe("stalled");
    const [a, e, b, c] = settled as [unknown, PoolError, unknown, unknown];
    expect(e).toMatchObject({ name: "PoolError", code: "POOL_INPUT_NOT_CLONEABLE" });
    expect(a).toEqual(objectsOf(big));
    expect(b).toEqual(a);
    expect(c).toEqual(ser.encodeAll(inits(3)));
    await pool.close();
  });

  test("many concurrent batches all come back, each in its own input order", async () => {
    const pool = track(poolOf({ type, size: 3 }));
    const batches = Array.from({ length: 40 }, (_, k) => ser.encodeAll(inits(20 + k * 7, 200 + k * 50)).slice());
    const results = await Promise.all(batches.map((b, k) => (k % 2 === 0 ? pool.decode(b) : pool.decode(b, { as: "message" }))));
    results.forEach((r, k) => {
      const expected = objectsOf(batches[k]!);
      expect(k % 2 === 0 ? r : (r as { toObject(): unknown }[]).map((m) => m.toObject())).toEqual(expected);
    });
    await pool.close();
  });
});
