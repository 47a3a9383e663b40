// "One head, step by step" and "FFN, residual + LayerNorm": the steps appear, another head changes
// them, a softmax cell's formula shows the attention grid's number, the LayerNorm formula adds up,
// the layer trajectory is drawn; keystroke latency with these views on the page.

const STEPS = ["q", "k", "v", "scores", "scaled", "masked", "softmax", "context", "concat", "output"];

/** Clicks cell (row, col) of the step's canvas. */
async function clickCell(page, h, step, row, col) {
  const canvas = page.locator(`${h.sel("head-steps")} [data-step="${step}"] canvas`);
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  const [rows, cols] = await page.$eval(h.sel("head-steps"), (el, step) => {
    const f = el.querySelector(`[data-step="${step}"] .shape`).textContent.match(/(\d+) × (\d+)/);
    return [Number(f[1]), Number(f[2])];
  }, step);
  await page.mouse.click(box.x + ((col + 0.5) / cols) * box.width, box.y + ((row + 0.5) / rows) * box.height);
}

/** How many canvases under `locator` have nothing drawn (a canvas the DOM diff replaced is blank). */
const blankCanvases = (locator) =>
  locator.evaluate((el) =>
    [...el.querySelectorAll("canvas")].filter((c) => !c.getContext("2d").getImageData(0, 0, c.width, c.height).data.some((v, i) => i % 4 === 3 && v > 0)).length,
  );

const formula = (page, h) =>
  page.$eval(h.sel("head-formula"), (e) => ({ ...e.dataset, text: e.textContent }));

/** Opens every view that is folded away (components/fold.rs). */
async function openFolds(page) {
  for (const b of await page.$$('.fold-toggle[aria-expanded="false"]')) await b.click();
}

