// The head map (the head survey in the page) and the logit lens: a survey of the bundled 1,000
// sentences runs with progress, pauses, resumes and cancels while the page answers; the map colours
// every head by its role, filters by role, shows a head's numbers on hover and focus (arrow keys),
// opens the head on a click and its example sentence in the text box; the corpus search and one
// head's queries-and-keys scatter over the surveyed sentences.
import { loadedWith } from "./page_lib.mjs";

export default async (h) => {
  const { test, newPage, sel, settled, setText, predictions, shot, assert, metrics, TIMEOUT, urlOf } = h;
  const progress = (page) => page.$eval(sel("survey-progress"), (e) => [Number(e.dataset.done), Number(e.dataset.total)]);
  const finished = (page, timeout) =>
    page.waitForFunction(() => document.querySelector('[data-testid="head-map"]')?.dataset.sentences === "1000", null, { timeout });
  const roles = (page) => page.$$eval('[data-testid="map-cell"]', (cs) => cs.map((c) => c.dataset.role));

  await test("head map: a survey of 1,000 sentences with progress, pause and cancel; roles, filter, numbers, a click opens the head", async () => {
    const page = await newPage("?text=" + encodeURIComponent("the cat sat on the [MASK]."));
    await settled(page);
    await page.click(sel("fold-head-map"));
    await page.click(sel("survey-start"));
    await page.waitForSelector(sel("survey-progress"), { timeout: TIMEOUT });
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="survey-progress"]')?.dataset.done) > 0, null, { timeout: TIMEOUT });
    // paused: no progress while paused; the page still answers
    await page.click(sel("survey-pause"));
    await page.waitForSelector(sel("survey-resume"), { timeout: TIMEOUT });
    const [at] = await progress(page);
    await setText(page, "text-input", "the dog ran to the [MASK].");
    assert((await predictions(page)).length > 0, "the page answers during a paused survey");
    await h.sleep(500);
    assert((await progress(page))[0] === at, "no sentences surveyed while paused");
    await page.click(sel("survey-resume"));
    await finished(page, 4 * TIMEOUT);
    const r = await roles(page);
    assert(r.length === 4, `bert-tiny's 4 heads: ${r}`);
    // a head's numbers on hover; arrow keys move the focus
    await page.hover(`${sel("map-cell")}[data-layer="0"][data-head="0"]`);
    assert(/layer 0, head 0: .*\[CLS\] \d+%/.test(await page.textContent(sel("map-detail"))), "hover shows the numbers");
    await page.focus(`${sel("map-cell")}[data-layer="0"][data-head="0"]`);
    await page.keyboard.press("ArrowDown");
    assert(/layer 1, head 0/.test(await page.textContent(sel("map-detail"))), "ArrowDown: layer 1");
    assert((await page.evaluate(() => document.activeElement?.id)) === "map-1-0", "the focus moved with it");
    // a role chip dims the others
    const chip = (await page.$$(sel("role-filter")))[0];
    const role = await chip.getAttribute("data-role");
    await chip.click();
    const dim = await page.$$eval('[data-testid="map-cell"]', (cs) => cs.map((c) => [c.dataset.role, c.classList.contains("dim")]));
    assert(dim.every(([r, d]) => d === (r !== role)), `filter ${role}: ${JSON.stringify(dim)}`);
    await shot(page, "heads-01-map-tiny", sel("head-map"));
    // a click opens the head in the attention views
    await page.click(`${sel("map-cell")}[data-layer="1"][data-head="1"]`);
    await settled(page);
    assert(/head=1\.1|head=1,1|head=1%2C1/.test(await urlOf(page)), `the head is selected: ${await urlOf(page)}`);
    // an example sentence goes into the text box with its head open
    await page.hover(`${sel("map-cell")}[data-layer="1"][data-head="0"]`);
    const ex = await page.$(sel("survey-example"));
    const exText = (await ex.textContent()).match(/\u201c(.*)\u201d/)[1];
    await ex.click();
    await settled(page);
    assert((await page.inputValue(sel("text-input"))) === exText, "the example is in the text box");
    // search the surveyed sentences: the closest tokens to "cat" after the last layer
    await setText(page, "text-input", "the cat sat on the mat.");
    await page.selectOption(sel("search-token"), "2");
    await page.click(sel("search-go"));
    await page.waitForSelector(sel("search-match"), { timeout: TIMEOUT });
    const matches = await page.$$eval(sel("search-match"), (rs) => rs.map((r) => Number(r.dataset.score)));
    assert(matches.length === 20 && matches.every((x, i) => i === 0 || x <= matches[i - 1]), `20 matches, best first: ${matches}`);
    assert(/closest tokens to “cat”/.test(await page.textContent(sel("search-results"))), "the summary names the token");
    await page.selectOption(sel("search-layer"), "1");
    await page.selectOption(sel("search-head"), "0");
    await page.click(sel("search-go"));
    await page.waitForFunction(() => /head 0 of layer 0/.test(document.querySelector('[data-testid="search-results"]')?.textContent || ""), null, { timeout: TIMEOUT });
    await shot(page, "heads-05-search", sel("corpus-search"));
    // one head's queries and keys: every surveyed token twice, the sentence's over them
    await page.selectOption(sel("qk-layer"), "1");
    await page.selectOption(sel("qk-head"), "1");
    await page.click(sel("qk-go"));
    await page.waitForSelector(sel("qk-summary"), { timeout: TIMEOUT });
    const points = Number(await page.$eval(sel("qk-summary"), (e) => e.dataset.points));
    assert(points > 10_000 && points % 2 === 0, `a query and a key per surveyed token: ${points}`);
    assert(/Head 1 of layer 1: .* explain \d+% and \d+%/.test(await page.textContent(sel("qk-summary"))), "the summary names the head and the variance");
    assert(/query of “the” .* attends most to “.+” \d+%/.test(await page.textContent(sel("qk-caption"))), "the first word's query and its keys");
    const canvasAt = async () => {
      const box = await page.$eval(sel("qk-canvas"), (c) => { const r = c.getBoundingClientRect(); return [r.left, r.top, r.width / c.width, ...c.dataset.chosen.split(",").map(Number)]; });
      return [box[0] + box[3] * box[2], box[1] + box[4] * box[2], box[3], box[4]];
    };
    // hovering the chosen query names it; the arrow keys pick the next token
    const [qx, qy, cx0, cy0] = await canvasAt();
    await page.mouse.move(qx, qy);
    await page.waitForFunction(() => /query of “the” in your sentence/.test(document.querySelector('[data-testid="qk-hover"]')?.textContent || ""), null, { timeout: TIMEOUT });
    await page.focus(sel("qk-canvas"));
    await page.keyboard.press("ArrowRight");
    await page.waitForFunction(() => /query of “cat”/.test(document.querySelector('[data-testid="qk-caption"]')?.textContent || ""), null, { timeout: TIMEOUT });
    // a drag pans, the wheel zooms the scatter and not the page
    const [x1, y1, cx1, cy1] = await canvasAt();
    await page.mouse.move(x1, y1 + 40);
    await page.mouse.down();
    await page.mouse.move(x1 + 60, y1 + 10, { steps: 4 });
    await page.mouse.up();
    const [, , cx2, cy2] = await canvasAt();
    assert(Math.abs(cx2 - cx1 - 60) < 3 && Math.abs(cy2 - cy1 + 30) < 3, `the picture follows the drag: ${[cx1, cy1]} -> ${[cx2, cy2]}`);
    const scrolled = await page.evaluate(() => window.scrollY);
    const draws = Number(await page.$eval(sel("qk-canvas"), (c) => c.dataset.draws));
    await page.mouse.wheel(0, -300);
    await page.waitForFunction((d) => Number(document.querySelector('[data-testid="qk-canvas"]').dataset.draws) > d, draws, { timeout: TIMEOUT });
    assert((await page.evaluate(() => window.scrollY)) === scrolled, "the wheel zooms the scatter, the page stays");
    await shot(page, "heads-06-qk", sel("qk-scatter"));
    // another sentence: the scatter says it was drawn for the old one
    await setText(page, "text-input", "a bird flew over the house.");
    await page.waitForSelector(sel("qk-stale"), { timeout: TIMEOUT });
    assert(cx0 > 0 && cy0 > 0, "the chosen query is inside the canvas");
    // survey again, then cancel: the map of the finished survey stays
    await page.click(sel("survey-start"));
    await page.waitForSelector(sel("survey-cancel"), { timeout: TIMEOUT });
    await page.click(sel("survey-cancel"));
    await page.waitForSelector(sel("survey-start"), { timeout: TIMEOUT });
    assert((await roles(page)).length === 4, "the last map stays after a cancel");
    // your own sentences: the map and the search read them instead
    await page.click(".own-text summary");
    await page.fill(sel("survey-own"), "the cat sat on the mat.\n\na dog slept by the door.\nthe cat ran.");
    await page.click(sel("survey-own-start"));
    await page.waitForFunction(() => document.querySelector('[data-testid="head-map"]')?.dataset.sentences === "3", null, { timeout: TIMEOUT });
    await setText(page, "text-input", "the cat sat on the mat.");
    await page.selectOption(sel("search-token"), "2");
    await page.click(sel("search-go"));
    const fromOwn = () => [...document.querySelectorAll('[data-testid="search-match"]')].every((r) => ["0", "2", "3"].includes(r.dataset.line));
    await page.waitForFunction(fromOwn, null, { timeout: TIMEOUT });
    const lines = await page.$$eval(sel("search-match"), (rs) => [...new Set(rs.map((r) => r.dataset.line))].sort());
    assert(JSON.stringify(lines) === '["0","2","3"]', `the matches are from your three lines (0, 2, 3; 1 is empty): ${lines}`);
    await page.context().close();
  });

  await test("head map on MiniLM-L6: 1,000 sentences on the CPU path, at least three roles among its 72 heads; the coreference probe", async () => {
    const page = await newPage("?device=cpu", { shipped: true });
    await loadedWith(page, '"MiniLM-L6"', 4 * TIMEOUT);
    await settled(page);
    await page.click(sel("fold-head-map"));
    const t0 = Date.now();
    await page.click(sel("survey-start"));
    await finished(page, 300_000);
    const seconds = (Date.now() - t0) / 1000;
    const r = await roles(page);
    const kinds = [...new Set(r)];
    metrics.head_survey_minilm = { seconds, roles: Object.fromEntries(kinds.map((k) => [k, r.filter((x) => x === k).length])) };
    assert(r.length === 72, `72 heads: ${r.length}`);
    assert(kinds.length >= 3, `at least three roles: ${kinds}`);
    await shot(page, "heads-02-map-minilm", sel("head-map"));
    // a search over the 1,000 sentences (its time is a bench figure, recorded, not asserted)
    await page.selectOption(sel("search-token"), "1");
    await page.click(sel("search-go"));
    await page.waitForSelector(sel("search-match"), { timeout: TIMEOUT });
    const summary = await page.textContent(sel("search-results"));
    metrics.search_minilm_ms = Number(summary.match(/\((\d+) ms\)/)[1]);
    assert((await page.$$(sel("search-match"))).length === 20, "20 matches");
    await page.selectOption(sel("qk-layer"), "5");
    await page.click(sel("qk-go"));
    await page.waitForSelector(sel("qk-summary"), { timeout: TIMEOUT });
    metrics.qk_minilm = {
      worker_ms: Number((await page.textContent(sel("qk-summary"))).match(/\((\d+) ms\)/)[1]),
      draw_ms: Number(await page.$eval(sel("qk-canvas"), (c) => c.dataset.drawMs)),
      points: Number(await page.$eval(sel("qk-summary"), (e) => e.dataset.points)),
    };
    // the coreference probe: its best head beats the nearest noun on held-out sentences, and opens on the seed's sentence
    const p0 = Date.now();
    await page.click(sel("coref-start"));
    await page.waitForSelector(sel("coref-result"), { timeout: 300_000 });
    const best = await page.$eval(sel("coref-result"), (e) => [Number(e.dataset.layer), Number(e.dataset.head), Number(e.dataset.test)]);
    metrics.coref_minilm = { seconds: (Date.now() - p0) / 1000, best };
    assert(best[2] > 0.5, `the best head ${best} beats the nearest noun (50%) on the held-out sentences`);
    await page.click(sel("coref-open"));
    await settled(page);
    assert(/shivas was hit by a bus because he crossed/.test(await page.inputValue(sel("text-input"))), "the seed's sentence");
    assert((await urlOf(page)).includes(`head=${best[0]}.${best[1]}`), `its head is open: ${await urlOf(page)}`);
    await page.waitForFunction(() => /"he" attends to key/.test(document.querySelector('[data-testid="hover-value"]')?.textContent || ""), null, { timeout: TIMEOUT });
    metrics.coref_minilm.he_reads = await page.textContent(sel("hover-value"));
    await shot(page, "heads-04-coref", sel("coref-result"));
    await page.context().close();
  });

  await test("logit lens: each mask's guesses after every layer; the last row is the model's answer", async () => {
    const page = await newPage("?text=" + encodeURIComponent("the capital of france is [MASK]."));
    await settled(page);
    await page.click(sel("fold-lens"));
    await page.waitForSelector(sel("lens-row"), { timeout: TIMEOUT });
    const rows = await page.$$eval(sel("lens-row"), (rs) => rs.map((r) => [Number(r.dataset.layer), Number(r.dataset.answerProb)]));
    assert(JSON.stringify(rows.map((r) => r[0])) === "[0,1,2]", `the embeddings and bert-tiny's 2 layers: ${JSON.stringify(rows)}`);
    const top = (await predictions(page))[0];
    assert(Math.abs(rows[2][1] - top.prob) < 1e-4, `the last layer's P(answer) ${rows[2][1]} is the prediction's ${top.prob}`);
    assert(/lens/.test(await urlOf(page)), "the open lens is kept in the URL");
    await shot(page, "heads-03-lens", sel("lens"));
    // no mask: the lens says what to do
    await setText(page, "text-input", "the capital of france is paris.");
    assert(/Put a \[MASK\]/.test(await page.textContent(sel("lens-empty"))), "no mask: a hint");
    await page.context().close();
  });
};
