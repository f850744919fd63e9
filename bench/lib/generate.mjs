// Seeded, deterministic content for the benchmark fixtures. No Math.random: the same seed gives
// the same content (and so the same reference bytes) on every machine, so runs are comparable.
//
// Content is written in the neutral "init" form that protokeel's DynamicMessage.create takes:
// proto field names, 64-bit integers as bigint, bytes as Uint8Array, a oneof member by its field
// name, enums as numbers. Each adapter maps it to its own library's form.

/** The default seed; any 32-bit integer works. */
export const DEFAULT_SEED = 0x5eed2026;

/**
 * A small PRNG (mulberry32): fast, 32-bit state, good enough to vary benchmark data. Not for
 * anything that needs statistical quality.
 * @param {number} seed
 */
export function createRandom(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const rng = {
    /** uniform uint32 */
    next,
    /** uniform float in [0, 1) */
    float: () => next() / 4294967296,
    /** uniform integer in [0, n) */
    int: (n) => Math.floor((next() / 4294967296) * n),
    /** uniform integer in [lo, hi] */
    range: (lo, hi) => lo + Math.floor((next() / 4294967296) * (hi - lo + 1)),
    bool: (p = 0.5) => next() / 4294967296 < p,
    pick: (items) => items[Math.floor((next() / 4294967296) * items.length)],
    bytes: (n) => {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = next() & 0xff;
      return out;
    },
    /** uniform uint64 as bigint */
    uint64: () => (BigInt(next()) << 32n) | BigInt(next()),
  };
  return rng;
}

const FIRST = ["ada", "alan", "grace", "linus", "barbara", "ken", "dennis", "margaret", "edsger", "donald", "frances", "john", "radia", "guido", "sophie", "tim"];
const LAST = ["lovelace", "turing", "hopper", "torvalds", "liskov", "thompson", "ritchie", "hamilton", "dijkstra", "knuth", "allen", "mccarthy", "perlman", "rossum", "wilson", "berners"];
const DOMAINS = ["example.com", "mail.example.org", "corp.example.net", "acme-industries.io"];
const TAGS = ["beta", "admin", "trial", "eu", "us", "vip", "legacy", "mobile", "api", "sso"];

const cap = (s) => s[0].toUpperCase() + s.slice(1);

/** A `bench.Small` (about 85 bytes encoded). */
export function smallContent(rng) {
  const first = rng.pick(FIRST);
  const last = rng.pick(LAST);
  const tags = [];
  for (let i = rng.range(2, 3); i > 0; i--) tags.push(rng.pick(TAGS));
  return {
    // a millisecond timestamp-sized id: 41 bits, exact as a double too
    id: 1_600_000_000_000n + BigInt(rng.int(100_000_000_000)),
    name: `${cap(first)} ${cap(last)}`,
    email: `${first}.${last}@${rng.pick(DOMAINS)}`,
    age: rng.range(18, 90),
    active: rng.bool(0.8),
    balance: Math.round(rng.float() * 1_000_000) / 100,
    tags,
    tier: rng.range(1, 3),
    delta: rng.range(-5000, 5000),
  };
}

const WORDS = ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do", "eiusmod", "tempor"];

/**
 * A `bench.Classic`, the shape of protobufjs's own benchmark message (about 80 bytes encoded): a
 * short sentence, a uint32, a nested message with 8 packed int32s (mixed sizes, a negative one
 * taking 10 bytes), a bool, a double, an enum and a 16-byte digest.
 */
export function classicContent(rng) {
  const words = [];
  for (let i = rng.range(3, 4); i > 0; i--) words.push(rng.pick(WORDS));
  const values = [];
  for (let i = 0; i < 8; i++) values.push(i === 3 ? -rng.range(1, 1000) : rng.range(0, 2 ** rng.range(4, 24)));
  return {
    text: cap(words.join(" ")) + ".",
    count: rng.range(1000, 1_000_000),
    inner: { values },
    flag: true,
    ratio: Math.round(rng.float() * 1e6) / 1e3,
    level: rng.range(1, 3),
    digest: rng.bytes(16),
  };
}

const SERVICES = ["checkout", "cart", "payments", "inventory", "shipping", "frontend", "auth", "search"];
const ROUTES = ["/api/v1/orders/{order_id}/items", "/api/v1/cart/{cart_id}", "/api/v1/users/{user_id}/profile", "/healthz", "/api/v1/search", "/api/v1/payments/{payment_id}"];
const METHODS = ["GET", "POST", "PUT", "DELETE"];
const DB_OPS = ["SELECT orders", "SELECT users", "UPDATE cart", "INSERT payments", "SELECT inventory"];
const HOSTS = ["db-1.internal", "db-2.internal", "cache-1.internal", "api.example.com"];
const AGENTS = [
  "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15",
  "okhttp/4.12.0",
  "curl/8.4.0",
];
const EVENTS = ["exception", "retry", "cache.miss", "message.sent", "message.received"];

const str = (key, value) => ({ key, value: { string_value: value } });
const int = (key, value) => ({ key, value: { int_value: BigInt(value) } });
const bool = (key, value) => ({ key, value: { bool_value: value } });
const dbl = (key, value) => ({ key, value: { double_value: value } });

