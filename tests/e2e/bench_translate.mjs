// The Translate tab against its targets, one run per bundled set (headless Chromium, the engine's
// Web Worker on the wasm CPU path, the tab's defaults: numbers 400 steps at lr 3e-3, toy-translate
// 1,500 steps at lr 2e-3, batch 32, a new 2-layer encoder-decoder of width 64 each time):
//   1. seconds of training until the page first shows a held-out exact match >= 90% (30 pairs);
//   2. the exact match at the end of the run, and the seed sentence decoded greedily with it.
// Prints a table; figures to target/bench-translate.json.
//   node tests/e2e/bench_translate.mjs [--dist dist] [--out target/bench-translate.json]
import { chromium } from "playwright-core";
import fs from "node:fs";
import path from "node:path";
import { serve } from "./serve.mjs";
import { FLAGS, pathArg } from "./page_lib.mjs";

const OUT = pathArg("out", "target/bench-translate.json");
const DIST = pathArg("dist", "dist");
const sel = (id) => `[data-testid="${id}"]`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function run(browser, url, dataset) {
  const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
  await page.goto(url + "?view=translate");
  await page.waitForFunction(() => document.getElementById("status")?.dataset.ready === "true", null, { timeout: 60_000 });
  await page.selectOption(sel("translate-dataset"), dataset);
  const source = await page.inputValue(sel("decode-source"));
  await page.click(sel("translate-start"));
  const phase = () => page.getAttribute(sel("translate-status"), "data-phase");
  const step = async () => Number(await page.textContent(sel("translate-step")));
  const exact = async () => {
    const v = await page.getAttribute(sel("translate-exact-chart"), "data-values");
    const pts = v ? v.split(",").map((x) => Number(x.split(":")[1])) : [];
    return pts.length > 1 ? pts[pts.length - 1] : 0;
  };
  await page.waitForFunction(() => document.querySelector('[data-testid="translate-status"]')?.dataset.phase === "running", null, { timeout: 60_000 });
  const t0 = Date.now();
  let reached = null;
  while ((await phase()) === "running") {
    const em = await exact();
    if (!reached && em >= 0.9) reached = { seconds: (Date.now() - t0) / 1000, step: await step(), exact_match: em };
    await sleep(200);
  }
  const end = { seconds: (Date.now() - t0) / 1000, step: await step(), exact_match: await exact(), rate: await page.textContent(sel("translate-rate")) };
  await page.click(sel("decode-run"));
  await page.waitForFunction(() => document.querySelector('[data-testid="decode-status"]')?.dataset.done === "true", null, { timeout: 60_000 });
  const decoded = { source, output: (await page.textContent(sel("generated"))).trim() };
  await page.context().close();
  return { dataset, reached, end, decoded };
}

const server = await serve(DIST);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true, args: FLAGS });
const runs = [];
try {
  for (const d of ["numbers", "toy-translate"]) runs.push(await run(browser, server.url, d));
} finally {
  await browser.close();
  await server.close();
}
const load = fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0];
console.log("| data set | held-out exact match >= 90% first shown | at the end of the run | greedy translation of the seed sentence |");
console.log("|---|---|---|---|");
for (const r of runs) {
  const first = r.reached ? `${r.reached.seconds.toFixed(1)} s, step ${r.reached.step}` : "not reached";
  const end = `${(r.end.exact_match * 100).toFixed(1)}% at step ${r.end.step}, ${r.end.seconds.toFixed(1)} s (${r.end.rate})`;
  console.log(`| ${r.dataset} | ${first} | ${end} | "${r.decoded.source}" → "${r.decoded.output}" |`);
}
console.log(`(load average ${load})`);
fs.mkdirSync(path.dirname(OUT), { recursive: true });
fs.writeFileSync(OUT, JSON.stringify({ runs, load_average: load }, null, 2));
if (runs.some((r) => !r.reached)) process.exitCode = 1;
