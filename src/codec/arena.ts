// Append-only byte arenas. A Uint8Array over 64 bytes costs an off-heap allocation each in Node 20
// (230-700 ns, docs/design.md §13); a view on an existing ArrayBuffer does not, so small outputs and
// copies are cut from shared chunks. A piece is handed out once and its bytes are never written
// by the arena again: whatever one caller holds, no later call can overwrite.
//
// The read path and the write path have an arena each (`readArena`, `writeArena`), so that
// nothing a decode returns (bytes fields, unknown fields, source copies) can lie in memory that a
// write in progress is filling, even when a decode runs in the middle of a write (a lazily decoded
// value materialized by the writer).

export class Arena {
  private buf: ArrayBuffer;
  private view: Uint8Array;
  private pos: number;

  /**
   * `chunkBytes` per shared chunk; pieces over `maxPiece` bytes get their own buffer, so that a
   * small piece never keeps a large one alive (and the reverse) beyond one chunk.
   */
  constructor(
    private readonly chunkBytes: number,
    readonly maxPiece: number,
    /** Where pieces over maxPiece go, up to its own maxPiece (else each gets its own buffer). */
    readonly next?: Arena,
  ) {
    this.buf = new ArrayBuffer(chunkBytes);
    this.view = new Uint8Array(this.buf);
    this.pos = 0;
  }

  private fresh(): void {
    this.buf = new ArrayBuffer(this.chunkBytes);
    this.view = new Uint8Array(this.buf);
    this.pos = 0;
  }

  /**
   * A chunk that the application detached (it transferred a piece's `.buffer`, which the README
   * asks it not to) is replaced: writing into it threw the engine's TypeError from every later
   * write and decode in the process. A view of a detached buffer has length 0; a chunk's never
   * has. (The view's length, not the buffer's byteLength: that getter cost ~7% of the generated
   * kind's decode of the classic fixture, A/B in one process; the view's costs nothing measurable.)
   */
  private get detached(): boolean {
    return this.view.length === 0;
  }

  /** A Uint8Array of exactly n bytes that the caller owns (zeroed or not: the caller fills it). */
  alloc(n: number): Uint8Array {
    if (n > this.maxPiece) return this.next !== undefined ? this.next.alloc(n) : new Uint8Array(n);
    if (this.pos + n > this.chunkBytes || this.detached) this.fresh();
    const out = new Uint8Array(this.buf, this.pos, n);
    // 8-aligned pieces, so that callers may build aligned typed views on them.
    this.pos += (n + 7) & ~7;
    return out;
  }

  /**
   * `alloc` without making a view, for hot paths that keep (chunk, offset) pairs: reserves n ≤
   * maxPiece bytes and returns their offset in `chunk` (read `chunk` right after this call).
   */
  reserve(n: number): number {
    if (this.pos + n > this.chunkBytes || this.detached) this.fresh();
    const at = this.pos;
    this.pos += (n + 7) & ~7;
    return at;
  }

  /** The current chunk (see `reserve`). */
  get chunk(): Uint8Array {
    return this.view;
  }

  /**
   * Claims the free tail of the current chunk (at least `maxPiece` bytes) for a writer that does
   * not know its output size yet; returns its start in `chunk` (read `chunk` right after). Until
   * `settle` or `cancel`, every `alloc` starts a new chunk, so the tail is the writer's alone,
   * whatever runs in between.
   */
  lease(): number {
    if (this.chunkBytes - this.pos < this.maxPiece || this.detached) this.fresh();
    const start = this.pos;
    this.pos = this.chunkBytes;
    return start;
  }

  /**
   * Ends a lease of `chunk` at `start`: `used` bytes from its start are the writer's output
   * (returned as a piece); the rest of the tail goes back when nothing was allocated meanwhile.
   */
  settle(chunk: Uint8Array, start: number, used: number): Uint8Array {
    // The chunk's buffer as the arena holds it: the view's .buffer getter was a third of the
    // view's cost (38 -> 24 ns a piece), ~7% of a one-field encode.
    if (this.view !== chunk) return new Uint8Array(chunk.buffer, start, used);
    const out = new Uint8Array(this.buf, start, used);
    if (this.pos === this.chunkBytes) this.pos = start + ((used + 7) & ~7);
    return out;
  }

  /** Ends a lease without output (a failed write, or one that moved elsewhere). */
  cancel(chunk: Uint8Array, start: number): void {
    if (this.view === chunk && this.pos === this.chunkBytes) this.pos = start;
  }
}

// Pieces of 4-32 KiB (the bench's span and numeric messages, ~17-18 KB) come from 256 KiB chunks
// (one live piece keeps its whole chunk alive: 8-64x the largest pieces of a tier, as for the
// small tier's 64 KiB chunks, and more for tiny ones, up to the chunk size): a fresh
// Uint8Array per decode or encode of that size is an off-heap allocation, and in Chromium it was
// the cost that kept span decode under protobufjs (issue 13).
export const MID_CHUNK = 256 * 1024;
const MID_PIECE = 32 * 1024;
export const SMALL_CHUNK = 64 * 1024;
export const SMALL_PIECE = 4096;

/** Copies of input ranges that decoded values keep: bytes and unknown fields, source bytes. */
export const readArena = new Arena(SMALL_CHUNK, SMALL_PIECE, new Arena(MID_CHUNK, MID_PIECE));

/** Outputs of the write path. */
export const writeArena = new Arena(64 * 1024, 4096, new Arena(MID_CHUNK, MID_PIECE));
