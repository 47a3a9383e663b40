// Where a first load's milliseconds go: records a Chromium trace of N fresh loads (new context,
// nothing cached) and prints, for the median one, a timeline from navigation to the first snapshot:
// the network requests (start -> end), the worker's spans (load-fetch, load-parse, ...), wasm
// compiles and the long tasks of each thread. A diagnostic, not a test.
//   node tests/e2e/profile_load.mjs [--dist dist] [--loads 5] [--query ?device=cpu] [--trace FILE]
import { chromium } from "playwright-core";
import fs from "node:fs";
import { serve } from "./serve.mjs";
import { FLAGS, arg, pathArg } from "./page_lib.mjs";

const DIST = pathArg("dist", "dist");
const LOADS = Number(arg("loads", "5"));
const TRACE = pathArg("trace", "target/load-trace.json");
const CATEGORIES = ["devtools.timeline", "v8.execute", "v8.wasm", "blink.user_timing", "loading", "netlog", "disabled-by-default-devtools.timeline", "disabled-by-default-v8.cpu_profiler"];

const server = await serve(DIST);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: FLAGS });
const runs = [];
try {
  for (let i = 0; i < LOADS; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    await browser.startTracing(page, { path: TRACE, categories: CATEGORIES });
    await page.goto(server.url + arg("query", ""));
    await page.waitForFunction(() => performance.getEntriesByName("bertscope:snapshot").length > 0, null, { timeout: 30_000 });
    const ms = await page.evaluate(() => performance.getEntriesByName("bertscope:snapshot")[0].startTime);
    const trace = JSON.parse((await browser.stopTracing()).toString());
    runs.push({ ms, events: trace.traceEvents || trace });
    await ctx.close();
  }
} finally {
  await browser.close();
  server.close();
}

runs.sort((a, b) => a.ms - b.ms);
console.log(`first load to the first snapshot, ${LOADS} fresh loads: ${runs.map((r) => r.ms.toFixed(0)).join(", ")} ms`);
const { events, ms } = runs[Math.floor(runs.length / 2)];
fs.writeFileSync(TRACE, JSON.stringify(events));

const names = {};
for (const e of events) if (e.ph === "M" && e.name === "thread_name") names[`${e.pid}:${e.tid}`] = e.args.name;
const thread = (e) => names[`${e.pid}:${e.tid}`] || `${e.pid}:${e.tid}`;
// time zero: the page's navigation start
const nav = events.find((e) => e.name === "navigationStart" && /^http/.test(e.args?.data?.documentLoaderURL || ""));
const t0 = nav ? nav.ts : Math.min(...events.filter((e) => e.ts).map((e) => e.ts));
const rel = (ts) => (ts - t0) / 1000;
const rows = [];

// network: send -> finish per request id
const req = {};
for (const e of events) {
  const d = e.args?.data;
  if (!d?.requestId) continue;
  const r = (req[d.requestId] ||= {});
  if (e.name === "ResourceSendRequest") Object.assign(r, { url: d.url, start: e.ts });
  if (e.name === "ResourceReceiveResponse") r.response = e.ts;
  if (e.name === "ResourceFinish") Object.assign(r, { end: e.ts, bytes: d.decodedBodyLength ?? d.encodedDataLength });
}
for (const r of Object.values(req)) {
  if (!r.url || !r.start || !r.url.startsWith("http")) continue;
  const name = r.url.replace(/^https?:\/\/[^/]+/, "");
  const detail = r.end ? `${((r.bytes || 0) / 1e6).toFixed(2)} MB, first byte +${rel(r.response || r.start) - rel(r.start) | 0} ms` : "unfinished";
  rows.push([rel(r.start), r.end ? rel(r.end) : NaN, "network", `GET ${name} (${detail})`]);
}
// user timing spans (the worker's bertscope:* measures and marks), wasm compiles, long tasks
for (const e of events) {
  if (!e.ts || e.ts < t0) continue;
  const th = thread(e);
  if (e.cat?.includes("blink.user_timing") && e.ph === "b") {
    const end = events.find((f) => f.ph === "e" && f.id2?.local === e.id2?.local && f.name === e.name && f.ts >= e.ts);
    rows.push([rel(e.ts), end ? rel(end.ts) : NaN, th, `span ${e.name}`]);
  } else if (e.cat?.includes("blink.user_timing") && (e.ph === "R" || e.ph === "I" || e.ph === "n") && e.name.startsWith("bertscope")) {
    rows.push([rel(e.ts), rel(e.ts), th, `mark ${e.name}`]);
  } else if (e.ph === "X" && e.dur >= 8000 && /^(RunTask|wasm\.|v8\.wasm|WebAssembly|v8\.compile|FunctionCall|EvaluateScript|v8\.run)/.test(e.name)) {
    rows.push([rel(e.ts), rel(e.ts + e.dur), th, e.name]);
  }
}
rows.sort((a, b) => a[0] - b[0]);
console.log(`\ntimeline of the median load (${ms.toFixed(0)} ms), ms from navigation; trace in ${TRACE}`);
console.log("   start     end   dur  thread | event");
for (const [s, e, th, what] of rows) {
  if (s > ms + 50) continue;
  const dur = Number.isNaN(e) ? "" : (e - s).toFixed(0);
  console.log(`${s.toFixed(0).padStart(8)}${(Number.isNaN(e) ? "" : e.toFixed(0)).padStart(8)}${dur.padStart(6)}  ${th.slice(0, 22).padEnd(22)} | ${what.slice(0, 110)}`);
}