function spanAttributes(rng, kind) {
  if (kind === 3 && rng.bool(0.5)) {
    // database client span
    return [
      str("db.system", rng.pick(["postgresql", "redis", "mysql"])),
      str("db.name", rng.pick(["orders", "users", "catalog"])),
      str("db.statement", `${rng.pick(DB_OPS)} WHERE tenant_id = ? AND id = ? LIMIT ${rng.range(1, 100)}`),
      str("net.peer.name", rng.pick(HOSTS)),
      int("net.peer.port", rng.pick([5432, 6379, 3306])),
      int("thread.id", rng.range(1, 64)),
      bool("db.cached", rng.bool(0.2)),
    ];
  }
  const attrs = [
    str("http.method", rng.pick(METHODS)),
    str("http.route", rng.pick(ROUTES)),
    int("http.status_code", rng.pick([200, 200, 200, 201, 204, 404, 500])),
    str("net.host.name", rng.pick(HOSTS)),
    str("user_agent.original", rng.pick(AGENTS)),
    dbl("http.duration_ms", Math.round(rng.float() * 50_000) / 100),
    int("http.response.body.size", rng.range(0, 200_000)),
  ];
  if (rng.bool(0.1)) attrs.push({ key: "http.request.id", value: { bytes_value: rng.bytes(8) } });
  return attrs;
}

/** A `bench.SpanBatch`: 50 spans of an OpenTelemetry-like trace export (about 18 KB). */
export function spanContent(rng, spanCount = 50) {
  // wall-clock nanoseconds around 2026: above 2^53, so a codec that reads 64-bit as a double loses them
  const t0 = 1_780_000_000_000_000_000n + BigInt(rng.next()) * 1000n;
  const spans = [];
  let traceId = rng.bytes(16);
  let parent = null;
  for (let i = 0; i < spanCount; i++) {
    if (i % 10 === 0) {
      traceId = rng.bytes(16);
      parent = null;
    }
    const spanId = rng.bytes(8);
    const kind = parent === null ? 2 : rng.pick([1, 3, 3, 4]);
    const start = t0 + BigInt(i) * 1_000_000n + BigInt(rng.int(1_000_000));
    const span = {
      trace_id: traceId,
      span_id: spanId,
      name: kind === 2 ? `${rng.pick(METHODS)} ${rng.pick(ROUTES)}` : rng.pick(DB_OPS),
      kind,
      start_time_unix_nano: start,
      end_time_unix_nano: start + BigInt(rng.range(10_000, 90_000_000)),
      attributes: spanAttributes(rng, kind),
      events: [],
      status: { code: rng.bool(0.9) ? 1 : 2 },
    };
    if (parent !== null) span.parent_span_id = parent;
    if (span.status.code === 2) span.status.message = "upstream failed";
    if (rng.bool(0.3)) {
      span.events.push({
        time_unix_nano: start + BigInt(rng.int(10_000)),
        name: rng.pick(EVENTS),
        attributes: [str("exception.type", rng.pick(["TimeoutError", "IOError"])), str("exception.message", "deadline exceeded")],
      });
    }
    spans.push(span);
    parent = spanId;
  }
  const service = rng.pick(SERVICES);
  return {
    resource: {
      attributes: [
        str("service.name", service),
        str("service.namespace", "shop"),
        str("service.version", `1.${rng.int(20)}.${rng.int(10)}`),
        str("service.instance.id", `${service}-${rng.int(1000)}`),
        str("telemetry.sdk.name", "opentelemetry"),
        str("telemetry.sdk.language", "nodejs"),
        str("telemetry.sdk.version", "1.24.0"),
        str("cloud.region", rng.pick(["eu-west-1", "us-east-1"])),
      ],
    },
    spans,
    schema_url: "https://opentelemetry.io/schemas/1.24.0",
  };
}

/** A `bench.Numeric`: 1000 packed doubles, 1000 packed sint64, 1000 packed fixed32. */
export function numericContent(rng, count = 1000) {
  const samples = [];
  const deltas = [];
  const counters = [];
  for (let i = 0; i < count; i++) {
    samples.push((rng.float() - 0.5) * 2 ** rng.range(-8, 40));
    // magnitudes spread evenly over 0..62 bits, so every varint length 1..10 occurs and about
    // 15% of the values need more than 53 bits
    const bits = BigInt(rng.range(0, 62));
    const magnitude = rng.uint64() >> (64n - bits);
    deltas.push(rng.bool() ? -magnitude : magnitude);
    counters.push(rng.next());
  }
  return { samples, deltas, counters };
}

/** A `bench.Node` chain `depth` levels deep (the root is level 1). */
export function nestedContent(rng, depth = 80) {
  let node = null;
  for (let level = depth; level >= 1; level--) {
    const weights = [];
    for (let i = rng.int(4); i > 0; i--) weights.push(rng.range(-1000, 1000));
    const next = { id: level, label: `node-${level}`, weights };
    if (node !== null) next.child = node;
    node = next;
  }
  return node;
}

/** `count` different `bench.Small` contents, for the batch of varint-delimited frames. */
export function framesContent(rng, count = 1000) {
  const out = [];
  for (let i = 0; i < count; i++) out.push(smallContent(rng));
  return out;
}
