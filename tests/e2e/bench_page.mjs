// The page's speed, as a benchmark (not a test: this machine's load decides the figures): first
// load to the first answer on screen (fresh browser context, nothing cached; 5 runs), keystroke to
// updated predictions on the 21-token sentence (50 edits after 10 warm-up edits), and what the page
// ships (wasm + JS, gzipped). Prints a table with the targets beside the figures.
//   node tests/e2e/bench_page.mjs [--dist dist] [--query ?device=cpu] [--out target/bench-page.json]
import { chromium } from "playwright-core";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { serve } from "./serve.mjs";
import { FLAGS, SETTLED, WORDS, arg, keystrokeMs, pathArg, sentence } from "./page_lib.mjs";

const DIST = pathArg("dist", "dist");
const OUT = pathArg("out", "target/bench-page.json");
const QUERY = arg("query", "");
const RUNS = Number(arg("runs", "5"));
const TIMEOUT = 60_000;

const server = await serve(DIST);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true, args: FLAGS });
const newPage = async (query = "") => {
  const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(server.url + query);
  return page;
};
const quantile = (xs, f) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(f * s.length))];
};

try {
  // Chromium's first start is not the page's load
  await (await newPage("?text=warm+[MASK]")).context().close();
  const loads = [];
  for (let i = 0; i < RUNS; i++) {
    const p = await newPage(QUERY);
    await p.waitForFunction(() => performance.getEntriesByName("bertscope:snapshot").length > 0, null, { timeout: TIMEOUT });
    loads.push(await p.evaluate(() => performance.getEntriesByName("bertscope:snapshot")[0].startTime));
    await p.context().close();
  }

  const page = await newPage(QUERY);
  await page.waitForFunction(SETTLED, null, { timeout: TIMEOUT });
  const times = [];
  for (let i = -10; i < 50; i++) {
    const ms = await keystrokeMs(page, sentence(WORDS[(i + 1) % WORDS.length]) + (i % 2 ? "" : " "));
    if (i >= 0) times.push(ms);
  }
  const tokens = await page.$$eval('[data-testid="tokens"] > *', (els) => els.length);
  await page.context().close();

  const files = fs.readdirSync(DIST).filter((f) => /\.(wasm|js)$/.test(f) && f !== "sw.js");
  let gzip = 0;
  for (const f of files) gzip += zlib.gzipSync(fs.readFileSync(path.join(DIST, f)), { level: 9 }).length;

  const rows = [
    ["first load to first answer (ms)", quantile(loads, 0.5), Math.min(...loads), Math.max(...loads), "<= 1500"],
    [`keystroke to predictions, ${tokens} tokens (ms)`, quantile(times, 0.5), quantile(times, 0.9), Math.max(...times), "p50 <= 30"],
    ["wasm + JS shipped, gzipped (MB)", gzip / 1e6, null, null, "<= 2"],
  ];
  console.log("| figure | median / p50 | min / p90 | max | target |");
  console.log("|---|---:|---:|---:|---|");
  const f = (v) => (v === null ? "" : v.toFixed(v < 10 ? 2 : 1));
  for (const [name, a, b, c, t] of rows) console.log(`| ${name} | ${f(a)} | ${f(b)} | ${f(c)} | ${t} |`);
  const load = fs.existsSync("/proc/loadavg") ? fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0] : "?";
  console.log(`(${RUNS} loads, ${times.length} edits; query "${QUERY}"; load average ${load})`);
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify({ loads, keystrokes: times, gzip_bytes: gzip, files }, null, 2));
} finally {
  await browser.close();
  await server.close();
}