// the sampling profiler: self time per function between navigation and the first snapshot, per thread
const nodes = {};
const self = {};
const profiled = {}; // profile id -> the thread it samples (its "Profile" event's thread)
const clock = {}; // profile id -> the time of its last sample
for (const e of events) if (e.name === "Profile") {
  profiled[`${e.pid}:${e.id}`] = e.tid;
  clock[`${e.pid}:${e.id}`] = e.args?.data?.startTime ?? e.ts;
}
const samples = []; // [ts, thread, function]
for (const e of events) {
  if (e.name !== "ProfileChunk") continue;
  const key = `${e.pid}:${e.id}`;
  const m = (nodes[key] ||= { map: new Map(), tid: profiled[key] ?? e.tid });
  const prof = e.args?.data?.cpuProfile || {};
  for (const n of prof.nodes || []) m.map.set(n.id, n.callFrame.functionName || `(${n.callFrame.url || "anonymous"})`);
  const deltas = e.args?.data?.timeDeltas || [];
  (prof.samples || []).forEach((id, i) => {
    clock[key] = (clock[key] ?? e.ts) + (deltas[i] ?? 0);
    samples.push([clock[key], names[`${e.pid}:${m.tid}`] || String(m.tid), m.map.get(id) ?? String(id)]);
    const k = `${names[`${e.pid}:${m.tid}`] || m.tid} | ${m.map.get(id) ?? id}`;
    self[k] = (self[k] || 0) + (deltas[i + 1] ?? deltas[i] ?? 0) / 1000;
  });
}
const top = Object.entries(self).sort((a, b) => b[1] - a[1]);
if (top.length) {
  console.log("\nsampled self ms over the whole trace  thread | function");
  for (const [k, v] of top.slice(0, Number(arg("top", "40")))) console.log(`${v.toFixed(1).padStart(8)}  ${k.slice(0, 150)}`);
}

// the long tasks of the load (>= 30 ms, up to the first snapshot) with their busiest functions
console.log("\nlong tasks up to the first snapshot, with their most sampled functions");
for (const e of events) {
  if (e.ph !== "X" || e.name !== "RunTask" || e.dur < 30000 || e.ts < t0 || rel(e.ts) > ms) continue;
  const th = thread(e);
  const inside = {};
  for (const [ts, t, f] of samples) if (t === th && ts >= e.ts && ts <= e.ts + e.dur) inside[f] = (inside[f] || 0) + 1;
  const best = Object.entries(inside).sort((a, b) => b[1] - a[1]).slice(0, 6).map(([f, n]) => `${n} ${f.replace(/::h[0-9a-f]{16}$/, "").slice(0, 70)}`);
  console.log(`${rel(e.ts).toFixed(0).padStart(8)} +${(e.dur / 1000).toFixed(0).padStart(4)} ms  ${th.slice(0, 22)}: ${best.join("; ")}`);
}