export default async (h) => {
  const { test, newPage, sel, settled, assert, shot, sleep, metrics } = h;
  const text = "the cat sat on the mat because it was [MASK].";
  /** The page on `text`, every fold open (the heavier views open on demand), its errors kept. */
  const openPage = async () => {
    const page = await newPage(`?text=${encodeURIComponent(text)}`);
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await settled(page);
    await openFolds(page);
    return { page, errors };
  };

  await test("head: one head step by step, another head, a softmax cell's formula = the grid's value", async () => {
    const { page, errors } = await openPage();
    const steps = page.locator(sel("head-steps"));
    await steps.waitFor({ timeout: h.TIMEOUT });
    const got = await steps.evaluate((el) => [...el.querySelectorAll("[data-step]")].map((e) => e.dataset.step));
    assert(JSON.stringify(got) === JSON.stringify(STEPS), `steps ${got}`);
    assert((await steps.getAttribute("data-layer")) === "0" && (await steps.getAttribute("data-head")) === "0", "default head 0.0");
    const n = await page.$$eval(`${sel("tokens")} > *`, (els) => els.length);
    const shapes = await steps.evaluate((el) => Object.fromEntries([...el.querySelectorAll("[data-step]")].map((e) => [e.dataset.step, e.querySelector(".shape").textContent])));
    assert(shapes.softmax.startsWith(`${n} × ${n}`), `softmax shape ${shapes.softmax} for ${n} tokens`);
    assert(/^\d+ × \d+/.test(shapes.q) && shapes.q.startsWith(`${n} ×`), `Q shape ${shapes.q}`);

    // a cell of Q: the formula is Q[i,j] = x·W + b = dot + bias = value
    await clickCell(page, h, "q", 2, 3);
    let f = await formula(page, h);
    assert(f.step === "q" && f.row === "2" && f.col === "3", `picked ${f.step} ${f.row},${f.col}`);
    const qn = f.text.match(/= (-?[\d.]+) \+ (-?[\d.]+) = (-?[\d.]+)$/);
    assert(qn && Math.abs(Number(qn[1]) + Number(qn[2]) - Number(qn[3])) < 2e-4, `Q formula adds up: ${f.text}`);
    // scaled = score / sqrt(d_k)
    await clickCell(page, h, "scaled", 1, 2);
    f = await formula(page, h);
    const sc = f.text.match(/= (-?[\d.]+) \/ ([\d.]+) = (-?[\d.]+)$/);
    assert(sc && Math.abs(Number(sc[1]) / Number(sc[2]) - Number(sc[3])) < 2e-4, `scaled formula: ${f.text}`);

    // another head: the steps change
    const before = await steps.evaluate((el) => el.closest(".head-steps-view").textContent);
    const q0 = f.value;
    await page.selectOption(sel("head-head"), "1");
    await settled(page);
    await page.waitForFunction(() => document.querySelector('[data-testid="head-steps"]').dataset.head === "1", null, { timeout: h.TIMEOUT });
    await page.selectOption(sel("head-layer"), "1");
    await settled(page);
    await page.waitForFunction(() => document.querySelector('[data-testid="head-steps"]').dataset.layer === "1", null, { timeout: h.TIMEOUT });
    f = await formula(page, h);
    assert(f.layer === "1" && f.head === "1" && f.value !== q0, `formula follows the head: ${JSON.stringify(f)}`);
    const after = await steps.evaluate((el) => el.closest(".head-steps-view").textContent);
    assert(after !== before, "the numbers change with the head");

    // a softmax cell of layer 1 head 1 ...
    await clickCell(page, h, "softmax", 1, 2);
    f = await formula(page, h);
    assert(f.step === "softmax" && f.row === "1" && f.col === "2", `softmax cell ${f.row},${f.col}`);
    const sm = f.text.match(/exp\((-?[\d.]+) − (-?[\d.]+)\) \/ ([\d.]+) = ([\d.]+) \/ ([\d.]+) = ([\d.]+)$/);
    assert(sm, `softmax formula: ${f.text}`);
    assert(Math.abs(Math.exp(Number(sm[1]) - Number(sm[2])) - Number(sm[4])) < 2e-4 * Math.max(1, Number(sm[4])), `exp: ${f.text}`);
    assert(Math.abs(Number(sm[4]) / Number(sm[5]) - Number(sm[6])) < 2e-4, `ratio: ${f.text}`);
    assert(Math.abs(Number(sm[6]) - Number(f.value)) < 1e-4, `shown = data value: ${f.text} vs ${f.value}`);
    await page.waitForSelector(`${sel("softmax-row")}[data-row="1"]`, { timeout: h.TIMEOUT });
    assert((await blankCanvases(steps)) === 0, "every step is still drawn after cells were picked");
    await shot(page, "head-steps", ".head-steps-view");

    // ... equals the attention grid's value for the same layer / head / cell
    await page.click(`${sel("heatmap")}[data-layer="1"][data-head="1"]`);
    await settled(page);
    const detail = page.locator(sel("heatmap-detail"));
    await detail.waitFor({ timeout: h.TIMEOUT });
    const canvas = detail.locator("canvas");
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    await page.mouse.move(box.x + (2.5 / n) * box.width, box.y + (1.5 / n) * box.height);
    await page.waitForFunction(() => document.querySelector('[data-testid="hover-value"]')?.dataset.value !== undefined, null, { timeout: h.TIMEOUT });
    const grid = await page.$eval(sel("hover-value"), (e) => ({ row: e.dataset.row, col: e.dataset.col, value: e.dataset.value }));
    assert(grid.row === "1" && grid.col === "2", `grid cell ${grid.row},${grid.col}`);
    assert(grid.value === f.value, `grid ${grid.value} vs step-by-step ${f.value}`);
    const stepsHead = await steps.evaluate((el) => `${el.dataset.layer}.${el.dataset.head}`);
    assert(stepsHead === "1.1", `enlarging a head focuses it: ${stepsHead}`);
    assert((await blankCanvases(detail)) === 0, "the enlarged head is still drawn after a cell was hovered");
    assert(errors.length === 0, `page errors: ${errors}`);
    await page.context().close();
  });

  await test("head: FFN, residual + LayerNorm numbers add up; trajectory; keystroke latency", async () => {
    const { page, errors } = await openPage();
    const ffn = page.locator(sel("ffn-detail"));
    await ffn.waitFor({ timeout: h.TIMEOUT });
    await page.selectOption(sel("ffn-token"), "2");
    await settled(page);
    await page.waitForFunction(() => document.querySelector('[data-testid="ffn-detail"]').dataset.token === "2", null, { timeout: h.TIMEOUT });
    // pick hidden dimension 5 on the LayerNorm strip
    const strip = ffn.locator('[data-strip="ln1"] canvas');
    await strip.scrollIntoViewIfNeeded();
    const box = await strip.boundingBox();
    const hidden = await ffn.evaluate((el) => Number(el.querySelector('[data-strip="ln1"] .strip-label small').textContent.replace(/\D/g, "")));
    await page.mouse.click(box.x + (5.5 / hidden) * box.width, box.y + box.height / 2);
    await page.waitForFunction(() => document.querySelector('[data-testid="ln-formula"]')?.dataset.dim === "5", null, { timeout: h.TIMEOUT });
    assert((await blankCanvases(ffn)) === 0, "every strip is still drawn after a dimension was picked");
    const lns = await page.$$eval(sel("ln-formula"), (els) => els.map((e) => ({ ...e.dataset, text: e.textContent })));
    assert(lns.length === 2 && lns[0].which === "ln1" && lns[1].which === "ln2", `two LayerNorms: ${lns.map((l) => l.which)}`);
    for (const ln of lns) {
      const [x, mean, rstd, g, b, y] = [ln.x, ln.mean, ln.rstd, ln.gamma, ln.beta, ln.value].map(Number);
      const want = g * (x - mean) * rstd + b;
      assert(Math.abs(want - y) < 1e-4 * Math.max(1, Math.abs(y)), `${ln.which}: γ(x−μ)·rstd+β = ${want} vs ${y}`);
      const shown = ln.text.match(/= (-?[\d.]+)·(-?[\d.]+)·([\d.]+) \+ (-?[\d.]+) = (-?[\d.]+)$/);
      assert(shown, `LN text: ${ln.text}`);
      const s = shown.slice(1).map(Number);
      assert(Math.abs(s[0] * s[1] * s[2] + s[3] - s[4]) < 2e-3, `the printed numbers add up: ${ln.text}`);
    }
    // the residuals: attn_res = x + attn_out, out_res = LN1 + ffn_out
    const sums = await ffn.evaluate((el) => [...el.querySelectorAll(".formulas li")].map((li) => li.textContent).filter((t) => /_res\[/.test(t)));
    assert(sums.length === 2, `two residual formulas: ${sums}`);
    for (const t of sums) {
      const m = t.match(/= (-?[\d.]+) \+ (-?[\d.]+) = (-?[\d.]+)$/);
      assert(m && Math.abs(Number(m[1]) + Number(m[2]) - Number(m[3])) < 2e-4, `residual adds up: ${t}`);
    }
    // the trajectory: one line per token, the chosen one bold, L+1 points
    const traj = page.locator(sel("layer-trajectory"));
    assert((await traj.getAttribute("data-token")) === "2", "the trajectory follows the FFN's token");
    const n = await page.$$eval(`${sel("tokens")} > *`, (els) => els.length);
    const lines = await traj.evaluate((el) => el.querySelectorAll("svg polyline").length);
    assert(lines === 2 * n, `${lines} lines for ${n} tokens in two charts`);
    const dots = await traj.evaluate((el) => el.querySelectorAll("svg circle.chosen-dot").length);
    assert(dots === 2 * (h.LAYERS + 1), `${dots} points on the chosen token's lines`);
    await shot(page, "head-ffn", sel("ffn-detail"));
    await shot(page, "head-trajectory", sel("layer-trajectory"));
    // another layer changes the numbers
    const v0 = lns[0].value;
    await page.selectOption(sel("ffn-layer"), "1");
    await settled(page);
    await page.waitForFunction(() => document.querySelector('[data-testid="ffn-detail"]').dataset.layer === "1", null, { timeout: h.TIMEOUT });
    const v1 = await page.$eval(sel("ln-formula"), (e) => e.dataset.value);
    assert(v1 !== v0, "layer 1's LayerNorm differs");

    // keystroke to render with these views on the page (~20 tokens)
    const sentence = (w) => `the ${w} brown fox jumps over the lazy dog while the [MASK] sleeps under the old oak tree.`;
    const words = ["quick", "slow", "happy", "sad", "small", "big"];
    const times = [];
    for (let i = -5; i < 20; i++) {
      const ms = await h.keystrokeMs(page, sentence(words[(i + 6) % words.length]) + (i % 2 ? "" : " "));
      if (i >= 0) times.push(ms);
    }
    times.sort((a, b) => a - b);
    metrics.head_views_keystroke_ms = { edits: times.length, p50: times[Math.floor(times.length / 2)], p90: times[Math.floor(times.length * 0.9)] };
    console.log(`     keystroke to render with the head / FFN views: p50 ${times[Math.floor(times.length / 2)].toFixed(1)} ms, p90 ${times[Math.floor(times.length * 0.9)].toFixed(1)} ms`);
    await sleep(50);
    assert(errors.length === 0, `page errors: ${errors}`);
    await page.context().close();
  });
};
