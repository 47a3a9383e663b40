// End-to-end tests of the bertscope page in headless Chromium (playwright-core + /usr/bin/chromium).
// Serves dist/ on a free 127.0.0.1 port, drives the page through its data-testid hooks, saves a
// screenshot of each view to target/screenshots/, and prints `N passed, M failed` last (exit 1 on any
// failure). Each test opens its own page, so `ONLY=<part of a name>` runs any one test. The page's
// speed is a benchmark, not a test: tests/e2e/bench_page.mjs.
//   node tests/e2e/run.mjs [--dist dist] [--shots target/screenshots] [--metrics target/e2e-metrics.json]
import { chromium } from "playwright-core";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "./serve.mjs";
import { FLAGS, REPO as repo, SETTLED, keystrokeMs, pathArg } from "./page_lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = pathArg("dist", "dist");
const SHOTS = pathArg("shots", "target/screenshots");
const METRICS = pathArg("metrics", "target/e2e-metrics.json");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const TIMEOUT = 30_000;
// the suite runs on bert-tiny (?model=tiny unless a test names a model or asks for the page as
// shipped, which opens on MiniLM-L6: views_bundled.mjs); its shape
const LAYERS = 2, HEADS = 2, MAX_LEN = 512;

const results = [];
const metrics = {};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

// ---------------------------------------------------------------- page helpers
const sel = (id) => `[data-testid="${id}"]`;

/** Waits until the page shows the answer to its latest input (a snapshot or a message). */
async function settled(page) {
  await page.waitForFunction(SETTLED, null, { timeout: TIMEOUT });
}

async function setText(page, id, text) {
  await page.locator(sel(id)).fill(text);
  await settled(page);
}

async function predictions(page) {
  return page.$$eval(`${sel("predictions")} [data-token]`, (els) =>
    els.map((e) => ({ token: e.dataset.token, prob: Number(e.dataset.prob), group: e.closest("[data-position]").dataset.position })));
}

async function errorText(page) {
  const e = await page.$(sel("error"));
  return e ? (await e.textContent()).trim() : null;
}

function checkPredictions(preds) {
  assert(preds.length > 0, "no predictions");
  for (const p of preds) assert(p.prob >= 0 && p.prob <= 1 && Number.isFinite(p.prob), `probability out of [0,1]: ${JSON.stringify(p)}`);
  const groups = {};
  for (const p of preds) (groups[p.group] ||= []).push(p.prob);
  for (const [g, probs] of Object.entries(groups)) {
    for (let i = 1; i < probs.length; i++) assert(probs[i] <= probs[i - 1], `predictions at ${g} are not in descending order: ${probs}`);
  }
  return groups;
}

/** Clicks "Export JSON" and returns the downloaded snapshot. */
async function exportJson(page) {
  const [dl] = await Promise.all([page.waitForEvent("download", { timeout: TIMEOUT }), page.click(sel("export-json"))]);
  assert(dl.suggestedFilename() === "bertscope-snapshot.json", `file name ${dl.suggestedFilename()}`);
  return JSON.parse(fs.readFileSync(await dl.path(), "utf8"));
}

/** The page still answers: a normal sentence gets predictions. */
async function stillAnswers(page) {
  await setText(page, "text-input", "the man went to the [MASK] to buy milk.");
  assert((await errorText(page)) === null, `error still shown: ${await errorText(page)}`);
  checkPredictions(await predictions(page));
}

/** The page's URL once its pending write is done (the page writes it 250 ms after the last change). */
async function urlOf(page) {
  await sleep(700);
  return page.evaluate(() => location.href);
}

async function shot(page, name, locator) {
  fs.mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, `${name}.png`);
  // cards off screen skip rendering (content-visibility: auto), and neither a full-page screenshot
  // nor one of an element taller than the window scrolls to all of it: render them all for the picture
  const style = await page.addStyleTag({ content: ".card { content-visibility: visible !important; }" });
  if (locator) await page.locator(locator).first().screenshot({ path: file });
  else await page.screenshot({ path: file, fullPage: true });
  await style.evaluate((e) => e.remove());
}

// ---------------------------------------------------------------- training helpers
const stepOf = async (page) => Number(await page.textContent(sel("step-counter")));
const phaseOf = (page) => page.getAttribute(sel("train-status"), "data-phase");
async function waitStep(page, n, timeout = 120_000) {
  await page.waitForFunction((n) => Number(document.querySelector('[data-testid="step-counter"]').textContent) >= n, n, { timeout });
}
async function waitPhase(page, phase, timeout = TIMEOUT) {
  await page.waitForFunction((p) => document.querySelector('[data-testid="train-status"]')?.dataset.phase === p, phase, { timeout });
}
async function setField(page, id, value) {
  const i = page.locator(sel(id));
  // a field the panel re-rendered between the fill and the change event (seen once in a full run:
  // a 2,000-step run started with the default 600) is filled again; the value is then checked
  for (let attempt = 0; attempt < 3; attempt++) {
    await i.fill(String(value));
    await i.press("Tab"); // change event
    // the panel's state, not only the box: the steps show in the stepper as "step 0 / N"
    const held = id !== "train-steps" || (await page.textContent(".stepper")).trim().endsWith(`/ ${value}`);
    if ((await i.inputValue()) === String(value) && held) return;
    console.log(`     ${id}: the field showed ${await i.inputValue()} after filling ${value}; filling again`);
  }
  throw new Error(`${id} does not keep the value ${value}`);
}
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
async function lossValues(page) {
  const v = await page.getAttribute(sel("loss-chart"), "data-values");
  return v ? v.split(",").map(Number) : [];
}
/** Starts a long-task observer on the UI thread (entries are tasks over 50 ms). */
async function watchLongTasks(page) {
  await page.evaluate(() => {
    window.__long = [];
    new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__long.push(e.duration))).observe({ type: "longtask" });
  });
}

