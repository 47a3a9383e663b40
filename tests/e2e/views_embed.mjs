// e2e: the embeddings section (token + segment + position = x, LayerNorm), the sinusoidal encoding
// with its clock, learned vs sinusoidal position similarity, and attention without training.
export default async (h) => {
  const { test, newPage, sel, settled, setText, shot, assert, TIMEOUT } = h;
  const num = (s) => Number(String(s).replace(/[()]/g, ""));
  const close = (a, b, tol) => Math.abs(a - b) <= tol;

  /** The numbers of the selected cell's two formulas, parsed from their text. */
  async function formula(page) {
    const sum = (await page.textContent(sel("embedding-sum"))).trim();
    const ln = (await page.textContent(sel("embedding-ln"))).trim();
    // x[t, d] = E_tok[id, d] + E_seg[s, d] + E_pos[t, d] = a + b + c = x
    const sp = sum.split(" = ");
    const terms = sp[sp.length - 2].split(" + ").map(num);
    // y[t, d] = (x − μ) × rstd × γ[d] + β[d] = (x − m) × r × g + b = y
    const lp = ln.split(" = ");
    const m = lp[lp.length - 2].match(/^\((\S+) − (\S+)\) × (\S+) × (\S+) \+ (\S+)$/);
    assert(m, `LayerNorm formula not as expected: ${ln}`);
    const [x, mu, rstd, g, b] = m.slice(1).map(num);
    return { sum, ln, terms, x: num(sp[sp.length - 1]), lnIn: x, mu, rstd, g, b, y: num(lp[lp.length - 1]) };
  }

  async function checkFormula(page, where) {
    const f = await formula(page);
    assert(f.terms.length === 3 && f.terms.every(Number.isFinite), `${where}: three finite terms: ${f.sum}`);
    const add = f.terms[0] + f.terms[1] + f.terms[2];
    assert(close(add, f.x, 5e-6), `${where}: ${f.terms.join(" + ")} = ${add}, the page says ${f.x}`);
    assert(f.lnIn === f.x, `${where}: LayerNorm reads the sum (${f.lnIn} vs ${f.x})`);
    const y = (f.x - f.mu) * f.rstd * f.g + f.b;
    assert(close(y, f.y, 1e-4 * Math.max(1, Math.abs(f.y), f.rstd)), `${where}: LayerNorm ${y} vs ${f.y} (${f.ln})`);
    return f;
  }

  /** Moves the mouse over cell (row, col) of the canvas with this test id. */
  async function hover(page, testid, row, col) {
    const c = page.locator(sel(testid));
    const [rows, cols] = [Number(await c.getAttribute("data-rows")), Number(await c.getAttribute("data-cols"))];
    await c.evaluate((e) => e.scrollIntoView({ block: "center" }));
    const box = await c.boundingBox();
    await page.mouse.move(box.x + ((col + 0.5) / cols) * box.width, box.y + ((row + 0.5) / rows) * box.height);
  }

  await test("embed: embeddings, sinusoid, clock, position similarity and cosine attention for a sentence", async () => {
    const errors = [];
    const page = await newPage("?text=" + encodeURIComponent("the cat sat on the mat because it was warm."));
    page.on("pageerror", (e) => errors.push(String(e)));
    await settled(page);
    await page.waitForSelector(sel("embeddings"), { timeout: TIMEOUT });
    // the position views are folded away until asked for
    await page.waitForSelector(sel("fold-positions"), { timeout: TIMEOUT });
    assert((await page.$(sel("clock"))) === null, "the clock shows before its fold is opened");
    await page.click(sel("fold-positions"));
    await page.waitForSelector(sel("clock"), { timeout: TIMEOUT });
    const ntok = Number(await page.getAttribute(sel("tokens"), "data-count"));
    assert(ntok > 5, `tokens: ${ntok}`);

    // one row per token in every matrix, the labels too
    const emb = page.locator(sel("embeddings"));
    assert(Number(await emb.getAttribute("data-rows")) === ntok, "data-rows = tokens");
    const dims = Number(await emb.getAttribute("data-dims"));
    const hidden = Number(await emb.getAttribute("data-hidden"));
    assert(dims === Math.min(hidden, 128) && dims > 0, `dims ${dims} of ${hidden}`);
    for (const id of ["emb-word", "emb-segment", "emb-position", "emb-sum", "emb-ln"]) {
      const c = page.locator(sel(id));
      assert(Number(await c.getAttribute("data-rows")) === ntok, `${id}: rows = tokens`);
      assert(Number(await c.getAttribute("data-cols")) === dims, `${id}: cols = dims`);
    }
    const labels = await page.$$eval(`${sel("embeddings")} .emb-row:first-child .lab`, (els) => els.map((e) => e.textContent));
    assert(labels.length === ntok, `labels ${labels.length} vs ${ntok}`);
    assert(labels[0] === "[CLS]", `first label ${labels[0]}`);
    // a canvas is drawn (not blank)
    const painted = await page.$eval(sel("emb-sum"), (c) => {
      const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      return d.some((v, i) => i % 4 === 3 && v > 0);
    });
    assert(painted, "the sum heatmap is drawn");

    // the formula of the default cell, of a hovered one, and of one reached by keyboard
    await checkFormula(page, "default cell");
    await hover(page, "emb-sum", 2, 10);
    const fm = page.locator(sel("embedding-formula"));
    assert((await fm.getAttribute("data-row")) === "2" && (await fm.getAttribute("data-col")) === "10", "hover selects (2, 10)");
    const f1 = await checkFormula(page, "hovered (2, 10)");
    assert(f1.sum.startsWith("x[2, 10] = "), f1.sum);
    await page.focus(sel("emb-word"));
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowRight");
    assert((await fm.getAttribute("data-row")) === "3" && (await fm.getAttribute("data-col")) === "11", "arrows move to (3, 11)");
    await checkFormula(page, "keyboard (3, 11)");
    for (const [r, c] of [[0, 0], [ntok - 1, dims - 1], [Math.floor(ntok / 2), 63]]) {
      await hover(page, "emb-ln", r, c);
      await checkFormula(page, `cell (${r}, ${c})`);
    }
    await hover(page, "emb-sum", 2, 10);
    await shot(page, "embed-embeddings", sel("embeddings"));

    // sinusoidal PE: the selected cell's value is the formula's
    const sin = page.locator(sel("sinusoid"));
    const P = Number(await sin.getAttribute("data-positions"));
    const d = Number(await sin.getAttribute("data-hidden"));
    assert(P === 64 && d === hidden, `PE ${P} positions, d ${d}`);
    for (const [pos, j] of [[5, 0], [9, 1], [30, 17], [63, 100]]) {
      await hover(page, "pe-matrix", pos, j);
      const pf = page.locator(sel("pe-formula"));
      assert(Number(await pf.getAttribute("data-pos")) === pos && Number(await pf.getAttribute("data-dim")) === j, `PE cell (${pos}, ${j}): shows (${await pf.getAttribute("data-pos")}, ${await pf.getAttribute("data-dim")})`);
      const a = pos / Math.pow(10000, (2 * Math.floor(j / 2)) / d);
      const want = j % 2 === 0 ? Math.sin(a) : Math.cos(a);
      const got = Number(await pf.getAttribute("data-value"));
      assert(close(got, want, 1e-5), `PE[${pos}, ${j}] = ${got}, formula ${want}`);
    }
    await shot(page, "embed-sinusoid", sel("sinusoid"));

    // the clock: angles follow pos / 10000^(2i/d), the drawn rotation follows the angle
    const hands = async () => page.$$eval(`${sel("clock")} [data-dim]`, (els) => els.map((e) => ({
      dim: Number(e.dataset.dim), angle: Number(e.dataset.angle), pos: Number(e.dataset.pos),
      sin: Number(e.dataset.sin), cos: Number(e.dataset.cos),
      rot: Number((e.getAttribute("transform").match(/rotate\(([-\d.]+)\)/) || [])[1]),
    })));
    const checkHands = async (pos) => {
      const hs = await hands();
      assert(hs.length === 4, `4 hands, got ${hs.length}`);
      for (const x of hs) {
        assert(x.pos === pos, `hand at position ${x.pos}, slider ${pos}`);
        const want = pos / Math.pow(10000, x.dim / d);
        assert(close(x.angle, want, 1e-5 * Math.max(1, want)), `dim ${x.dim} at ${pos}: angle ${x.angle}, formula ${want}`);
        assert(close(x.sin, Math.sin(want), 1e-5) && close(x.cos, Math.cos(want), 1e-5), `dim ${x.dim}: sin/cos`);
        const deg = ((want * 180) / Math.PI) % 360;
        const diff = Math.abs(x.rot - deg);
        assert(Math.min(diff, 360 - diff) < 0.01, `dim ${x.dim}: drawn at ${x.rot}°, formula ${deg}°`);
      }
      return hs;
    };
    const slider = page.locator(sel("clock-position"));
    const h3 = await checkHands(Number(await slider.inputValue()));
    await slider.fill("40");
    const h40 = await checkHands(40);
    assert(h40[0].angle - h3[0].angle > 30 * (h40[3].angle - h3[3].angle), "the fast hand turns much more than the slow one");
    assert(h40[0].angle !== h3[0].angle && h40[3].angle !== h3[3].angle, "every hand moved");
    await slider.focus();
    await page.keyboard.press("ArrowRight");
    await checkHands(41);
    await page.click(`${sel("clock")} button[aria-label="previous position"]`);
    await checkHands(40);
    await slider.fill("7");
    await checkHands(7);
    await shot(page, "embed-clock", sel("clock"));

    // learned vs sinusoidal: both P x P (bert-tiny has a learned table)
    const ps = page.locator(sel("position-similarity"));
    assert(Number(await ps.getAttribute("data-positions")) === P, "similarity positions");
    for (const id of ["sinusoidal-similarity", "learned-similarity"]) {
      const c = page.locator(sel(id));
      assert(Number(await c.getAttribute("data-rows")) === P && Number(await c.getAttribute("data-cols")) === P, `${id} is ${P} x ${P}`);
    }
    await hover(page, "learned-similarity", 6, 6);
    const diag = await page.textContent(`${sel("position-similarity")} .sim:nth-child(2) .formula`);
    assert(/cos\(E_pos\[6\], E_pos\[6\]\) = 1\.0000|0\.99999/.test(diag), `a position is like itself: ${diag}`);
    await shot(page, "embed-position-similarity", sel("position-similarity"));

    // attention without training: T x T, rows peak on the token itself
    const ca = page.locator(sel("cosine-attention"));
    assert(Number(await ca.getAttribute("data-rows")) === ntok, "cosine attention rows = tokens");
    assert(Number(await page.getAttribute(sel("cosine-matrix"), "data-cols")) === ntok, "cosine attention cols = tokens");
    // "the" at 1 and 5: the same token, cosine 1
    await hover(page, "cosine-matrix", 1, 5);
    const cf = await page.textContent(sel("cosine-formula"));
    assert(/= 1\.0000|= 0\.99999/.test(cf), `"the" vs "the": ${cf}`);
    await shot(page, "embed-cosine-attention", sel("cosine-attention"));
    await shot(page, "embed-section", `section:has(${sel("embeddings")})`);
    assert(errors.length === 0, `page errors: ${errors.join(" | ")}`);
    await page.context().close();
  });

  await test("embed: rows follow the text and a pair, every formula still adds up", async () => {
    const errors = [];
    const page = await newPage("?text=hello");
    page.on("pageerror", (e) => errors.push(String(e)));
    await settled(page);
    await page.waitForSelector(sel("embeddings"), { timeout: TIMEOUT });
    for (const text of ["a", "the quick brown fox jumps over the lazy dog", "paris is the capital of [MASK] ."]) {
      await setText(page, "text-input", text);
      const ntok = Number(await page.getAttribute(sel("tokens"), "data-count"));
      assert(Number(await page.getAttribute(sel("embeddings"), "data-rows")) === ntok, `${text}: rows`);
      assert(Number(await page.getAttribute(sel("cosine-attention"), "data-rows")) === ntok, `${text}: cosine rows`);
      await hover(page, "emb-sum", ntok - 1, 3);
      await checkFormula(page, text);
    }
    await setText(page, "pair-input", "it is in europe .");
    const ntok = Number(await page.getAttribute(sel("tokens"), "data-count"));
    assert(Number(await page.getAttribute(sel("embeddings"), "data-rows")) === ntok, "pair: rows");
    // the last token is in sentence B: segment 1
    await hover(page, "emb-segment", ntok - 1, 0);
    const f = await checkFormula(page, "pair");
    assert(/E_seg\[1, 0\]/.test(f.sum), `segment 1 in the pair: ${f.sum}`);
    assert(errors.length === 0, `page errors: ${errors.join(" | ")}`);
    await page.context().close();
  });
};
