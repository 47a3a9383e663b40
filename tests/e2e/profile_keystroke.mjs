// Where a keystroke's milliseconds go: records a Chromium trace of N one-word edits of the measure
// test's 21-token sentence and prints, per thread, the summed wall time of each kind of event
// (wasm/JS calls, layout, paint, ...) divided by N. A diagnostic, not a test.
//   node tests/e2e/profile_keystroke.mjs [--dist dist] [--edits 30] [--query ?device=cpu] [--trace FILE]
import { chromium } from "playwright-core";
import fs from "node:fs";
import { serve } from "./serve.mjs";
import { FLAGS, SETTLED, WORDS, arg, keystrokeMs, pathArg, sentence } from "./page_lib.mjs";

const DIST = pathArg("dist", "dist");
const EDITS = Number(arg("edits", "30"));
const TRACE = pathArg("trace", "target/keystroke-trace.json");

const server = await serve(DIST);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: FLAGS });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(server.url + arg("query", ""));
  await page.waitForFunction(SETTLED, null, { timeout: 30_000 });
  const words = WORDS;
  const edit = (text) => keystrokeMs(page, text);
  for (let i = 0; i < 10; i++) await edit(sentence(words[i % words.length]));
  await browser.startTracing(page, { path: TRACE, categories: ["devtools.timeline", "v8.execute", "blink.user_timing", "disabled-by-default-v8.cpu_profiler"] });
  const ms = [];
  for (let i = 0; i < EDITS; i++) ms.push(await edit(sentence(words[(i + 3) % words.length])));
  await browser.stopTracing();
  ms.sort((a, b) => a - b);
  console.log(`keystroke ms over ${EDITS} edits: p50 ${ms[Math.floor(EDITS / 2)].toFixed(1)} min ${ms[0].toFixed(1)} max ${ms[EDITS - 1].toFixed(1)}`);

  const events = JSON.parse(fs.readFileSync(TRACE, "utf8")).traceEvents;
  const names = {};
  for (const e of events) if (e.ph === "M" && e.name === "thread_name") names[`${e.pid}:${e.tid}`] = e.args.name;
  // sum complete events ("X") by thread and name; nested events are counted inside their parents too
  const sums = {};
  for (const e of events) {
    if (e.ph !== "X" || !e.dur) continue;
    const t = names[`${e.pid}:${e.tid}`] || `${e.pid}:${e.tid}`;
    const k = `${t} | ${e.name}`;
    sums[k] = (sums[k] || 0) + e.dur / 1000;
  }
  const rows = Object.entries(sums).map(([k, v]) => [k, v / EDITS]).filter(([, v]) => v >= 0.2).sort((a, b) => b[1] - a[1]);
  console.log("ms per edit  thread | event");
  for (const [k, v] of rows.slice(0, 40)) console.log(`${v.toFixed(2).padStart(10)}  ${k}`);

  // the sampling profiler: self time per function (wasm functions by their names), per thread
  const nodes = {}; // `${pid}:${id}` -> Map(node id -> name)
  const self = {};
  for (const e of events) {
    if (e.name !== "ProfileChunk") continue;
    const key = `${e.pid}:${e.id}`;
    const m = (nodes[key] ||= { map: new Map(), tid: e.tid });
    const prof = e.args?.data?.cpuProfile || {};
    for (const n of prof.nodes || []) m.map.set(n.id, n.callFrame.functionName || `(${n.callFrame.url || "anonymous"})`);
    const deltas = e.args?.data?.timeDeltas || [];
    (prof.samples || []).forEach((id, i) => {
      const k = `${names[`${e.pid}:${m.tid}`] || m.tid} | ${m.map.get(id) ?? id}`;
      self[k] = (self[k] || 0) + (deltas[i + 1] ?? deltas[i] ?? 0) / 1000;
    });
  }
  const top = Object.entries(self).map(([k, v]) => [k, v / EDITS]).sort((a, b) => b[1] - a[1]);
  if (top.length) {
    console.log("\nsampled self ms per edit  thread | function");
    for (const [k, v] of top.slice(0, 45)) console.log(`${v.toFixed(2).padStart(10)}  ${k.slice(0, 160)}`);
  }
} finally {
  await browser.close();
  server.close();
}