// ---------------------------------------------------------------- the suite
async function main() {
  assert(fs.existsSync(path.join(DIST, "index.html")), `${DIST}/index.html is missing: build the page first (scripts/e2e.sh does)`);
  const server = await serve(DIST);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const pageErrors = [];
  const offOrigin = [];
  const httpErrors = [];
  const newPage = async (query = "", { shipped = false } = {}) => {
    if (!shipped && !/[?&]model=/.test(query)) query = `${query || "?"}${query.length > 1 ? "&" : ""}model=tiny`;
    const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await ctx.newPage();
    page.on("pageerror", (e) => pageErrors.push(String(e)));
    page.on("response", (r) => {
      if (r.status() >= 400 && !/\/models\/(broken|missing|fixture)\//.test(r.url())) httpErrors.push(`${r.status()} ${r.url()}`);
    });
    page.on("request", (r) => {
      const u = r.url();
      if (!u.startsWith(server.url) && !u.startsWith("blob:") && !u.startsWith("data:")) offOrigin.push(u);
    });
    await page.goto(server.url + query);
    return page;
  };
  const test = async (name, fn) => {
    if (process.env.ONLY && !name.includes(process.env.ONLY)) return;
    const t0 = Date.now();
    try {
      await fn();
      results.push({ name, ok: true });
      console.log(`ok   ${name} (${Date.now() - t0} ms)`);
    } catch (e) {
      results.push({ name, ok: false, error: String(e && e.stack || e) });
      console.log(`FAIL ${name}: ${String(e && e.message || e).split("\n")[0]}`);
    }
  };

  /** A fresh page with the default model loaded and its first answer on screen. */
  const loadedPage = async (query = "") => {
    const p = await newPage(query);
    await settled(p);
    return p;
  };
  /** Runs `fn` on a fresh loaded page, closed afterwards. */
  const onPage = (fn, query = "") => async () => {
    const p = await loadedPage(query);
    try {
      await fn(p);
    } finally {
      await p.context().close();
    }
  };

  // Chromium's first start on a new machine is slow (profile, fonts, shader caches): once, before
  // anything is timed or raced.
  {
    const warm = await browser.newContext();
    await (await warm.newPage()).goto("about:blank");
    await warm.close();
  }

  try {
    await test("page loads the default model with a progress bar", async () => {
      // the weights stop after their first chunk until the bar was seen part-way (however slowly
      // the browser starts), then stream at 2 MB per 100 ms
      server.setSlow(2 * 1024 * 1024);
      server.hold();
      const page = await newPage();
      const bar = page.locator(sel("load-progress"));
      await bar.waitFor({ timeout: TIMEOUT });
      await page.waitForFunction(() => {
        const b = document.querySelector('[data-testid="load-progress"]');
        return b && b.dataset.state === "loading" && Number(b.dataset.loaded) > 0 && Number(b.dataset.loaded) < Number(b.dataset.total);
      }, null, { timeout: TIMEOUT });
      await shot(page, "01-loading");
      const text = await bar.textContent();
      assert(/MB \/ [\d.]+ MB/.test(text), `progress shows no bytes / total: ${text}`);
      server.release();
      await page.waitForFunction(() => document.querySelector('[data-testid="load-progress"]')?.dataset.state === "done", null, { timeout: 60_000 });
      server.setSlow(0);
      await settled(page);
      const done = await bar.textContent();
      assert(done.includes(`${LAYERS} layers`), `loaded model summary: ${done}`);
      await page.context().close();
    });

    await test("type a sentence with [MASK]: predictions, tokens, heatmaps, badge", onPage(async (page) => {
      await setText(page, "text-input", "the capital of france is [MASK].");
      assert((await errorText(page)) === null, `unexpected error: ${await errorText(page)}`);
      const preds = await predictions(page);
      const groups = checkPredictions(preds);
      assert(Object.keys(groups).length === 1, `one [MASK], got groups ${Object.keys(groups)}`);
      const tokens = await page.$$eval(`${sel("tokens")} > *`, (els) => els.map((e) => ({ id: e.dataset.id, text: e.querySelector(".piece").textContent, special: e.dataset.special })));
      assert(tokens.length === 9, `9 tokens expected, got ${tokens.map((t) => t.text)}`);
      assert(tokens.every((t) => /^\d+$/.test(t.id)), "every token has a numeric data-id");
      assert(tokens[0].text === "[CLS]" && tokens[0].special === "true" && tokens[8].text === "[SEP]", "specials at the ends");
      assert(tokens[6].text === "[MASK]" && tokens[6].id === "103", `[MASK] is id 103: ${JSON.stringify(tokens[6])}`);
      const heatmaps = await page.$$(`${sel("attention-grid")} ${sel("heatmap")}`);
      assert(heatmaps.length === LAYERS * HEADS, `${LAYERS * HEADS} heatmaps expected, got ${heatmaps.length}`);
      const grid = await page.$eval(sel("attention-grid"), (g) => [Number(g.dataset.layers), Number(g.dataset.heads)]);
      assert(grid[0] * grid[1] === heatmaps.length, `grid says ${grid}`);
      const coords = await page.$$eval(sel("heatmap"), (els) => els.map((e) => `${e.dataset.layer}.${e.dataset.head}`));
      assert(JSON.stringify(coords) === JSON.stringify(["0.0", "0.1", "1.0", "1.1"]), `heatmap coordinates ${coords}`);
      const badge = (await page.textContent(sel("backend-badge"))).toLowerCase();
      assert(/cpu \(wasm\)|webgpu \(/.test(badge), `badge: ${badge}`);
      // Auto timed one forward on each backend and says which won (SwiftShader here: the CPU path)
      await page.waitForFunction(() => /Auto timed one forward/.test(document.querySelector('[data-testid="backend-badge"]').title), null, { timeout: TIMEOUT });
      const why = await page.getAttribute(sel("backend-badge"), "title");
      const [cpuMs, gpuMs] = [...why.matchAll(/([\d.]+) ms/g)].map((m) => Number(m[1]));
      assert((await page.textContent(sel("backend"))).includes(gpuMs < cpuMs ? "WebGPU" : "CPU"), `Auto used the slower backend: ${why}`);
      metrics.auto_race_ms = { cpu: cpuMs, webgpu: gpuMs };
      assert(/\d+(\.\d+)? ms/.test(badge), `badge shows no ms per forward: ${badge}`);
      await shot(page, "02-page");
      await shot(page, "03-tokens", `section:has(${sel("tokens")})`);
      await shot(page, "04-predictions", `section:has(${sel("predictions")})`);
      await shot(page, "05-attention-grid", `section:has(${sel("attention-grid")})`);
      await shot(page, "06-layers", `section:has(${sel("layers")})`);
    }));

    await test("the sentence pair gets segment ids 1 (and words are wordpieces)", onPage(async (page) => {
      await setText(page, "pair-input", "it is a beautiful city.");
      const segs = await page.$$eval(`${sel("tokens")} > *`, (els) => els.map((e) => e.dataset.segment));
      assert(segs.includes("1") && segs[0] === "0" && segs[segs.length - 1] === "1", `segments ${segs}`);
      await setText(page, "pair-input", "");
      await setText(page, "text-input", "the tokenizer splits unbelievably long words into [MASK].");
      const conts = await page.$$eval(`${sel("tokens")} > .cont`, (els) => els.map((e) => e.querySelector(".piece").textContent));
      assert(conts.length > 0 && conts.every((t) => t.startsWith("##")), `## continuations ${conts}`);
    }));

    await test("click a token to mask it; predictions appear there", onPage(async (page) => {
      await setText(page, "text-input", "the capital of france is [MASK].");
      const before = Object.keys(checkPredictions(await predictions(page))).length;
      await page.click(`${sel("tokens")} > [data-index="2"]`); // "capital"
      await settled(page);
      const groups = checkPredictions(await predictions(page));
      assert(Object.keys(groups).length === before + 1 && groups["2"], `masked position 2 predicted: ${Object.keys(groups)}`);
      const url = await urlOf(page);
      assert(url.includes("mask=2"), `masked position in the URL: ${url}`);
      await shot(page, "07-click-masked", `section:has(${sel("tokens")})`);
      await page.click(`${sel("tokens")} > [data-index="2"]`);
      await settled(page);
      assert(Object.keys(checkPredictions(await predictions(page))).length === before, "unmasked again");
    }));

    await test("head ablation changes the predictions", onPage(async (page) => {
      await setText(page, "text-input", "the capital of france is [MASK].");
      const on = await predictions(page);
      for (const [l, h] of [[0, 0], [0, 1], [1, 0]]) {
        await page.click(`${sel("head-toggle")}[data-layer="${l}"][data-head="${h}"]`);
        await settled(page);
      }
      const off = await predictions(page);
      checkPredictions(off);
      assert(JSON.stringify(on) !== JSON.stringify(off), "predictions did not change with 3 of 4 heads off");
      const dimmed = await page.$$eval(".thumb.off", (els) => els.length);
      assert(dimmed === 3, `switched-off heatmaps marked: ${dimmed}`);
      const url = await urlOf(page);
      assert(url.includes("off="), `heads in the URL: ${url}`);
      await page.locator(sel("predictions")).scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, "08-ablation.png") });
      for (const [l, h] of [[0, 0], [0, 1], [1, 0]]) {
        await page.click(`${sel("head-toggle")}[data-layer="${l}"][data-head="${h}"]`);
        await settled(page);
      }
      assert(JSON.stringify(await predictions(page)) === JSON.stringify(on), "all heads back on gives the first predictions again");
    }));

    await test("click a heatmap to enlarge it; hover shows the exact value", onPage(async (page) => {
      await page.click(`${sel("heatmap")}[data-layer="1"][data-head="1"]`);
      const detail = page.locator(sel("heatmap-detail"));
      await detail.waitFor({ timeout: TIMEOUT });
      const canvas = detail.locator("canvas");
      await canvas.scrollIntoViewIfNeeded();
      const box = await canvas.boundingBox();
      const n = await page.$$eval(`${sel("tokens")} > *`, (els) => els.length);
      // the cell of query 1, key 2
      await page.mouse.move(box.x + (2.5 / n) * box.width, box.y + (1.5 / n) * box.height);
      const hv = page.locator(sel("hover-value"));
      await page.waitForFunction(() => document.querySelector('[data-testid="hover-value"]')?.dataset.value !== undefined, null, { timeout: TIMEOUT });
      const [row, col, value] = await hv.evaluate((e) => [e.dataset.row, e.dataset.col, Number(e.dataset.value)]);
      assert(row === "1" && col === "2", `hovered cell ${row},${col}`);
      assert(value >= 0 && value <= 1, `value ${value}`);
      const labels = await detail.locator(".col-labels span").count();
      assert(labels === n, `token labels on the enlarged view: ${labels} of ${n}`);
      await shot(page, "09-heatmap-enlarged", sel("heatmap-detail"));
      const url = await urlOf(page);
      assert(url.includes("head=1.1"), `selected head in the URL: ${url}`);
    }));

    await test("a ?text= URL opened directly", async () => {
      const text = "paris is the [MASK] of france.";
      const p2 = await newPage(`?text=${encodeURIComponent(text)}&pair=${encodeURIComponent("it is big.")}`);
      await settled(p2);
      assert((await p2.inputValue(sel("text-input"))) === text, "text box holds the URL's text");
      assert((await p2.inputValue(sel("pair-input"))) === "it is big.", "pair box holds the URL's pair");
      checkPredictions(await predictions(p2));
      const toks = await p2.$$eval(`${sel("tokens")} > *`, (els) => els.map((e) => e.querySelector(".piece").textContent));
      assert(toks.includes("paris") && toks.includes("big"), `tokens of the URL text: ${toks}`);
      await p2.context().close();
    });

    await test("hostile input: empty, 5,000 characters, emoji, RTL, control characters, only [MASK]s", onPage(async (page) => {
      // empty: a clear message, then the page answers again
      await setText(page, "text-input", "");
      const empty = await errorText(page);
      assert(empty && /empty/i.test(empty), `message for empty text: ${empty}`);
      await shot(page, "10-error-empty");
      await stillAnswers(page);

      // 5,000 characters: truncated to the model's length, with a notice
      const long = "the quick brown fox jumps over the lazy dog and [MASK] runs away. ".repeat(80).slice(0, 5000);
      await setText(page, "text-input", long);
      assert((await errorText(page)) === null, `error for long text: ${await errorText(page)}`);
      const n = await page.$$eval(`${sel("tokens")} > *`, (els) => els.length);
      assert(n === MAX_LEN, `cut to ${MAX_LEN} tokens, got ${n}`);
      const notice = await page.textContent(sel("notice"));
      assert(/cut/.test(notice), `truncation notice: ${notice}`);
      checkPredictions(await predictions(page));
      assert((await page.$$(sel("heatmap"))).length === LAYERS * HEADS, "heatmaps for the long text");
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(SHOTS, "11-long-text.png") });
      await stillAnswers(page);

      // emoji and RTL scripts: [UNK] pieces, predictions still there
      for (const text of ["I love 🍕 and 😀👍🏽 so [MASK] much!", "שלום עולם [MASK] مرحبا بالعالم", "mixed עברית and english [MASK] text"]) {
        await setText(page, "text-input", text);
        assert((await errorText(page)) === null, `error for ${text}: ${await errorText(page)}`);
        checkPredictions(await predictions(page));
      }
      await shot(page, "12-rtl", `section:has(${sel("tokens")})`);
      await stillAnswers(page);

      // control characters only: nothing left to read, a message
      await setText(page, "text-input", "\u0000\u0007\u001b\u0008");
      const ctl = await errorText(page);
      assert(ctl && /no tokens/i.test(ctl), `message for control characters: ${ctl}`);
      await setText(page, "text-input", "the\u0000 cat\u0007 sat on the [MASK]\u001b.");
      checkPredictions(await predictions(page));
      await stillAnswers(page);

      // only [MASK]s
      await setText(page, "text-input", "[MASK] [MASK] [MASK] [MASK]");
      const groups = checkPredictions(await predictions(page));
      assert(Object.keys(groups).length === 4, `four [MASK] groups, got ${Object.keys(groups).length}`);
      await stillAnswers(page);
      assert(pageErrors.length === 0, `page errors: ${pageErrors.join(" | ")}`);
    }));

    await test("rapid typing: requests are coalesced and the page ends on the last text", async () => {
      // count the messages the page posts to the engine's worker
      const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      const p = await ctx.newPage();
      p.on("pageerror", (e) => pageErrors.push(String(e)));
      await p.addInitScript(() => {
        window.__sent = 0;
        const W = window.Worker;
        window.Worker = function (...args) {
          const w = new W(...args);
          const post = w.postMessage.bind(w);
          w.postMessage = (...m) => { window.__sent++; return post(...m); };
          return w;
        };
      });
      await p.goto(server.url);
      await settled(p);
      const text = "the weather today is [MASK] and sunny.";
      const before = await p.evaluate(() => window.__sent);
      const input = p.locator(sel("text-input"));
      await input.fill("");
      await input.pressSequentially(text, { delay: 2 });
      await settled(p);
      const sent = (await p.evaluate(() => window.__sent)) - before;
      assert((await p.inputValue(sel("text-input"))) === text, "typed text");
      const toks = await p.$$eval(`${sel("tokens")} > *`, (els) => els.map((e) => e.querySelector(".piece").textContent));
      assert(toks.includes("sunny") && toks.includes("[MASK]"), `tokens are of the last text: ${toks}`);
      checkPredictions(await predictions(p));
      assert(sent < text.length, `${text.length + 1} edits sent ${sent} requests: not coalesced`);
      metrics.rapid_typing = { keystrokes: text.length + 1, requests_sent: sent };
      await ctx.close();
    });

    await test("a broken checkpoint shows an error and keeps the page", async () => {
      const p3 = await newPage("?model=models/broken/");
      await p3.waitForSelector(sel("error"), { timeout: TIMEOUT });
      const msg = await errorText(p3);
      assert(/could not be loaded/.test(msg) && /checkpoint|safetensors/i.test(msg), `error: ${msg}`);
      assert(await p3.isVisible(sel("text-input")), "the inputs stay on the page");
      await shot(p3, "13-broken-model");
      await p3.context().close();
      const p4 = await newPage("?model=models/missing/");
      await p4.waitForSelector(sel("error"), { timeout: TIMEOUT });
      assert(/404/.test(await errorText(p4)), `missing model: ${await errorText(p4)}`);
      await p4.context().close();
      // another origin is refused: the default model loads instead
      const p5 = await newPage(`?model=${encodeURIComponent("http://example.com/m/")}&text=hello+[MASK]`);
      await settled(p5);
      checkPredictions(await predictions(p5));
      await p5.context().close();
      assert(offOrigin.length === 0, `requests to other origins: ${offOrigin.join(", ")}`);
      assert(httpErrors.length === 0, `failed requests: ${httpErrors.join(", ")}`);
    });

    await test("train from scratch in the page: counter moves, loss falls, filmstrip fills, clicks answered while training", async () => {
      const p = await newPage("?view=train");
      await settled(p);
      await watchLongTasks(p);
      await p.locator(sel("train-mode-scratch")).check();
      await setField(p, "train-batch", 8);
      await setField(p, "train-seq", 32);
      await setField(p, "train-steps", 1500);
      await setField(p, "train-every", 10);
      assert((await stepOf(p)) === 0, "step 0 before training");
      await shot(p, "14-train-step0");
      await p.click(sel("train-start"));
      await waitStep(p, 1, 60_000);
      const s1 = await stepOf(p);
      await sleep(1500);
      const s2 = await stepOf(p);
      assert(s2 > s1, `the step counter does not move: ${s1} -> ${s2}`);
      await waitStep(p, 100);
      // paused for the screenshots (a fast run could otherwise end while they are taken)
      await p.click(sel("train-pause"));
      await waitPhase(p, "paused");
      await shot(p, "15-train-step100");
      await shot(p, "15b-train-charts", `section:has(${sel("loss-chart")})`);
      await shot(p, "15c-train-masking", `section:has(${sel("masking-view")})`);
      await p.click(sel("train-start"));

      // the explainer answers while the worker trains
      const s5 = await stepOf(p);
      await p.click(sel("tab-explain"));
      let t0 = Date.now();
      await setText(p, "text-input", "the man went to the [MASK] to buy milk.");
      const explainMs = Date.now() - t0;
      checkPredictions(await predictions(p));
      await p.click(sel("tab-train"));
      const s6 = await stepOf(p);
      assert(s6 > s5 && ["running", "finished"].includes(await phaseOf(p)), `training went on while explaining: ${s5} -> ${s6}, ${await phaseOf(p)}`);

      // Pause answers at once and the counter stops; Step once adds one step; Start resumes
      t0 = Date.now();
      await p.click(sel("train-pause"));
      await waitPhase(p, "paused");
      const pauseMs = Date.now() - t0;
      const s3 = await stepOf(p);
      await sleep(800);
      assert((await stepOf(p)) === s3, "the counter moves while paused");
      await p.click(sel("train-step"));
      await p.waitForFunction((n) => Number(document.querySelector('[data-testid="step-counter"]').textContent) === n, s3 + 1, { timeout: TIMEOUT });
      await p.click(sel("train-start"));
      await waitPhase(p, "running");

      // the UI thread while the worker trains (nothing else going on): long tasks (> 50 ms)
      await p.evaluate(() => { window.__long = []; });
      await sleep(4000);
      const trainingLong = await p.evaluate(() => window.__long);

      await waitPhase(p, "finished", 300_000);
      assert((await stepOf(p)) === 1500, `ends at step 1500, got ${await stepOf(p)}`);
      await shot(p, "16-train-end");
      await shot(p, "16b-train-filmstrip", `section:has(${sel("filmstrip")})`);

      const losses = await lossValues(p);
      assert(losses.length >= 50, `at least 50 logged losses, got ${losses.length}`);
      const first = mean(losses.slice(0, 10)), last = mean(losses.slice(-10));
      assert(last < first, `the loss does not fall: first 10 mean ${first}, last 10 mean ${last}`);
      const frames = Number(await p.getAttribute(sel("filmstrip"), "data-frames"));
      assert(frames >= 2, `filmstrip frames: ${frames}`);
      const fm = await p.$$eval(`${sel("filmstrip")} canvas`, (cs) => cs.length);
      assert(fm >= 8, `filmstrip draws every head and its difference: ${fm} canvases`);
      // scrub A to the middle: the page says which step it shows
      await p.locator(sel("filmstrip-a")).fill(String(Math.floor(frames / 2)));
      const stepA = Number(await p.getAttribute(sel("filmstrip"), "data-step-a"));
      assert(stepA > 0 && stepA < 1500, `scrubbed A to step ${stepA}`);

      // Play runs B through the frames from the start
      await p.click(sel("filmstrip-play"));
      await sleep(900);
      const stepB = Number(await p.getAttribute(sel("filmstrip"), "data-step-b"));
      assert(stepB > 0 && stepB < 1500, `playing: B at step ${stepB}`);
      await p.click(sel("filmstrip-play"));
      await sleep(300);
      const stopped = await p.getAttribute(sel("filmstrip"), "data-step-b");
      await sleep(600);
      assert((await p.getAttribute(sel("filmstrip"), "data-step-b")) === stopped, "Stop stops");

      // the masking view: 15% of the candidates chosen, [MASK] / random / kept shown
      const mv = p.locator(sel("masking-view"));
      const chosen = Number(await mv.getAttribute("data-chosen")), cand = Number(await mv.getAttribute("data-candidates"));
      assert(cand > 0 && chosen / cand > 0.1 && chosen / cand < 0.2, `chosen ${chosen} of ${cand}`);
      const actions = await mv.locator("[data-action]").evaluateAll((els) => els.map((e) => e.dataset.action));
      assert(actions.includes("masked") && actions.includes("none"), `actions shown: ${[...new Set(actions)]}`);
      const rowsBefore = await mv.locator(".mrow").evaluateAll((rs) => rs.map((r) => r.innerText));
      await p.click(sel("mask-reroll"));
      await p.waitForFunction(() => /masked again with seed/.test(document.querySelector('[data-testid="masking-view"]').innerText), null, { timeout: TIMEOUT });
      const rowsAfter = await mv.locator(".mrow").evaluateAll((rs) => rs.map((r) => r.innerText));
      assert(JSON.stringify(rowsAfter) !== JSON.stringify(rowsBefore), "a re-roll masks other positions");

      const longTasks = await p.evaluate(() => window.__long);
      metrics.train_ui = {
        pause_click_ms: pauseMs, explain_while_training_ms: explainMs,
        long_tasks_while_training_4s: trainingLong, long_tasks_whole_test: longTasks,
        rate: await p.textContent(".rate"), load_average: fs.existsSync("/proc/loadavg") ? fs.readFileSync("/proc/loadavg", "utf8").trim() : null,
      };
      // tasks over 50 ms are reported; on this 2-core machine a busy core can stretch one, so the
      // bound checked is looser (a real block, such as decoding a whole model, is far above it)
      assert(Math.max(0, ...trainingLong) < 150, `UI-thread tasks while training: ${trainingLong} ms`);
      assert(pauseMs < 3000, `Pause took ${pauseMs} ms`);
      assert(explainMs < 5000, `the explainer took ${explainMs} ms while training`);

      // save: three HF files as downloads, config matching the tiny model
      await p.click(sel("train-save"));
      await p.waitForSelector(`${sel("train-downloads")} a`, { timeout: TIMEOUT });
      const links = await p.$$eval(`${sel("train-downloads")} a`, (as) => as.map((a) => [a.getAttribute("download"), a.href]));
      assert(JSON.stringify(links.map((l) => l[0])) === JSON.stringify(["config.json", "model.safetensors", "tokenizer.json"]), `downloads ${links.map((l) => l[0])}`);
      const saved = await p.evaluate(async (links) => {
        const cfg = await (await fetch(links[0][1])).json();
        const st = new DataView(await (await fetch(links[1][1])).arrayBuffer());
        const n = Number(st.getBigUint64(0, true));
        const header = JSON.parse(new TextDecoder().decode(new Uint8Array(st.buffer, 8, n)));
        const tok = await (await fetch(links[2][1])).json();
        return { cfg, names: Object.keys(header), vocab: Object.keys(tok.model.vocab).length };
      }, links);
      assert(saved.cfg.num_hidden_layers === 2 && saved.cfg.hidden_size === 64, `config ${JSON.stringify(saved.cfg)}`);
      assert(saved.vocab === saved.cfg.vocab_size, `tokenizer ${saved.vocab} vs config ${saved.cfg.vocab_size}`);
      assert(saved.names.some((n) => n.includes("word_embeddings")), `tensors ${saved.names.slice(0, 5)}`);

      // the trained model in the explainer, then back
      await p.locator(sel("train-use")).check();
      await p.waitForSelector(sel("trained-note"), { timeout: TIMEOUT });
      await p.click(sel("tab-explain"));
      await setText(p, "text-input", "the cats sat on the [MASK].");
      const ids = await p.$$eval(`${sel("tokens")} > *`, (els) => els.map((e) => Number(e.dataset.id)));
      assert(Math.max(...ids) < saved.cfg.vocab_size, `ids of the trained vocabulary: ${ids}`);
      checkPredictions(await predictions(p));
      // before / after: the loaded model's guesses beside the trained model's
      await p.waitForSelector(`${sel("predictions-before")} [data-token]`, { timeout: TIMEOUT });
      const beforeTop = await p.$eval(`${sel("predictions-before")} [data-token]`, (e) => e.dataset.token);
      const afterTop = (await predictions(p))[0].token;
      metrics.before_after = { text: "the cats sat on the [MASK].", before: beforeTop, after: afterTop };
      await shot(p, "17-before-after", `section:has(${sel("predictions")})`);
      await p.click(sel("tab-train"));
      await p.locator(sel("train-use")).uncheck();
      await p.waitForSelector(sel("trained-note"), { state: "detached", timeout: TIMEOUT });
      await p.click(sel("tab-explain"));
      await setText(p, "text-input", "the capital of france is [MASK].");
      const ids2 = await p.$$eval(`${sel("tokens")} > *`, (els) => els.map((e) => Number(e.dataset.id)));
      assert(ids2.includes(103) && ids2[0] === 101, `the default model again: ${ids2}`);
      await p.context().close();
      assert(pageErrors.length === 0, `page errors: ${pageErrors.join(" | ")}`);
    });

    await test("WebGPU in the browser: the same forward as the CPU path (attention 1e-4, logits' top-1); JSON export", async () => {
      const q = "?device=cpu&text=" + encodeURIComponent("the capital of france is [MASK].") + "&pair=" + encodeURIComponent("it is a big city.");
      const g = await newPage(q);
      await settled(g);
      assert((await g.textContent(sel("backend"))).includes("CPU"), `badge: ${await g.textContent(sel("backend"))}`);
      const cpu = await exportJson(g);
      await g.selectOption(sel("device-select"), "webgpu");
      await g.waitForFunction(() => document.querySelector('[data-testid="backend"]')?.textContent.includes("WebGPU")
        || document.querySelector('[data-testid="device-problem"]'), null, { timeout: 60_000 });
      const problem = await g.$(sel("device-problem"));
      assert(!problem, `WebGPU is not used: ${problem && await problem.textContent()}`);
      await settled(g);
      const url = await urlOf(g);
      assert(new URL(url).searchParams.get("device") === "webgpu", `URL keeps the choice: ${url}`);
      const gpu = await exportJson(g);
      metrics.webgpu_forward = { adapter: await g.textContent(sel("backend")), cpu_ms: cpu.forward_ms, gpu_ms: gpu.forward_ms };
      assert(gpu.device.startsWith("WebGPU") && cpu.device.startsWith("CPU"), `devices: ${cpu.device} / ${gpu.device}`);
      assert(JSON.stringify(gpu.tokens) === JSON.stringify(cpu.tokens), "same tokens");
      let worst = 0;
      cpu.attention.forEach((h, i) => h.forEach((v, j) => { worst = Math.max(worst, Math.abs(v - gpu.attention[i][j])); }));
      metrics.webgpu_forward.attention_max_abs_diff = worst;
      assert(worst <= 1e-4, `attention differs by ${worst}`);
      cpu.predictions.forEach((m, i) => {
        const o = gpu.predictions[i];
        assert(o.top[0].token === m.top[0].token, `top-1 at ${m.position}: ${m.top[0].token} vs ${o.top[0].token}`);
        m.top.forEach((p, k) => assert(Math.abs(p.prob - o.top[k].prob) <= 1e-3, `prob ${p.token}: ${p.prob} vs ${o.top[k].prob}`));
      });
      assert(Math.abs(cpu.is_next - gpu.is_next) <= 1e-3, `P(IsNext) ${cpu.is_next} vs ${gpu.is_next}`);
      cpu.hidden.forEach((l, i) => l.norm.forEach((n, t) => assert(Math.abs(n - gpu.hidden[i].norm[t]) <= 1e-3 * Math.max(1, n), `hidden norm ${i}.${t}`)));
      // a head switched off and a clicked mask go through the WebGPU path too
      await g.locator(`${sel("head-toggle")}[data-layer="1"][data-head="0"]`).click();
      await settled(g);
      assert((await g.textContent(sel("backend"))).includes("WebGPU"), "still on WebGPU after a head switched off");
      checkPredictions(await predictions(g));
      await shot(g, "20-webgpu-badge", sel("backend-badge"));
      await g.context().close();
    });

    await test("no WebGPU adapter: choosing WebGPU says why and the CPU path answers", async () => {
      const plain = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS.filter((f) => f !== "--enable-unsafe-webgpu") });
      try {
        const p = await (await plain.newContext()).newPage();
        p.on("pageerror", (e) => pageErrors.push(String(e)));
        await p.goto(server.url + "?device=webgpu&text=" + encodeURIComponent("paris is the [MASK] of france."));
        await settled(p);
        await p.waitForSelector(sel("device-problem"), { timeout: TIMEOUT });
        const why = await p.textContent(sel("device-problem"));
        assert(/adapter|WebGPU/i.test(why), `reason: ${why}`);
        assert((await p.textContent(sel("backend"))).includes("CPU"), "the CPU path answered");
        checkPredictions(await predictions(p));
        await shot(p, "21-no-webgpu", sel("backend-badge"));
      } finally {
        await plain.close();
      }
    });

    await test("train on WebGPU in the page: the held-out loss before training equals the CPU path's, the loss falls; throughput of both", async () => {
      metrics.in_page_training = {};
      const run = async (device, mode, steps) => {
        const p = await newPage(`?view=train&device=${device}`);
        await settled(p);
        await p.locator(sel(`train-mode-${mode}`)).check();
        await setField(p, "train-batch", 8);
        await setField(p, "train-seq", 32);
        await setField(p, "train-steps", steps);
        await setField(p, "train-every", 20);
        await p.click(sel("train-start"));
        await waitStep(p, steps, 240_000);
        await waitPhase(p, "finished", 60_000);
        const rate = p.locator(sel("train-rate"));
        const dev = await rate.getAttribute("data-device");
        const eval0 = Number(await rate.getAttribute("data-eval0"));
        const losses = await lossValues(p);
        const tps = Number(((await rate.textContent()).match(/([\d.]+) tokens\/s/) || [])[1]);
        metrics.in_page_training[`${device} ${mode}`] = { device: dev, eval_loss_before: eval0, tokens_per_s: tps, first: losses.slice(0, 3), last: losses.slice(-3) };
        if (device === "webgpu" && mode === "scratch") await shot(p, "22-train-webgpu");
        await p.context().close();
        return { dev, eval0, losses };
      };
      // the loaded model on held-out text, before any step: the same number on both backends (from
      // scratch the WordPiece vocabulary can differ by a few pieces between runs, see the README)
      const cpuC = await run("cpu", "continue", 2);
      const gpuC = await run("webgpu", "continue", 2);
      assert(cpuC.dev.startsWith("CPU") && gpuC.dev.startsWith("WebGPU"), `trained on ${cpuC.dev} / ${gpuC.dev}`);
      assert(Math.abs(cpuC.eval0 - gpuC.eval0) <= 1e-3 * Math.max(1, cpuC.eval0), `held-out loss before training: CPU ${cpuC.eval0} vs WebGPU ${gpuC.eval0}`);
      // from scratch on WebGPU the loss falls; the CPU run gives the throughput beside it
      const gpu = await run("webgpu", "scratch", 60);
      await run("cpu", "scratch", 60);
      const l = gpu.losses;
      assert(l.length >= 20 && l.every(Number.isFinite), `WebGPU losses: ${l}`);
      assert(mean(l.slice(-10)) < mean(l.slice(0, 10)), `WebGPU loss does not fall: ${l.slice(0, 10)} ... ${l.slice(-10)}`);
    });

    await test("guided tour: keys move through thirteen steps across the four tabs, Esc closes", async () => {
      const p = await newPage();
      await settled(p);
      await p.click(sel("tour-start"));
      await p.waitForSelector(sel("tour"), { timeout: TIMEOUT });
      const step = () => p.getAttribute(sel("tour"), "data-step");
      assert((await step()) === "0", "opens at step 1");
      assert(await p.isVisible(`[data-tour="on"] ${sel("tokens")}`), "step 1 points at the tokens");
      await p.keyboard.press("ArrowLeft");
      assert((await step()) === "0", "no step before the first");
      for (let i = 0; i < 5; i++) await p.keyboard.press("ArrowRight");
      await p.waitForFunction(() => document.querySelector('[data-testid="tour"]')?.dataset.step === "5", null, { timeout: TIMEOUT });
      assert(await p.isVisible(`[data-tour="on"] ${sel("fold-head-map")}`), "step 6 points at the head map");
      await p.keyboard.press("ArrowRight");
      await p.keyboard.press("ArrowRight");
      await p.waitForFunction(() => document.querySelector('[data-testid="tour"]')?.dataset.step === "7", null, { timeout: TIMEOUT });
      assert(await p.isVisible(sel("train-view")), "step 8 shows the training tab");
      assert(await p.isVisible(`[data-tour="on"] ${sel("masking-view")}`), "step 8 points at the masking view");
      // the charts, laid out while their tab was hidden, are drawn once it shows
      const inked = await p.$eval(sel("loss-chart"), (c) => {
        const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < d.length; i += 4) n += d[i] > 0;
        return n;
      });
      assert(inked > 1000, `the loss chart's axes are drawn (${inked} pixels)`);
      await shot(p, "18-tour-step7");
      for (let i = 0; i < 4; i++) await p.keyboard.press("ArrowRight");
      assert((await step()) === "11", "ends at step 12");
      assert(await p.isVisible(`[data-tour="on"] ${sel("finetune-start")}`), "step 12 points at fine-tuning, in its tab");
      // keys typed into a text box are not the tour's
      await p.locator(sel("tune-probe-text")).press("ArrowLeft");
      assert((await step()) === "11", "an arrow in a text field leaves the tour alone");
      await p.locator("body").click({ position: { x: 5, y: 5 } });
      await p.keyboard.press("ArrowRight");
      await p.keyboard.press("ArrowRight"); // no step after the last
      await p.waitForFunction(() => document.querySelector('[data-testid="tour"]')?.dataset.step === "12", null, { timeout: TIMEOUT });
      assert(await p.isVisible(`[data-tour="on"] ${sel("translate-start")}`), "step 13, the last, points at the Translate tab's training");
      await p.keyboard.press("Escape");
      await p.waitForSelector(sel("tour"), { state: "detached", timeout: TIMEOUT });
      assert((await p.$$("[data-tour]")).length === 0, "nothing stays highlighted");
      await p.context().close();
    });

    await test("continue training the loaded model; bad settings are a message", async () => {
      const p = await newPage("?view=train");
      await settled(p);
      await setField(p, "train-lr", "2");
      await p.click(sel("train-start"));
      await p.waitForSelector(sel("train-error"), { timeout: TIMEOUT });
      assert(/learning rate/.test(await p.textContent(sel("train-error"))), "learning-rate message");
      assert((await phaseOf(p)) === "idle", "no run after a bad setting");
      await p.locator(sel("train-mode-continue")).check();
      await setField(p, "train-lr", "0.0001");
      await setField(p, "train-batch", 4);
      await setField(p, "train-seq", 32);
      await setField(p, "train-steps", 6);
      await p.click(sel("train-start"));
      await waitPhase(p, "finished", 120_000);
      assert((await stepOf(p)) === 6, "six steps of the loaded model");
      const info = await p.textContent(".run-info");
      assert(/vocabulary 30522/.test(info) && /hidden 128/.test(info), `continues bert-tiny: ${info}`);
      await shot(p, "19-train-continue-masking", `section:has(${sel("masking-view")})`);
      await p.click(sel("train-reset"));
      await waitPhase(p, "idle");
      assert((await stepOf(p)) === 0, "reset");

      // your own text: too short is a message; an uploaded file trains from scratch
      await p.locator(sel("train-mode-scratch")).check();
      await p.selectOption(sel("train-corpus"), "custom");
      await p.locator(sel("train-corpus-text")).fill("only a few words here.");
      await p.click(sel("train-start"));
      await p.waitForFunction(() => /too short/.test(document.querySelector('[data-testid="train-error"]')?.textContent || ""), null, { timeout: TIMEOUT });
      const animals = ["cat", "dog", "bird", "fish", "horse", "cow"], places = ["house", "garden", "river", "field", "barn"];
      let text = "";
      for (let d = 0; d < 30; d++) {
        for (let k = 0; k < 4; k++) text += `the ${animals[(d + k) % 6]} sat in the ${places[(d * 3 + k) % 5]}.\n`;
        text += "\n";
      }
      await p.locator('.custom-corpus input[type="file"]').setInputFiles({ name: "corpus.txt", mimeType: "text/plain", buffer: Buffer.from(text) });
      await p.waitForFunction(() => document.querySelector('[data-testid="train-corpus-text"]').value.length > 1000, null, { timeout: TIMEOUT });
      await setField(p, "train-batch", 4);
      await setField(p, "train-seq", 16);
      await setField(p, "train-steps", 20);
      await p.click(sel("train-start"));
      await waitPhase(p, "finished", 120_000);
      const own = await p.textContent(".run-info");
      assert(/hidden 64/.test(own) && !/vocabulary 30522/.test(own), `a tiny model on the uploaded text: ${own}`);
      await p.context().close();
    });

    await test("long run: 2,000 steps, the UI thread's JS heap stays flat after warm-up", async () => {
      const p = await newPage("?view=train");
      await settled(p);
      const cdp = await p.context().newCDPSession(p);
      const heap = async () => {
        await cdp.send("HeapProfiler.collectGarbage");
        return (await cdp.send("Runtime.getHeapUsage")).usedSize;
      };
      await setField(p, "train-batch", 4);
      await setField(p, "train-seq", 16);
      await setField(p, "train-steps", 2000);
      await setField(p, "train-every", 10);
      const t0 = Date.now();
      await p.click(sel("train-start"));
      const workerMemory = async () => Number(await p.getAttribute(sel("train-rate"), "data-worker-memory"));
      await waitStep(p, 300, 300_000);
      const warm = await heap();
      const warmWorker = await workerMemory();
      await waitPhase(p, "finished", 600_000);
      const end = await heap();
      const endWorker = await workerMemory();
      const frames = Number(await p.getAttribute(sel("filmstrip"), "data-frames"));
      metrics.long_run = { steps: await stepOf(p), seconds: (Date.now() - t0) / 1000, heap_after_warmup: warm, heap_end: end, growth: end / warm - 1, frames_kept: frames, worker_wasm_memory: [warmWorker, endWorker] };
      assert(warmWorker > 0 && endWorker <= warmWorker * 1.2, `the worker's memory grew from ${warmWorker} to ${endWorker} bytes`);
      assert((await stepOf(p)) === 2000, "2,000 steps");
      assert(end <= warm * 1.2, `JS heap grew ${(100 * (end / warm - 1)).toFixed(1)}% (${warm} -> ${end})`);
      await p.context().close();
    });

    // view suites kept in their own files: tests/e2e/views_*.mjs, each `export default async (h) => ...`
    const h = { DIST, keystrokeMs, urlOf, test, newPage, sel, settled, setText, predictions, errorText, exportJson, stillAnswers, shot, assert, sleep, metrics, TIMEOUT, LAYERS, HEADS, browser, server, CHROMIUM, FLAGS };
    for (const f of fs.readdirSync(here).filter((f) => /^views_.*\.mjs$/.test(f)).sort()) {
      const suite = await import(path.join(here, f));
      await suite.default(h);
    }

  } finally {
    await browser.close();
    await server.close();
  }
  fs.mkdirSync(path.dirname(METRICS), { recursive: true });
  fs.writeFileSync(METRICS, JSON.stringify({ results, metrics }, null, 2));
}

main()
  .catch((e) => {
    results.push({ name: "suite", ok: false, error: String(e && e.stack || e) });
    console.log(`FAIL suite: ${e && e.stack || e}`);
  })
  .finally(() => {
    const passed = results.filter((r) => r.ok).length;
    const failed = results.length - passed;
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed > 0 || passed === 0 ? 1 : 0);
  });
