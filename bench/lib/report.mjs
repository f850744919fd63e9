// The outputs of a run: a markdown table (printed, pasteable into README.md), the JSON record and
// a hand-written SVG bar chart of the ratios to protobufjs reflection.

/** The codec every ratio is relative to. */
export const BASELINE = "pbjs-reflect";

const int = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const fix = (digits) => new Intl.NumberFormat("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

const opsText = (v) => (v >= 100 ? int.format(v) : fix(1).format(v));
const mbText = (v) => (v >= 100 ? int.format(v) : fix(1).format(v));
/** How the tables name an operation (cases and the JSON keep the id, e.g. small/encode-plain/pbf). */
export const OPERATION_LABELS = { "encode-plain": "encode from plain" };
export const operationLabel = (op) => OPERATION_LABELS[op] ?? op;

export const ratioText = (v) => `${v >= 10 ? fix(1).format(v) : fix(2).format(v)}×`;

/**
 * Fills in ratio and rank per fixture×operation. Rows that failed their check are not ranked.
 * @param {Array<any>} rows
 */
export function rankRows(rows) {
  const groups = new Map();
  for (const r of rows) {
    const key = `${r.fixture}/${r.operation}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  for (const group of groups.values()) {
    const base = group.find((r) => r.codec === BASELINE && r.opsPerSec !== undefined);
    for (const r of group) r.ratio = base !== undefined && r.opsPerSec !== undefined ? r.opsPerSec / base.opsPerSec : undefined;
    const ranked = group.filter((r) => r.check.ok && r.opsPerSec !== undefined).sort((a, b) => b.opsPerSec - a.opsPerSec);
    ranked.forEach((r, i) => (r.rank = i + 1));
  }
  return rows;
}

/** The markdown table with footnotes for the marked rows. */
export function formatTable(record) {
  const names = new Map(record.codecs.map((c) => [c.id, c.name]));
  const titles = new Map(record.fixtures.map((f) => [f.id, f]));
  const lines = [
    "| fixture | operation | codec | ops/s | MB/s | × reflection | rank | check |",
    "|---|---|---|--:|--:|--:|--:|---|",
  ];
  const notes = [];
  for (const r of record.results) {
    let check = "ok";
    if (!r.check.ok) {
      notes.push(`${names.get(r.codec)}, ${r.fixture} ${operationLabel(r.operation)}: ${r.check.reason}`);
      check = `✗ not ranked [${notes.length}]`;
    } else if (r.check.note) {
      check = `ok (${r.check.note})`;
    }
    const fixture = titles.get(r.fixture);
    lines.push(
      `| ${fixture.id} (${fixture.bytes >= 10_000 ? `${fix(1).format(fixture.bytes / 1000)} KB` : `${fixture.bytes} B`}) | ${operationLabel(r.operation)} | ${names.get(r.codec)} | ` +
        `${r.opsPerSec === undefined ? "—" : opsText(r.opsPerSec)} | ${r.mbPerSec === undefined ? "—" : mbText(r.mbPerSec)} | ` +
        `${r.ratio === undefined ? "—" : ratioText(r.ratio)} | ${r.rank ?? "—"} | ${check} |`,
    );
  }
  const out = [lines.join("\n")];
  if (notes.length > 0) out.push(notes.map((n, i) => `[${i + 1}] ${n}`).join("  \n"));
  const skipped = record.codecs.filter((c) => c.skip);
  if (skipped.length > 0) out.push(skipped.map((c) => `${c.name}: skipped, ${c.skip}`).join("  \n"));
  return out.join("\n\n");
}

/** A short header: machine, versions, settings. */
export function formatHeader(record) {
  const m = record.machine;
  const versions = record.codecs.filter((c) => !c.skip).map((c) => `${c.name} ${c.version}`).join(", ");
  return [
    `${record.date} · ${m.cpu} × ${m.cores} · ${record.runtime?.version ?? `Node ${m.node}`} · ${m.platform}/${m.arch}`,
    `${versions} · tinybench ${record.packages.tinybench} · ${record.settings.timeMs} ms per case, median of samples · seed ${record.settings.seed}`,
  ].join("\n");
}

const COLORS = { protokeel: "#d62728", "pbjs-reflect": "#1f77b4", "pbjs-static": "#6baed6", bufbuild: "#2ca02c", pbf: "#ff7f0e", "protobuf-ts": "#9467bd" };
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A horizontal bar chart of the ratios on a log scale; marked rows are pale with a ✗. */
export function renderSvg(record) {
  const codecs = record.codecs.filter((c) => !c.skip);
  const groups = [];
  for (const r of record.results) {
    const key = `${r.fixture} ${operationLabel(r.operation)}`;
    let g = groups.find((x) => x.key === key);
    if (g === undefined) groups.push((g = { key, rows: [] }));
    g.rows.push(r);
  }
  const ratios = record.results.map((r) => r.ratio).filter((v) => v !== undefined && v > 0);
  const lo = 2 ** Math.floor(Math.log2(Math.min(0.5, ...ratios)));
  const hi = 2 ** Math.ceil(Math.log2(Math.max(2, ...ratios)));
  const bar = 11;
  const left = 150;
  const width = 760;
  const plot = width - left - 60;
  const top = 64;
  const groupHeight = (rows) => rows.length * (bar + 2) + 12;
  const height = top + groups.reduce((h, g) => h + groupHeight(g.rows), 0) + 30;
  const x = (v) => left + (Math.log2(v / lo) / Math.log2(hi / lo)) * plot;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${left}" y="18" font-size="13" font-weight="bold">ops/s relative to protobufjs reflection (log scale, higher is faster)</text>`,
  ];
  codecs.forEach((c, i) => {
    const lx = 10 + i * 125;
    parts.push(`<rect x="${lx}" y="28" width="10" height="10" fill="${COLORS[c.id] ?? "#888"}"/><text x="${lx + 14}" y="37">${esc(c.name)}</text>`);
  });
  parts.push(`<text x="${left}" y="54" fill="#666">✗ = failed a reference check, not ranked</text>`);
  for (let v = lo; v <= hi; v *= 2) {
    const gx = x(v).toFixed(1);
    parts.push(`<line x1="${gx}" y1="${top - 4}" x2="${gx}" y2="${height - 24}" stroke="${v === 1 ? "#333" : "#e5e5e5"}" stroke-width="${v === 1 ? 1.2 : 1}"/>`);
    parts.push(`<text x="${gx}" y="${height - 10}" text-anchor="middle" fill="#666">${v >= 1 ? v : `1/${1 / v}`}×</text>`);
  }
  let y = top;
  for (const g of groups) {
    const h = groupHeight(g.rows);
    parts.push(`<text x="${left - 8}" y="${(y + (h - 12) / 2 + 4).toFixed(1)}" text-anchor="end" font-weight="bold">${esc(g.key)}</text>`);
    for (const r of g.rows) {
      if (r.ratio !== undefined && r.ratio > 0) {
        const w = Math.max(1, x(r.ratio) - left);
        const pale = r.check.ok ? "" : ` fill-opacity="0.3"`;
        parts.push(`<rect x="${left}" y="${y}" width="${w.toFixed(1)}" height="${bar}" fill="${COLORS[r.codec] ?? "#888"}"${pale}><title>${esc(`${r.codec} ${g.key}: ${ratioText(r.ratio)}${r.check.ok ? "" : ` — ${r.check.reason}`}`)}</title></rect>`);
        parts.push(`<text x="${(left + w + 4).toFixed(1)}" y="${y + bar - 2}" fill="#333">${ratioText(r.ratio)}${r.check.ok ? "" : " ✗"}</text>`);
      }
      y += bar + 2;
    }
    y += 12;
  }
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}

/**
 * docs/design.md §14 targets for protokeel: minimum ratio to protobufjs reflection, or (validate-only on
 * the span batch) a minimum throughput. The encode targets apply to encode from a built value and
 * from a plain object alike; the small targets apply to the classic shape too (§14: "the small
 * fixture includes the classic shape"; issue 13 names its decode target).
 */
export const TARGETS = [
  ...["small", "classic"].flatMap((fixture) => [
    { fixture, operation: "decode", ratio: 1.0 },
    { fixture, operation: "encode", ratio: 1.0 },
    { fixture, operation: "encode-plain", ratio: 1.0 },
    { fixture, operation: "relay", ratio: 3 },
  ]),
  { fixture: "span", operation: "decode", ratio: 2.0 },
  { fixture: "span", operation: "encode", ratio: 1.3 },
  { fixture: "span", operation: "encode-plain", ratio: 1.3 },
  { fixture: "span", operation: "relay", ratio: 10 },
  { fixture: "numeric", operation: "decode", ratio: 2.0 },
  { fixture: "numeric", operation: "encode", ratio: 1.5 },
  { fixture: "numeric", operation: "encode-plain", ratio: 1.5 },
  { fixture: "numeric", operation: "relay", ratio: 10 },
  { fixture: "frames", operation: "decode", ratio: 1.5 },
  { fixture: "frames", operation: "encode", ratio: 1.2 },
  { fixture: "frames", operation: "encode-plain", ratio: 1.2 },
  { fixture: "span", operation: "validate", mbPerSec: 2500 },
];

/** Each target with protokeel's figure from the run and whether it holds (null: not measured). */
export function evaluateTargets(record) {
  return TARGETS.map((t) => {
    const r = record.results.find((x) => x.codec === "protokeel" && x.fixture === t.fixture && x.operation === t.operation);
    const value = r === undefined ? undefined : t.ratio !== undefined ? r.ratio : r.mbPerSec;
    const holds = value === undefined || !r.check.ok ? null : value >= (t.ratio ?? t.mbPerSec);
    return { ...t, value, holds, note: r?.check.ok ? r.check.note : undefined };
  });
}

/** The targets as a markdown table. */
export function formatTargets(record) {
  const lines = ["| fixture | operation | target | protokeel | holds |", "|---|---|--:|--:|---|"];
  for (const t of evaluateTargets(record)) {
    const target = t.ratio !== undefined ? `≥ ${ratioText(t.ratio)}` : `≥ ${int.format(t.mbPerSec)} MB/s`;
    const value = t.value === undefined ? "—" : t.ratio !== undefined ? ratioText(t.value) : `${int.format(t.value)} MB/s`;
    const holds = t.holds === null ? (t.value === undefined ? "not measured" : "✗ failed its check") : t.holds ? "yes" : "no";
    lines.push(`| ${t.fixture} | ${operationLabel(t.operation)} | ${target} | ${value}${t.note ? ` (${t.note})` : ""} | ${holds} |`);
  }
  return lines.join("\n");
}

/** One row per fixture×operation, one column per codec: ratio (ops/s); ✗ marks a failed check. */
export function formatMatrix(record) {
  const codecs = record.codecs.filter((c) => !c.skip);
  const lines = [`| case | ${codecs.map((c) => c.name).join(" | ")} |`, `|---|${codecs.map(() => "--:").join("|")}|`];
  const keys = [...new Set(record.results.map((r) => `${r.fixture} ${operationLabel(r.operation)}`))];
  for (const key of keys) {
    const cells = codecs.map((c) => {
      const r = record.results.find((x) => `${x.fixture} ${operationLabel(x.operation)}` === key && x.codec === c.id);
      if (r === undefined || r.opsPerSec === undefined) return "—";
      return `${r.check.ok ? "" : "✗ "}${ratioText(r.ratio ?? NaN)} (${opsText(r.opsPerSec)})`;
    });
    lines.push(`| ${key} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

/** Issue 13's targets for the other runtimes: protokeel's ratio there against Node's ratio (same case), or an absolute ratio. */
export const RUNTIME_TARGETS = [
  { runtime: "chromium", fixture: "span", operation: "decode", ratio: 1.0 },
  { runtime: "deno", ofNode: 0.8 },
  { runtime: "bun", ofNode: 0.8 },
];

/**
 * protokeel's ratio to protobufjs reflection per case (rows) and runtime (columns), each runtime
 * in its own run; a Deno or Bun cell is marked ✗ where it is below 80% of Node's ratio for the
 * same case (issue 13: "within 20% of Node's ratio"), and Chromium's span decode where it is
 * below 1.0×. Records are the runtimes' results (record.runtime.name: node, deno, bun, chromium).
 */
export function formatRuntimeSummary(records) {
  const names = records.map((r) => r.runtime?.name ?? "node");
  const ratioOf = (record, key) => record.results.find((x) => x.codec === "protokeel" && `${x.fixture} ${operationLabel(x.operation)}` === key && x.check.ok)?.ratio;
  const node = records[names.indexOf("node")];
  const keys = [...new Set(records.flatMap((r) => r.results.map((x) => `${x.fixture} ${operationLabel(x.operation)}`)))];
  const lines = [`| case | ${names.join(" | ")} |`, `|---|${names.map(() => "--:").join("|")}|`];
  const missed = [];
  for (const key of keys) {
    const cells = records.map((record, i) => {
      const v = ratioOf(record, key);
      if (v === undefined) return "—";
      let mark = "";
      for (const t of RUNTIME_TARGETS.filter((t) => t.runtime === names[i])) {
        if (t.ratio !== undefined && key === `${t.fixture} ${operationLabel(t.operation)}` && v < t.ratio) mark = " ✗";
        const base = node === undefined ? undefined : ratioOf(node, key);
        if (t.ofNode !== undefined && base !== undefined && v < t.ofNode * base) mark = " ✗";
      }
      if (mark) missed.push(`${names[i]} ${key}`);
      return `${ratioText(v)}${mark}`;
    });
    lines.push(`| ${key} | ${cells.join(" | ")} |`);
  }
  const legend = "✗: below a runtime target (Chromium span decode ≥ 1.00×; Deno and Bun ≥ 80% of Node's ratio for the same case" + (node === undefined ? ", not judged without a node run" : "") + ")";
  return `${lines.join("\n")}\n\n${legend}${missed.length > 0 ? `; missed: ${missed.join(", ")}` : "; all hold"}`;
}
