// The head map's scan and the corpus search, as a benchmark (not a test): for each bundled model,
// the survey of the 1,000 bundled sentences (one scan fills the head statistics and the search
// index) on the CPU path: its time, the index's bytes and the worker's wasm memory before and
// after; then 20 searches (alternating layers and heads): the worker's milliseconds; then the
// queries-and-keys scatter of three heads (the worker's time, the first draw) and 40 pan or zoom
// redraws. Prints a table with the targets beside the figures.
//   node tests/e2e/bench_heads.mjs [--dist dist] [--out target/bench-heads.json]
import { chromium } from "playwright-core";
import fs from "node:fs";
import { serve } from "./serve.mjs";
import { FLAGS, SETTLED, pathArg } from "./page_lib.mjs";

const DIST = pathArg("dist", "dist");
const OUT = pathArg("out", "target/bench-heads.json");
const sel = (id) => `[data-testid="${id}"]`;
const server = await serve(DIST);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true, args: FLAGS });
const quantile = (xs, f) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(f * xs.length))];
const results = {};
try {
  for (const [name, query] of [["MiniLM-L6", "?device=cpu"], ["bert-tiny", "?model=tiny&device=cpu"]]) {
    const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(server.url + query + "&text=" + encodeURIComponent("the river bank was muddy after the rain."));
    await page.waitForFunction(SETTLED, null, { timeout: 120_000 });
    await page.click(sel("fold-head-map"));
    await page.click(sel("survey-start"));
    await page.waitForFunction(() => document.querySelector('[data-testid="head-map"]')?.dataset.sentences === "1000", null, { timeout: 600_000 });
    const d = await page.$eval(sel("head-map"), (e) => ({ ms: Number(e.dataset.ms), index: Number(e.dataset.indexBytes), memory: Number(e.dataset.memory) }));
    const layers = await page.$$eval(`${sel("search-layer")} option`, (os) => os.length - 1);
    const times = [];
    for (let i = 0; i < 20; i++) {
      await page.selectOption(sel("search-token"), String(1 + (i % 5)));
      await page.selectOption(sel("search-layer"), String(1 + (i % layers)));
      await page.selectOption(sel("search-head"), i % 2 ? "0" : "");
      const before = await page.textContent(sel("search-results")).catch(() => "");
      await page.click(sel("search-go"));
      await page.waitForFunction((b) => (document.querySelector('[data-testid="search-results"]')?.textContent || "") !== b, before, { timeout: 30_000 }).catch(() => {});
      times.push(Number((await page.textContent(sel("search-results"))).match(/\((\d+) ms\)/)[1]));
    }
    // the queries-and-keys scatter of three heads: the worker's time, the first draw, then 20
    // wheel zooms and 20 drag steps (each one redraw; the canvas records its last draw's time)
    const qkTimes = [], drawTimes = [], frameTimes = [];
    for (const [l, hd] of [[0, 0], [Math.floor(layers / 2), 1], [layers - 1, 0]]) {
      await page.selectOption(sel("qk-layer"), String(l));
      await page.selectOption(sel("qk-head"), String(hd));
      const before = await page.textContent(sel("qk-summary")).catch(() => "");
      await page.click(sel("qk-go"));
      await page.waitForFunction((b) => { const e = document.querySelector('[data-testid="qk-summary"]'); return e && e.textContent !== b; }, before, { timeout: 60_000 });
      qkTimes.push(Number((await page.textContent(sel("qk-summary"))).match(/\((\d+) ms\)/)[1]));
      await page.waitForTimeout(100);
      drawTimes.push(Number(await page.$eval(sel("qk-canvas"), (c) => c.dataset.drawMs)));
    }
    const box = await page.$eval(sel("qk-canvas"), (c) => { c.scrollIntoView(); const r = c.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; });
    await page.mouse.move(box[0], box[1]);
    const redraw = async (act) => {
      const n = Number(await page.$eval(sel("qk-canvas"), (c) => c.dataset.draws));
      await act();
      await page.waitForFunction((k) => Number(document.querySelector('[data-testid="qk-canvas"]').dataset.draws) > k, n, { timeout: 10_000 });
      frameTimes.push(Number(await page.$eval(sel("qk-canvas"), (c) => c.dataset.drawMs)));
    };
    for (let i = 0; i < 20; i++) await redraw(() => page.mouse.wheel(0, i % 2 ? 120 : -240));
    await page.mouse.down();
    for (let i = 0; i < 20; i++) await redraw(() => page.mouse.move(box[0] + 5 * (i + 1), box[1] + 3 * (i + 1)));
    await page.mouse.up();
    const points = Number(await page.$eval(sel("qk-summary"), (e) => e.dataset.points));
    results[name] = {
      survey_s: d.ms / 1000, index_mb: d.index / 1e6, worker_memory_mb: d.memory / 1e6, search_ms_p50: quantile(times, 0.5), search_ms_max: Math.max(...times),
      qk_points: points, qk_worker_ms_max: Math.max(...qkTimes), qk_draw_ms_max: Math.max(...drawTimes),
      qk_frame_ms_p50: quantile(frameTimes, 0.5), qk_frame_ms_max: Math.max(...frameTimes),
    };
    await ctx.close();
  }
} finally {
  await browser.close();
  await server.close();
}
const m = results["MiniLM-L6"], t = results["bert-tiny"];
console.log("| figure (page, CPU path, wasm) | MiniLM-L6 | bert-tiny | target (MiniLM-L6) |\n|---|---:|---:|---:|");
console.log(`| survey + index of 1,000 sentences (s) | ${m.survey_s.toFixed(1)} | ${t.survey_s.toFixed(1)} | 60 |`);
console.log(`| search index (MB) | ${m.index_mb.toFixed(0)} | ${t.index_mb.toFixed(0)} | 150 |`);
console.log(`| worker's wasm memory after the scan (MB) | ${m.worker_memory_mb.toFixed(0)} | ${t.worker_memory_mb.toFixed(0)} | |`);
console.log(`| search, worker time, p50 of 20 (max) (ms) | ${m.search_ms_p50} (${m.search_ms_max}) | ${t.search_ms_p50} (${t.search_ms_max}) | 200 |`);
console.log(`| queries-and-keys scatter: points | ${m.qk_points} | ${t.qk_points} | |`);
console.log(`| scatter, worker time, max of 3 heads (ms) | ${m.qk_worker_ms_max} | ${t.qk_worker_ms_max} | |`);
console.log(`| scatter, first draw, max of 3 heads (ms) | ${m.qk_draw_ms_max.toFixed(1)} | ${t.qk_draw_ms_max.toFixed(1)} | 100 |`);
console.log(`| scatter, a pan or zoom redraw, p50 of 40 (max) (ms) | ${m.qk_frame_ms_p50.toFixed(1)} (${m.qk_frame_ms_max.toFixed(1)}) | ${t.qk_frame_ms_p50.toFixed(1)} (${t.qk_frame_ms_max.toFixed(1)}) | 16.7 (60 frames/s) |`);
fs.writeFileSync(OUT, JSON.stringify(results, null, 2));
