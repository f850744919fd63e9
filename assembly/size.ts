// Bulk helpers for the writer: packed repeated numerics are sized and encoded here in one call
// (per-element calls across the boundary cost more than writing the element in JS).
// Source elements use the tape's PACKED formats (see tape.ts): bool u8, int32/sint32/enum i32,
// uint32 u32, int64/sint64 i64, uint64 u64; fixed-width kinds are copied as they are.
import {
  KIND_BOOL, KIND_DOUBLE, KIND_ENUM, KIND_FIXED32, KIND_FIXED64, KIND_FLOAT, KIND_INT32, KIND_INT64, KIND_SFIXED32,
  KIND_SFIXED64, KIND_SINT32, KIND_SINT64, KIND_UINT32, KIND_UINT64,
} from "./table";
import { varintSize, writeVarint, zigzagEncode32, zigzagEncode64 } from "./varint";

/** Bytes of the packed payload (without tag and length) of `count` elements at src; 0 for an unsupported kind. */
export function packedSize(kind: u32, src: usize, count: u32): u32 {
  let n: u32 = 0;
  let end = src;
  switch (kind) {
    case KIND_FIXED32: case KIND_SFIXED32: case KIND_FLOAT: return count << 2;
    case KIND_FIXED64: case KIND_SFIXED64: case KIND_DOUBLE: return count << 3;
    case KIND_BOOL: return count;
    case KIND_INT32: case KIND_ENUM: {
      end = src + (<usize>count << 2);
      // Negative int32 values are sign-extended to 64 bits on the wire: 10 bytes.
      for (let p = src; p < end; p += 4) n += varintSize(<u64>(<i64>load<i32>(p)));
      return n;
    }
    case KIND_UINT32: {
      end = src + (<usize>count << 2);
      for (let p = src; p < end; p += 4) n += varintSize(<u64>load<u32>(p));
      return n;
    }
    case KIND_SINT32: {
      end = src + (<usize>count << 2);
      for (let p = src; p < end; p += 4) n += varintSize(<u64>zigzagEncode32(load<i32>(p)));
      return n;
    }
    case KIND_INT64: case KIND_UINT64: {
      end = src + (<usize>count << 3);
      for (let p = src; p < end; p += 8) n += varintSize(load<u64>(p));
      return n;
    }
    case KIND_SINT64: {
      end = src + (<usize>count << 3);
      for (let p = src; p < end; p += 8) n += varintSize(zigzagEncode64(load<i64>(p)));
      return n;
    }
  }
  return 0;
}

/** Writes the packed payload of `count` elements at src to dst; returns the bytes written. */
export function writePacked(kind: u32, src: usize, count: u32, dst: usize): u32 {
  let d = dst;
  switch (kind) {
    case KIND_FIXED32: case KIND_SFIXED32: case KIND_FLOAT: {
      memory.copy(dst, src, <usize>count << 2);
      return count << 2;
    }
    case KIND_FIXED64: case KIND_SFIXED64: case KIND_DOUBLE: {
      memory.copy(dst, src, <usize>count << 3);
      return count << 3;
    }
    case KIND_BOOL: {
      for (let i: u32 = 0; i < count; i++) store<u8>(d + i, load<u8>(src + i) != 0 ? 1 : 0);
      return count;
    }
    case KIND_INT32: case KIND_ENUM: {
      let end = src + (<usize>count << 2);
      for (let p = src; p < end; p += 4) d += writeVarint(d, <u64>(<i64>load<i32>(p)));
      break;
    }
    case KIND_UINT32: {
      let end = src + (<usize>count << 2);
      for (let p = src; p < end; p += 4) d += writeVarint(d, <u64>load<u32>(p));
      break;
    }
    case KIND_SINT32: {
      let end = src + (<usize>count << 2);
      for (let p = src; p < end; p += 4) d += writeVarint(d, <u64>zigzagEncode32(load<i32>(p)));
      break;
    }
    case KIND_INT64: case KIND_UINT64: {
      let end = src + (<usize>count << 3);
      for (let p = src; p < end; p += 8) d += writeVarint(d, load<u64>(p));
      break;
    }
    case KIND_SINT64: {
      let end = src + (<usize>count << 3);
      for (let p = src; p < end; p += 8) d += writeVarint(d, zigzagEncode64(load<i64>(p)));
      break;
    }
  }
  return <u32>(d - dst);
}
