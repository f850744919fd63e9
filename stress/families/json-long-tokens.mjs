// ProtoJSON: tokens of 100n characters: whitespace between tokens, a double of that many digits,
// a Duration of that many second digits (leading zeros), and refused ones: an int64 literal and a
// Timestamp fraction of that many digits.
import { JSON_SCHEMA, jsonTypeOf } from "../lib.mjs";

const ser = jsonTypeOf(JSON_SCHEMA, "J").type.createSerializer();

function refused(text) {
  try {
    ser.fromJsonString(text);
  } catch (e) {
    if (e.code === "JSON_INVALID_VALUE") return;
    throw e;
  }
  throw new Error("not refused");
}

export const family = {
  name: "json: whitespace, numbers, durations of 100n characters",
  prepare: (n) => {
    const k = 100 * n;
    return [
      `{${" ".repeat(k)}"a"${"\n".repeat(k)}:${"\t".repeat(k)}1${"\r".repeat(k)}}`,
      `{"dbl":1.${"1".repeat(k)}e5,"d":"${"1".padStart(k, "0")}.5s"}`,
      `{"big":${"9".repeat(k)}}`,
      `{"big":"-${"0".repeat(k)}1${"0".repeat(30)}"}`,
      `{"t":"2020-01-01T00:00:00.${"1".repeat(k)}Z"}`,
    ];
  },
  run: ([ws, ok, ...bad]) => {
    ser.fromJsonString(ws);
    ser.fromJsonString(ok);
    for (const t of bad) refused(t);
  },
};
