// In-page training throughput next to the native CLI, same configs, one run (bertscope CPU paths).
// The page: headless Chromium, the engine's Web Worker on the wasm CPU path; throughput is what the
// page shows (tokens / s over its last 2 s, wall clock, frames and batch views included), the
// median of readings taken every 500 ms after warm-up. The CLI: `bertscope train` on the same
// corpus and settings (its own tokens_per_s, evaluation off).
//   node tests/e2e/bench_train.mjs [--cli target/release/bertscope] [--dist dist] [--out target/bench-train.json]
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { serve } from "./serve.mjs";
import { REPO as repo, pathArg } from "./page_lib.mjs";

const CLI = pathArg("cli", "target/release/bertscope");
const OUT = pathArg("out", "target/bench-train.json");
const DIST = pathArg("dist", "dist");
const sel = (id) => `[data-testid="${id}"]`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const CONFIGS = [
  { name: "scratch-tiny (2 x 64, vocab 1000), batch 16 x 64", mode: "scratch", batch: 16, seq: 64, lr: "0.002", warm: 100, measure: 100,
    cli: ["--config", "scratch-tiny", "--vocab-size", "1000", "--lr", "2e-3", "--steps", "150", "--log-every", "50"] },
  { name: "default model (bert-tiny, 2 x 128, vocab 30522), batch 8 x 64", mode: "continue", batch: 8, seq: 64, lr: "0.0001", warm: 10, measure: 20,
    cli: ["--init", "www/models/bert-tiny", "--lr", "1e-4", "--steps", "30", "--log-every", "10"] },
];

async function page_rate(browser, url, c) {
  const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
  await page.goto(url + "?view=train");
  await page.waitForFunction(() => document.getElementById("status")?.dataset.ready === "true", null, { timeout: 60_000 });
  if (c.mode === "continue") await page.locator(sel("train-mode-continue")).check();
  for (const [id, v] of [["train-batch", c.batch], ["train-seq", c.seq], ["train-lr", c.lr], ["train-steps", 5000]]) {
    await page.locator(sel(id)).fill(String(v));
    await page.locator(sel(id)).press("Tab");
  }
  await page.click(sel("train-start"));
  const step = async () => Number(await page.textContent(sel("step-counter")));
  while ((await step()) < c.warm) await sleep(200);
  const readings = [];
  const t0 = Date.now(), s0 = await step();
  while ((await step()) < c.warm + c.measure) {
    await sleep(500);
    const m = /([\d.]+) tokens\/s · ([\d.]+) ms\/step/.exec(await page.textContent(".rate"));
    if (m) readings.push([Number(m[1]), Number(m[2])]);
  }
  const secs = (Date.now() - t0) / 1000, steps = (await step()) - s0;
  await page.click(sel("train-pause"));
  await page.context().close();
  return { tokens_per_s: median(readings.map((r) => r[0])), ms_per_step: median(readings.map((r) => r[1])), steps_per_s: steps / secs, readings: readings.length };
}

function cli_rate(c) {
  const out = execFileSync(CLI, ["train", "--corpus", "www/corpora/simple.txt", "--batch", String(c.batch), "--seq", String(c.seq), "--eval-every", "0", "--out", "/tmp/bertscope-bench-train", ...c.cli], { cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const logs = out.trim().split("\n").map((l) => JSON.parse(l));
  return { tokens_per_s: median(logs.map((l) => l.tokens_per_s)), logs: logs.length };
}

const server = await serve(DIST);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true, args: ["--no-sandbox"] });
const results = [];
try {
  for (const c of CONFIGS) {
    const load0 = fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0];
    const wasm = await page_rate(browser, server.url, c);
    const native = cli_rate(c);
    const r = { config: c.name, wasm, native, wasm_vs_native: wasm.tokens_per_s / native.tokens_per_s, load_average: [load0, fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0]] };
    console.log(JSON.stringify(r));
    results.push(r);
  }
} finally {
  await browser.close();
  await server.close();
}
fs.mkdirSync(path.dirname(OUT), { recursive: true });
fs.writeFileSync(OUT, JSON.stringify(results, null, 2));
