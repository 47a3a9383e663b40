// Fine-tuning in the page: sentiment from the shipped model reaches 85% held-out accuracy within
// the default run (the confusion matrix counts every held-out review), your own sentence
// before and after, save, and the fine-tuned model in the explainer; the comparison with random
// weights runs both curves; bad pasted data is a message naming the line, and the page goes on.

export default async (h) => {
  const { test, newPage, sel, settled, assert, shot, metrics, sleep, setText } = h;

  const setField = async (page, id, value) => {
    const i = page.locator(sel(id));
    await i.fill(String(value));
    await i.press("Tab"); // change event
    assert((await i.inputValue()) === String(value), `${id} holds ${value}`);
  };
  const phase = (p) => p.getAttribute(sel("tune-status"), "data-phase");
  const stepOf = async (p) => Number(await p.textContent(sel("tune-step")));
  const accuracy = async (p) => {
    const t = (await p.textContent(sel("finetune-accuracy"))).trim();
    return t === "" ? null : Number(t);
  };
  const waitPhase = (p, ph, timeout = 60_000) =>
    p.waitForFunction((ph) => document.querySelector('[data-testid="tune-status"]')?.dataset.phase === ph, ph, { timeout });

  await test("tune: sentiment from the loaded model passes 85% held-out; before/after; save; the explainer uses it", async () => {
    const p = await newPage("?view=tune");
    await settled(p);
    assert((await p.getAttribute(sel("tab-tune"), "aria-selected")) === "true", "?view=tune opens the tab");
    await shot(p, "30-tune-start");
    await p.click(sel("finetune-start"));
    // set-up: fetch, encode, the scores before any step
    await p.waitForFunction(() => document.querySelector('[data-testid="confusion-matrix"]'), null, { timeout: 60_000 });
    await waitPhase(p, "running", 30_000);
    // passes 85% before the run's 200 steps end (how fast is a bench: tests/e2e/bench_tune.mjs)
    const t0 = Date.now();
    let reached = null;
    let mid = false;
    while ((await phase(p)) === "running" && Date.now() - t0 < 300_000) {
      const a = await accuracy(p);
      if (a !== null && a >= 0.85) {
        reached = { seconds: (Date.now() - t0) / 1000, step: await stepOf(p), accuracy: a };
        break;
      }
      if (!mid && (await stepOf(p)) >= 60) {
        mid = true;
        await shot(p, "31-tune-mid");
      }
      await sleep(250);
    }
    const end = { seconds: (Date.now() - t0) / 1000, step: await stepOf(p), accuracy: await accuracy(p) };
    metrics.finetune_sentiment = { reached_85: reached, at_stop: end, rate: await p.textContent(sel("tune-rate")) };
    assert(reached, `85% held-out accuracy within the 200 steps: ${JSON.stringify(end)}`);
    // the confusion matrix holds every held-out review; its diagonal is the accuracy shown
    await p.click(sel("tune-pause"));
    await waitPhase(p, "paused");
    const counts = await p.$$eval(`${sel("confusion-matrix")} td`, (els) => els.map((e) => Number(e.dataset.count)));
    assert(counts.length === 4 && counts.reduce((a, b) => a + b, 0) === 296, `2 x 2 over the 296 test reviews: ${counts}`);
    const acc = await accuracy(p);
    assert(Math.abs((counts[0] + counts[3]) / 296 - acc) < 1e-3, `diagonal ${counts} vs accuracy ${acc}`);
    const batch = await p.$$eval(`${sel("tune-batch")} li`, (els) => els.length);
    assert(batch > 0, "the current batch with the model's answers");
    // your sentence before and after
    await p.locator(sel("tune-probe-text")).fill("The staff were friendly and the food was wonderful.");
    await p.click(sel("tune-probe-go"));
    await p.waitForSelector(sel("tune-probe"), { timeout: 30_000 });
    const probe = await p.$$eval(`${sel("tune-probe")} [data-label]`, (els) => els.map((e) => e.dataset.label));
    assert(probe.length === 2 && probe[1] === "positive", `before and after: ${probe}`);
    const clsRows = await p.$$eval(`${sel("cls-attention")} tbody tr`, (els) => els.length);
    assert(clsRows > 5, "[CLS] attention before and after, a row per token");
    await shot(p, "32-tune-end");
    // save: the HF folder's three files
    await p.click(sel("tune-save"));
    await p.waitForSelector(`${sel("tune-downloads")} a`, { timeout: 30_000 });
    const files = await p.$$eval(`${sel("tune-downloads")} a`, (els) => els.map((e) => e.getAttribute("download")));
    assert(JSON.stringify(files) === JSON.stringify(["config.json", "model.safetensors", "tokenizer.json"]), `saved: ${files}`);
    // the explainer uses the fine-tuned model: section 3 shows its classes
    await p.locator(sel("tune-use")).check();
    await p.click(sel("tab-explain"));
    await setText(p, "text-input", "what a wonderful, friendly place.");
    await p.waitForSelector(`${sel("task-output")} [data-label]`, { timeout: 30_000 });
    const labels = await p.$$eval(`${sel("task-output")} [data-label]`, (els) => els.map((e) => e.dataset.label));
    assert(labels.length === 2 && labels[0] === "positive", `the explainer's classes: ${labels}`);
    await p.context().close();
  });

  await test("tune: the comparison with random weights draws both runs; bad data names its line", async () => {
    const p = await newPage("?view=tune");
    await settled(p);
    // bad pasted data: a message naming the line; nothing breaks
    await p.selectOption(sel("tune-dataset"), "custom");
    const bad = ['{"text": "good", "label": "positive"}', '{"text": "bad", "label": "negative"}', '{"text": 3}'].join("\n");
    await p.locator(sel("tune-data-text")).fill(bad);
    await p.click(sel("finetune-start"));
    await p.waitForSelector(sel("tune-error"), { timeout: 30_000 });
    const err = await p.textContent(sel("tune-error"));
    assert(/line 3/.test(err), `the error names the line: ${err}`);
    assert((await phase(p)) === "idle", "no run");

    await p.selectOption(sel("tune-dataset"), "sentiment");
    await p.locator(sel("tune-compare")).check();
    await setField(p, "tune-steps", 48);
    await p.click(sel("finetune-start"));
    await waitPhase(p, "finished", 120_000);
    const cmp = await p.$eval(sel("finetune-compare"), (e) => [Number(e.dataset.main), Number(e.dataset.random)]);
    metrics.finetune_compare = { steps: 48, pretrained: cmp[0], random: cmp[1] };
    assert(cmp[0] > cmp[1], `pre-trained ${cmp[0]} above random weights ${cmp[1]} at the same step`);
    const scores = await p.$$eval(sel("confusion-matrix"), (els) => els.length);
    assert(scores === 2, "both runs' confusion matrices");
    const randomPoints = await p.$eval(sel("tune-acc-chart"), (e) => e.dataset.values.split(",").length);
    assert(randomPoints >= 4, `held-out points: ${randomPoints}`);
    await shot(p, "33-tune-compare", `section:has(${sel("tune-acc-chart")})`);
    await p.context().close();
  });
};
