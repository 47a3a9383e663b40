// The Translate tab: pasted garbage names its line and the page goes on; an encoder-decoder trained
// from scratch on numbers until the held-out exact match passes 0.5 (or the loss halves); "4 5 7"
// decoded with Step until the end token; every cross-attention heatmap (target rows by source
// columns) and every causal self-attention heatmap read from the page, each weight above the
// diagonal exactly 0 and its score before the softmax -inf; beam search draws its tree; an empty
// source is a message and decoding goes on; each step shows the worker's time for it. Save: the trained model downloaded as an HF
// EncoderDecoderModel folder, and `bertscope generate` on it writes what the page's greedy decoding
// wrote.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO, cli } from "./page_lib.mjs";

export default async (h) => {
  const { test, newPage, sel, settled, assert, shot, metrics, sleep } = h;

  const phase = (p) => p.getAttribute(sel("translate-status"), "data-phase");
  const waitPhase = (p, ph, timeout = 60_000) =>
    p.waitForFunction((ph) => document.querySelector('[data-testid="translate-status"]')?.dataset.phase === ph, ph, { timeout });
  const series = async (p, id) => {
    const v = await p.getAttribute(sel(id), "data-values");
    return v ? v.split(",").map((x) => Number(x.split(":")[1])) : [];
  };
  const decodeState = (p) =>
    p.$eval(sel("decode-status"), (e) => ({ step: Number(e.dataset.step), done: e.dataset.done === "true", answers: Number(e.dataset.answers) }));
  /** Clicks a decoding button and waits for its first answer (a view or a message). */
  const press = async (p, id) => {
    const before = await decodeState(p);
    await p.click(sel(id));
    await p.waitForFunction((n) => Number(document.querySelector('[data-testid="decode-status"]').dataset.answers) > n, before.answers, { timeout: 30_000 });
    return decodeState(p);
  };
  /** One Step, watching the Translate tab: the elements removed while it is answered. A step only
   *  adds its new cells (yew rebuilds a keyed list whole when it has unkeyed siblings, which once
   *  made a step redraw about 150 elements and miss the frame). */
  const removedOnStep = async (p) => {
    await p.evaluate(() => {
      window.__removed = [];
      window.__churn = new MutationObserver((ms) => {
        for (const m of ms) for (const n of m.removedNodes) if (n.nodeType === 1) window.__removed.push(`${n.nodeName}.${n.getAttribute("class") || ""}`);
      });
      window.__churn.observe(document.querySelector('[data-testid="translate-view"]'), { childList: true, subtree: true });
    });
    const s = await press(p, "decode-step");
    const removed = await p.evaluate(() => {
      window.__churn.disconnect();
      return window.__removed;
    });
    return { s, removed };
  };
  /** Decoding to the end with "Run to the end": the output's tokens (the chips after the start
   *  token) and its text. */
  const runToEnd = async (p) => {
    let s = await press(p, "decode-run");
    for (let i = 0; i < 60 && !s.done; i++) {
      await sleep(100);
      s = await decodeState(p);
    }
    assert(s.done, `decoding ends: ${JSON.stringify(s)}`);
    const tokens = await p.$$eval(".decode-output .chip", (els) => els.slice(1).map((e) => e.textContent).filter((t) => t !== "?"));
    return { tokens, text: (await p.textContent(sel("generated"))).trim(), steps: s.step };
  };
  const matrices = (p, id) =>
    p.$$eval(sel(id), (els) =>
      els.map((e) => ({
        layer: e.dataset.layer,
        head: e.dataset.head,
        rows: Number(e.dataset.rows),
        cols: Number(e.dataset.cols),
        values: e.dataset.values.split(",").map(Number),
        scores: e.dataset.scores.split(",").map(Number),
      })),
    );

  await test("translate: numbers from scratch, 4 5 7 step by step, the causal mask and cross-attention read from the page", async () => {
    const p = await newPage("?view=translate");
    await settled(p);
    assert((await p.getAttribute(sel("tab-translate"), "aria-selected")) === "true", "?view=translate opens the tab");
    assert(/CPU \(WebAssembly\)/.test(await p.textContent(sel("translate-rate"))), "the page says where it runs");
    assert((await p.$$(sel("decode-step"))).length === 1 && (await p.isDisabled(sel("decode-step"))), "nothing to decode before a model");
    await shot(p, "40-translate-start");

    // pasted garbage: a message naming the line, no run, the page goes on
    await p.selectOption(sel("translate-dataset"), "custom");
    const bad = ['{"source": "1", "target": "one"}', '{"source": "2", "target": "two"}', "three -> drei"].join("\n");
    await p.locator(sel("translate-data-text")).fill(bad);
    await p.click(sel("translate-start"));
    await p.waitForSelector(sel("translate-error"), { timeout: 30_000 });
    const err = await p.textContent(sel("translate-error"));
    assert(/line 3/.test(err), `the error names the line: ${err}`);
    assert((await phase(p)) === "idle", "no run");

    // numbers from scratch until the held-out exact match passes 0.5 or the loss halves
    await p.selectOption(sel("translate-dataset"), "numbers");
    const t0 = Date.now();
    await p.click(sel("translate-start"));
    await p.waitForSelector(sel("translate-scores"), { timeout: 30_000 });
    const setup = (Date.now() - t0) / 1000;
    await waitPhase(p, "running", 30_000);
    const t1 = Date.now();
    let reached = null;
    while (Date.now() - t1 < 90_000) {
      const loss = await series(p, "translate-loss-chart");
      const exact = await series(p, "translate-exact-chart");
      const em = exact.length > 1 ? exact[exact.length - 1] : 0;
      const halved = loss.length > 10 && loss[loss.length - 1] < loss[0] / 2;
      if (em > 0.5 || (halved && em > 0)) {
        reached = { seconds: (Date.now() - t1) / 1000, step: Number(await p.textContent(sel("translate-step"))), loss: [loss[0], loss[loss.length - 1]], exact_match: em };
        if (em > 0.5) break;
      }
      await sleep(250);
    }
    await p.click(sel("translate-pause"));
    await waitPhase(p, "paused");
    metrics.translate_numbers = { setup_seconds: setup, reached, rate: await p.textContent(sel("translate-rate")) };
    assert(reached, `the loss halves or the exact match passes 0.5 within 90 s: ${JSON.stringify(metrics.translate_numbers)}`);
    await shot(p, "41-translate-trained", `section:has(${sel("translate-loss-chart")})`);

    // "4 5 7", one step at a time, until the end token
    await p.locator(sel("decode-source")).fill("4 5 7");
    let s = await press(p, "decode-step");
    s = await press(p, "decode-step");
    const greedyChurn = await removedOnStep(p);
    assert(!greedyChurn.s.done && greedyChurn.removed.length === 0, `a greedy step removes nothing: ${greedyChurn.removed.slice(0, 8)}`);
    s = greedyChurn.s;
    for (let i = 0; i < 30 && !s.done; i++) s = await press(p, "decode-step");
    assert(s.done, `decoding ends: ${JSON.stringify(s)}`);
    // the worker's time for the step on screen, beside it (a figure, not checked against a bound)
    const ms = await p.$eval(sel("decode-ms"), (e) => ({ ms: e.dataset.ms, step: e.dataset.step, text: e.textContent }));
    assert(ms.ms !== "" && Number(ms.ms) >= 0 && Number(ms.step) === s.step, `decode-ms of step ${s.step}: ${JSON.stringify(ms)}`);
    assert(new RegExp(`step ${s.step}: \\d+\\.\\d ms`).test(ms.text), `the step's time as shown: ${ms.text}`);
    await shot(p, "42b-translate-step", `section:has(${sel("decode-step")})`);
    const generated = (await p.textContent(sel("generated"))).trim();
    metrics.translate_numbers.generated = generated;
    assert(generated.length > 0, "a translation");
    assert(await p.isDisabled(sel("decode-step")), "nothing left to step");

    // cross-attention: a heatmap per layer and head, target rows by source columns
    const cross = await matrices(p, "cross-attention");
    const layers = Number(await p.getAttribute(sel("causal-mask"), "data-layers"));
    const heads = Number(await p.getAttribute(sel("causal-mask"), "data-heads"));
    assert(cross.length === layers * heads && layers * heads > 0, `${cross.length} cross-attention maps for ${layers} x ${heads}`);
    const seen = new Set(cross.map((m) => `${m.layer}.${m.head}`));
    assert(seen.size === cross.length && [...seen].every((k) => /^\d+\.\d+$/.test(k)), `data-layer / data-head: ${[...seen]}`);
    for (const m of cross) assert(m.cols === 5 && m.rows === s.step, `rows = the prefix (${s.step}), columns = [CLS] 4 5 7 [SEP]: ${m.rows} x ${m.cols}`);

    // the causal mask: every weight above the diagonal is exactly 0, its score -inf; rows sum to 1
    const selfs = await matrices(p, "self-attention");
    assert(selfs.length === layers * heads, "a causal self-attention map per layer and head");
    let above = 0;
    for (const m of selfs) {
      assert(m.rows === m.cols && m.values.length === m.rows * m.cols, `square: ${m.rows} x ${m.cols}`);
      for (let i = 0; i < m.rows; i++) {
        let sum = 0;
        for (let j = 0; j < m.cols; j++) {
          const v = m.values[i * m.cols + j];
          sum += v;
          if (j > i) {
            above++;
            assert(v === 0, `layer ${m.layer} head ${m.head}: weight (${i}, ${j}) above the diagonal is ${v}`);
            assert(m.scores[i * m.cols + j] === -Infinity, `its score before the softmax is -inf`);
          }
        }
        assert(Math.abs(sum - 1) < 1e-4, `row ${i} sums to ${sum}`);
      }
    }
    assert(above > 0, "there are cells above the diagonal to check");
    // the scores before the softmax, as numbers: -inf exactly where the mask is
    const table = await p.$$eval(`${sel("causal-scores")} tbody tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
    assert(table.length === s.step, `a row per decoder token: ${table.length}`);
    table.forEach((row, i) => row.forEach((v, j) => assert((v === "−∞") === (j > i), `score (${i}, ${j}) is ${v}`)));
    // hovering a masked cell reads out -inf
    const first = p.locator(sel("self-attention")).first();
    await first.scrollIntoViewIfNeeded();
    await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))); // the card renders
    const box = await first.boundingBox();
    await p.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await p.mouse.move(box.x + box.width - 3, box.y + 3, { steps: 4 });
    const readout = await p.textContent(sel("self-attention-readout"));
    assert(/−∞/.test(readout) && /exactly 0/.test(readout), `the readout of a future cell: ${readout}`);
    await shot(p, "42-translate-decoded");
    await shot(p, "43-translate-causal-mask", `section:has(${sel("causal-mask")})`);
    await shot(p, "44-translate-cross", `section:has(${sel("cross-attention-grid")})`);

    // beam search: run to the end, the tree
    await p.check(sel("decode-beam"));
    s = await press(p, "decode-run");
    for (let i = 0; i < 40 && !s.done; i++) {
      await sleep(100);
      s = await decodeState(p);
    }
    assert(s.done, "beam search ends");
    // the path through the tree spells the answer (which may have finished before the last step)
    const nodes = await p.$$eval(`${sel("beam-tree")} .node[data-step]`, (els) => els.map((e) => [e.dataset.onPath === "true", e.dataset.token]));
    const path = nodes.filter((n) => n[0]).map((n) => n[1]);
    const chips = await p.$$eval(".decode-output .chip", (els) => els.slice(1).map((e) => e.textContent).filter((t) => t !== "?"));
    assert(nodes.length >= s.step && JSON.stringify(path) === JSON.stringify(chips), `the tree's path ${path} is the answer ${chips}`);
    metrics.translate_numbers.beam = (await p.textContent(sel("generated"))).trim();
    await shot(p, "45-translate-beam", `section:has(${sel("beam-tree")})`);
    // a beam-search step in the middle patches the tree, the chips and the maps
    await press(p, "decode-restart");
    await press(p, "decode-step");
    await press(p, "decode-step");
    const beamChurn = await removedOnStep(p);
    assert(!beamChurn.s.done && beamChurn.removed.length === 0, `a beam-search step removes nothing: ${beamChurn.removed.slice(0, 8)}`);

    // an empty source is a message; decoding goes on
    await p.check(sel("decode-greedy"));
    await p.locator(sel("decode-source")).fill("");
    await press(p, "decode-step");
    const msg = await p.textContent(sel("decode-error"));
    assert(/empty/.test(msg), `a clear message: ${msg}`);
    await p.locator(sel("decode-source")).fill("1 0");
    s = await press(p, "decode-run");
    for (let i = 0; i < 40 && !s.done; i++) {
      await sleep(100);
      s = await decodeState(p);
    }
    assert(!(await p.$(sel("decode-error"))) && (await p.textContent(sel("generated"))).trim().length > 0, "decoding goes on");
    await shot(p, "46-translate-shapes", `section:has(${sel("three-shapes")})`);
    await p.context().close();
  });

  await test("translate: Save downloads the trained encoder-decoder; bertscope generate on it writes the page's greedy tokens", async () => {
    const p = await newPage("?view=translate");
    await settled(p);
    assert(await p.isDisabled(sel("translate-save")), "nothing to save before a run");
    const why = await p.textContent(sel("translate-save-note"));
    assert(/train a model first/.test(why), `the reason beside the button: ${why}`);
    assert((await p.getAttribute(sel("translate-save"), "aria-describedby")) === "translate-save-note", "the reason is the button's description");

    // numbers, briefly: until the held-out exact match passes 0.5 (or 60 s), then pause
    await p.selectOption(sel("translate-dataset"), "numbers");
    await p.click(sel("translate-start"));
    await waitPhase(p, "running", 30_000);
    const t0 = Date.now();
    while (Date.now() - t0 < 60_000 && (await phase(p)) === "running") {
      const exact = await series(p, "translate-exact-chart");
      if (exact.length > 1 && exact[exact.length - 1] > 0.5) break;
      await sleep(250);
    }
    if ((await phase(p)) === "running") {
      await p.click(sel("translate-pause"));
      await waitPhase(p, "paused");
    }
    const step = Number(await p.textContent(sel("translate-step")));
    assert(step > 0 && !(await p.isDisabled(sel("translate-save"))), `Save is enabled after training (step ${step})`);

    // Save, by keyboard: three downloads, written into a folder as the browser saves them
    await p.focus(sel("translate-save"));
    await p.keyboard.press("Enter");
    await p.waitForSelector(`${sel("translate-downloads")} a`, { timeout: 30_000 });
    assert((await p.textContent(sel("translate-downloads"))).includes(`step ${step}`), "the links say which step they hold");
    const names = await p.$$eval(`${sel("translate-downloads")} a`, (as) => as.map((a) => a.getAttribute("download")));
    assert(JSON.stringify(names) === JSON.stringify(["config.json", "model.safetensors", "tokenizer.json"]), `downloads ${names}`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bertscope-translate-"));
    for (const name of names) {
      const [dl] = await Promise.all([p.waitForEvent("download", { timeout: 30_000 }), p.click(`${sel("translate-downloads")} a[download="${name}"]`)]);
      assert(dl.suggestedFilename() === name, `downloaded as ${dl.suggestedFilename()}`);
      await dl.saveAs(path.join(dir, name));
    }
    const config = JSON.parse(fs.readFileSync(path.join(dir, "config.json"), "utf8"));
    assert(config.model_type === "encoder-decoder", `model_type ${config.model_type}`);
    assert(config.decoder.is_decoder === true && config.decoder.add_cross_attention === true, "the decoder's config");
    await shot(p, "47-translate-saved", `section:has(${sel("translate-save")})`);

    // the page's greedy decoding of "4 5 7" against the CLI's on the saved folder
    await p.locator(sel("decode-source")).fill("4 5 7");
    await p.check(sel("decode-greedy"));
    const page = await runToEnd(p);
    const out = JSON.parse(execFileSync(cli(), ["generate", "--model", dir, "--text", "4 5 7", "--max-new", "23"], { cwd: REPO, encoding: "utf8" }));
    metrics.translate_saved = { step, page, cli: { tokens: out.tokens, text: out.text }, bytes: names.map((n) => fs.statSync(path.join(dir, n)).size) };
    assert(JSON.stringify(out.tokens) === JSON.stringify(page.tokens), `the CLI's tokens ${out.tokens} are the page's ${page.tokens}`);
    assert(out.text === page.text, `the CLI's text "${out.text}" is the page's "${page.text}"`);
    fs.rmSync(dir, { recursive: true, force: true });
    await p.context().close();
  });
};
