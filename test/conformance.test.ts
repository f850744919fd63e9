// protobuf's conformance suite, replayed: test/fixtures/conformance/corpus.bin holds every request
// protobuf's conformance_test_runner (v33.2) sent for proto3 binary and ProtoJSON that protokeel
// answers, with the deterministic dynamic kind's response, recorded by scripts/conformance.mjs
// --record when the runner passed every test of all four modes below (recommended ones included
// for the deterministic ones). The runner itself needs glibc 2.38 and may not start where the tests
// run; this replay holds the answers it accepted:
// - deterministic dynamic and generated kinds: the same answer (errors by kind: their messages
//   are protokeel's and may be reworded), the output bytes or JSON text exactly;
// - without `deterministic`: the same answer, output equal as a message (a relay writes the
//   bytes it read: README "Writing").
// The generated kind has no JSON methods (its JSON answers are protobuf-es'), so its JSON
// outputs are not compared.
import { equals, fromBinary } from "@bufbuild/protobuf";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";
import { conformanceHandler, envelope, FORMAT_JSON } from "./conformance/handler.mjs";
import { compileProtoDir } from "./support/buf.js";

const set = compileProtoDir("fixtures/conformance");
const { Request, Response, Test } = envelope(set);

interface Answer {
  result: { case: string | undefined; value?: unknown };
}
interface Pair {
  request: Uint8Array;
  format: number;
  input: string;
  expected: Answer["result"];
}

function readCorpus(): Pair[] {
  const bytes = readFileSync(join(import.meta.dirname, "fixtures/conformance/corpus.bin"));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pairs: Pair[] = [];
  let p = 0;
  const next = () => {
    const n = view.getUint32(p, true);
    const b = new Uint8Array(bytes.subarray(p + 4, p + 4 + n));
    p += 4 + n;
    return b;
  };
  while (p < bytes.length) {
    const request = next();
    const r = fromBinary(Request, request) as unknown as { requestedOutputFormat: number; payload: { case: string } };
    pairs.push({ request, format: r.requestedOutputFormat, input: r.payload.case, expected: (fromBinary(Response, next()) as unknown as Answer).result });
  }
  return pairs;
}

const corpus = readCorpus();

/** JSON text with every object's keys sorted. */
function sortedJson(text: string): string {
  return JSON.stringify(JSON.parse(text), (_, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

test("the corpus holds the suite's proto3 binary and JSON requests, as recorded", () => {
  // From protobuf v33.2's runner: a corpus that lost part of itself would pass the replay below.
  const mix: Record<string, number> = {};
  for (const x of corpus) mix[`${x.input} -> ${x.expected.case}`] = (mix[`${x.input} -> ${x.expected.case}`] ?? 0) + 1;
  expect(mix).toEqual({
    "protobufPayload -> protobufPayload": 508,
    "protobufPayload -> jsonPayload": 304,
    "protobufPayload -> parseError": 190,
    "protobufPayload -> serializeError": 15,
    "jsonPayload -> protobufPayload": 168,
    "jsonPayload -> jsonPayload": 177,
    "jsonPayload -> parseError": 114,
  });
});

const MODES = [
  { name: "dynamic, deterministic", kind: "dynamic", deterministic: true },
  { name: "dynamic", kind: "dynamic", deterministic: false },
  { name: "generated, deterministic", kind: "generated", deterministic: true },
  { name: "generated", kind: "generated", deterministic: false },
] as const;

describe.each(MODES)("$name", ({ kind, deterministic }) => {
  test("answers every request as the runner accepted", () => {
    const handle = conformanceHandler(ProtobufType, set, { kind, deterministic });
    const wrong: string[] = [];
    let compared = 0;
    for (const [i, pair] of corpus.entries()) {
      // protobuf-es' JSON, not protokeel's.
      if (kind === "generated" && pair.format === FORMAT_JSON) continue;
      const got = (fromBinary(Response, handle(pair.request)) as unknown as Answer).result;
      const want = pair.expected;
      compared++;
      let same = got.case === want.case;
      if (same && got.case === "protobufPayload") {
        same = deterministic
          ? Buffer.from(got.value as Uint8Array).equals(want.value as Uint8Array)
          : // equals says NaN is not NaN: equal bytes are equal messages first.
            Buffer.from(got.value as Uint8Array).equals(want.value as Uint8Array) || equals(Test, fromBinary(Test, got.value as Uint8Array), fromBinary(Test, want.value as Uint8Array));
      } else if (same && got.case === "jsonPayload") {
        // Map entries and Struct keys are in insertion order without `deterministic`.
        same = deterministic ? got.value === want.value : sortedJson(got.value as string) === sortedJson(want.value as string);
      }
      if (!same) wrong.push(`#${i} (${pair.input} in): want ${want.case} ${String(want.value).slice(0, 80)}, got ${got.case} ${String(got.value).slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
    expect(compared).toBe(kind === "generated" ? 866 : 1476);
  });
});
