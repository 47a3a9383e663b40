// e2e: the attention section's head view as lines, head average, rollout, the "hide [CLS]/[SEP]"
// switch and PNG / SVG export (crates/ui/src/components/explain/attention_panel.rs and the files it uses).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "target", "screenshots");
const TEXT = "the cat sat on the mat because it was warm.";

/** Opens every view that is folded away (components/fold.rs). */
async function openFolds(page) {
  for (const b of await page.$$('.fold-toggle[aria-expanded="false"]')) await b.click();
}

export default async (h) => {
  const { test, newPage, sel, settled, shot, assert, TIMEOUT, LAYERS, HEADS } = h;
  const close = (a, b, tol = 1e-6) => Math.abs(a - b) <= tol;

  /** A page on TEXT with head (0, 0) selected, and its page errors. */
  async function open() {
    const errors = [];
    const page = await newPage(`?text=${encodeURIComponent(TEXT)}&head=0.0`);
    page.on("pageerror", (e) => errors.push(String(e)));
    await settled(page);
    await openFolds(page); // the heavier views open on demand
    await page.locator(`${sel("head-lines")} ${sel("attention-lines")}`).waitFor({ timeout: TIMEOUT });
    return { page, errors };
  }

  /** The lines of the SVG inside `scope` as an N x N matrix (and N), from data-from/-to/-weight. */
  async function linesMatrix(page, scope) {
    const { n, lines } = await page.$eval(`${scope} ${sel("attention-lines")}`, (svg) => ({
      n: Number(svg.dataset.n),
      lines: [...svg.querySelectorAll("line")].map((l) => [Number(l.dataset.from), Number(l.dataset.to), Number(l.dataset.weight)]),
    }));
    assert(lines.length === n * n, `${scope}: ${lines.length} lines for ${n} tokens (want ${n * n})`);
    const m = Array.from({ length: n }, () => new Array(n).fill(NaN));
    for (const [i, j, w] of lines) m[i][j] = w;
    assert(m.every((r) => r.every(Number.isFinite)), `${scope}: a cell has no line`);
    return m;
  }

  /** The data-values of a matrix view's canvas as rows. */
  async function canvasMatrix(page, testid) {
    const [n, vals] = await page.$eval(`${sel(testid)}`, (f) => [Number(f.dataset.n), f.querySelector("canvas").dataset.values.split(",").map(Number)]);
    assert(vals.length === n * n, `${testid}: ${vals.length} values for ${n} tokens`);
    return Array.from({ length: n }, (_, i) => vals.slice(i * n, (i + 1) * n));
  }

  const rowsSumToOne = (m, what) => m.forEach((r, i) => {
    const s = r.reduce((a, b) => a + b, 0);
    assert(close(s, 1, 1e-4), `${what}: row ${i} sums to ${s}`);
  });
  const tokensOf = (page, scope) => page.$$eval(`${scope} ${sel("attention-lines")} text.tok.query`, (els) => els.map((e) => e.dataset.token));

  async function selectHead(page, l, hd) {
    await page.click(`${sel("heatmap")}[data-layer="${l}"][data-head="${hd}"]`);
    await page.waitForFunction(([l, hd]) => {
      const e = document.querySelector('[data-testid="head-lines"]');
      return e && e.dataset.layer === String(l) && e.dataset.head === String(hd);
    }, [l, hd], { timeout: TIMEOUT });
  }

  /** Every head's matrix, read from the head lines: heads[l][h]. */
  async function allHeads(page) {
    const heads = [];
    for (let l = 0; l < LAYERS; l++) {
      heads.push([]);
      for (let hd = 0; hd < HEADS; hd++) {
        await selectHead(page, l, hd);
        heads[l].push(await linesMatrix(page, sel("head-lines")));
      }
    }
    return heads;
  }

  const meanOf = (mats) => mats[0].map((r, i) => r.map((_, j) => mats.reduce((a, m) => a + m[i][j], 0) / mats.length));
  const matmul = (a, b) => a.map((r) => b[0].map((_, j) => r.reduce((s, v, k) => s + v * b[k][j], 0)));
  const mix = (a) => a.map((r, i) => {
    const m = r.map((v, j) => 0.5 * v + (i === j ? 0.5 : 0));
    const s = m.reduce((x, y) => x + y, 0);
    return m.map((v) => v / s);
  });
  const maxDiff = (a, b) => Math.max(...a.flatMap((r, i) => r.map((v, j) => Math.abs(v - b[i][j]))));

  await test("attn: lines carry the heatmap's weights, average = mean of heads, rollout = product", async () => {
    const { page, errors } = await open();
    const n = await page.$$eval(`${sel("tokens")} > *`, (els) => els.length);
    const head = await linesMatrix(page, sel("head-lines"));
    assert(head.length === n, `lines for ${head.length} tokens, the input has ${n}`);
    rowsSumToOne(head, "head 0.0 lines");

    // the enlarged heatmap's hover value is the line's weight, cell by cell
    const canvas = page.locator(`${sel("heatmap-detail")} canvas`);
    await canvas.scrollIntoViewIfNeeded();
    // a card scrolled into view renders its content (content-visibility: auto) at the next frame;
    // a pointer event before it hits the card, not the canvas
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const box = await canvas.boundingBox();
    for (const [r, c] of [[0, 0], [1, 2], [n - 1, 3], [4, n - 1]]) {
      await page.mouse.move(box.x + ((c + 0.5) / n) * box.width, box.y + ((r + 0.5) / n) * box.height);
      await page.waitForFunction(([r, c]) => {
        const e = document.querySelector('[data-testid="hover-value"]');
        return e && e.dataset.row === String(r) && e.dataset.col === String(c);
      }, [r, c], { timeout: TIMEOUT });
      const v = Number(await page.getAttribute(sel("hover-value"), "data-value"));
      assert(v === head[r][c], `cell ${r},${c}: heatmap ${v}, line ${head[r][c]}`);
    }

    // hovering a query token highlights its lines and writes the weights beside the keys
    const q = page.locator(`${sel("head-lines")} text.tok.query[data-index="2"]`);
    await q.hover();
    await page.waitForFunction(() => document.querySelector('[data-testid="head-lines"] text.tok.key[data-weight]'), null, { timeout: TIMEOUT });
    const shown = await page.$$eval(`${sel("head-lines")} text.tok.key`, (els) => els.map((e) => Number(e.dataset.weight)));
    assert(shown.every((w, j) => w === head[2][j]), `weights beside the keys ${shown} vs row 2 ${head[2]}`);
    const hot = await page.$$eval(`${sel("head-lines")} line[data-from="2"]`, (els) => els.map((e) => e.getAttribute("stroke")));
    assert(hot.length === n && hot.every((s) => s === "#d55e00"), `the focused token's lines are highlighted: ${hot.slice(0, 3)}`);
    const readout = await page.textContent(`${sel("head-lines")} ${sel("lines-readout")}`);
    assert(readout.includes('query 2 "cat"'), `readout: ${readout}`);
    await shot(page, "attn-lines", sel("head-lines"));
    // and by keyboard: focus a key token
    await page.mouse.move(0, 0);
    await page.locator(`${sel("head-lines")} text.tok.key[data-index="0"]`).focus();
    const kr = await page.textContent(`${sel("head-lines")} ${sel("lines-readout")}`);
    assert(kr.includes('key 0 "[CLS]" receives'), `keyboard focus on a key: ${kr}`);

    // every head, then the average over layer 0 and over all layers
    const heads = await allHeads(page);
    assert(JSON.stringify(heads[0][0]) === JSON.stringify(head), "head 0.0 read twice is the same");
    await page.selectOption(sel("average-scope"), "0");
    await page.waitForFunction(() => document.querySelector('[data-testid="head-average"]')?.dataset.layer === "0", null, { timeout: TIMEOUT });
    const avg0 = await linesMatrix(page, sel("head-average"));
    const want0 = meanOf(heads[0]);
    assert(maxDiff(avg0, want0) < 1e-6, `layer-0 average vs mean of its heads: max diff ${maxDiff(avg0, want0)}`);
    assert(maxDiff(await canvasMatrix(page, "average-matrix"), avg0) === 0, "the average heatmap and its lines carry the same numbers");
    rowsSumToOne(avg0, "layer-0 average");
    const terms = (await page.getAttribute(sel("average-value"), "data-terms")).split(",").map(Number);
    const [ar, ac] = await page.$eval(sel("average-value"), (e) => [Number(e.dataset.row), Number(e.dataset.col)]);
    assert(terms.length === HEADS && terms.every((t, k) => t === heads[0][k][ar][ac]), `formula terms ${terms}`);
    const formula = await page.textContent(`${sel("head-average")} .formula`);
    assert(formula.includes(`/ ${HEADS} =`), `average formula: ${formula}`);
    await shot(page, "attn-average", sel("head-average"));

    await page.selectOption(sel("average-scope"), "all");
    await page.waitForFunction(() => document.querySelector('[data-testid="head-average"]')?.dataset.layer === "all", null, { timeout: TIMEOUT });
    const avgAll = await linesMatrix(page, sel("head-average"));
    const wantAll = meanOf(heads.flat());
    assert(maxDiff(avgAll, wantAll) < 1e-6, `all-layer average: max diff ${maxDiff(avgAll, wantAll)}`);

    // rollout: Â_l = rownorm(0.5 Ā_l + 0.5 I), R = Â_{L-1} ... Â_0, recomputed here from the heads
    let R = null;
    for (let l = 0; l < LAYERS; l++) {
      const m = mix(meanOf(heads[l]));
      R = R ? matmul(m, R) : m;
    }
    const roll = await canvasMatrix(page, "rollout-matrix");
    assert(maxDiff(roll, R) < 1e-5, `rollout vs the product recomputed in the test: max diff ${maxDiff(roll, R)}`);
    assert(maxDiff(await linesMatrix(page, sel("attention-rollout")), roll) === 0, "rollout lines = rollout heatmap");
    rowsSumToOne(roll, "rollout");
    // hover a rollout cell: the readout and the formula follow
    const rc = page.locator(`${sel("rollout-matrix")} canvas`);
    await rc.scrollIntoViewIfNeeded();
    const rb = await rc.boundingBox();
    await page.mouse.move(rb.x + (3.5 / n) * rb.width, rb.y + (1.5 / n) * rb.height);
    await page.waitForFunction(() => document.querySelector('[data-testid="rollout-value"]')?.dataset.col === "3", null, { timeout: TIMEOUT });
    const rv = Number(await page.getAttribute(sel("rollout-value"), "data-value"));
    assert(close(rv, R[1][3], 1e-5), `rollout cell 1,3: ${rv} vs ${R[1][3]}`);
    const rf = await page.textContent(`${sel("attention-rollout")}`);
    assert(rf.includes(`R_${LAYERS - 1}[1, 3] = Σ_k`), `rollout formula with the cell: ${rf.slice(0, 400)}`);
    await shot(page, "attn-rollout", sel("attention-rollout"));
    assert(errors.length === 0, `page errors: ${errors}`);
    await page.context().close();
  });

  await test("attn: hide [CLS]/[SEP] drops their rows and columns, rows renormalised", async () => {
    const { page, errors } = await open();
    const full = await linesMatrix(page, sel("head-lines"));
    const toks = await tokensOf(page, sel("head-lines"));
    const keep = toks.map((t, i) => [t, i]).filter(([t]) => t !== "[CLS]" && t !== "[SEP]").map(([, i]) => i);
    assert(keep.length === toks.length - 2, `two specials in ${toks}`);
    await page.check(sel("hide-specials"));
    await page.waitForFunction((k) => Number(document.querySelector('[data-testid="head-lines"] [data-testid="attention-lines"]')?.dataset.n) === k, keep.length, { timeout: TIMEOUT });
    const hidden = await linesMatrix(page, sel("head-lines"));
    rowsSumToOne(hidden, "head lines, specials hidden");
    // each kept row is the full row on the kept columns, divided by its sum
    for (const [a, i] of keep.entries()) {
      const s = keep.reduce((x, j) => x + full[i][j], 0);
      for (const [b, j] of keep.entries()) assert(close(hidden[a][b], full[i][j] / s, 1e-6), `cell ${a},${b}: ${hidden[a][b]} vs ${full[i][j] / s}`);
    }
    for (const scope of [sel("head-lines"), sel("head-average"), sel("attention-rollout")]) {
      const t = await tokensOf(page, scope);
      assert(!t.includes("[CLS]") && !t.includes("[SEP]") && t.length === keep.length, `${scope} tokens: ${t}`);
    }
    rowsSumToOne(await canvasMatrix(page, "average-matrix"), "average, specials hidden");
    rowsSumToOne(await canvasMatrix(page, "rollout-matrix"), "rollout, specials hidden");
    const labels = await page.$$eval(`${sel("heatmap-detail")} .row-labels span`, (els) => els.map((e) => e.textContent));
    assert(labels.length === keep.length && !labels.includes("[CLS]"), `enlarged view rows: ${labels}`);
    const note = await page.textContent(sel("legend-note"));
    assert(/renormalised/.test(note), `the legend says so: ${note}`);
    const side = await page.$eval(`${sel("heatmap")}[data-layer="0"][data-head="0"]`, (c) => c.width);
    assert(side === keep.length, `thumbnail is ${side} px for ${keep.length} tokens`);
    await shot(page, "attn-hidden", ".attention-panel");
    await page.uncheck(sel("hide-specials"));
    await page.waitForFunction((k) => Number(document.querySelector('[data-testid="head-lines"] [data-testid="attention-lines"]')?.dataset.n) === k, toks.length, { timeout: TIMEOUT });
    assert(errors.length === 0, `page errors: ${errors}`);
    await page.context().close();
  });

  await test("attn: PNG and SVG export of the enlarged head, the average and the rollout", async () => {
    const { page, errors } = await open();
    const n = await page.$$eval(`${sel("tokens")} > *`, (els) => els.length);
    const cell = Math.min(28, Math.max(4, Math.floor(720 / n)));
    const want = { w: Math.max(110 + n * cell + 24, 460), h: 36 + 110 + n * cell + 18 + 64 };
    const head = await linesMatrix(page, sel("head-lines"));
    const download = async (scope, kind) => {
      const [dl] = await Promise.all([page.waitForEvent("download", { timeout: TIMEOUT }), page.click(`${scope} ${sel(`export-${kind}`)}`)]);
      return [dl.suggestedFilename(), fs.readFileSync(await dl.path())];
    };
    for (const [scope, stem, values] of [
      [sel("heatmap-detail"), "bertscope-attention-L0-H0", head],
      [sel("head-average"), "bertscope-attention-average-all", await canvasMatrix(page, "average-matrix")],
      [sel("attention-rollout"), `bertscope-attention-rollout-L${LAYERS - 1}`, await canvasMatrix(page, "rollout-matrix")],
    ]) {
      const [pngName, png] = await download(scope, "png");
      assert(pngName === `${stem}.png`, `PNG name ${pngName}`);
      assert(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), "PNG signature");
      const [w, hgt] = [png.readUInt32BE(16), png.readUInt32BE(20)];
      const attr = await page.$eval(`${scope} ${sel("export-png")}`, (b) => [Number(b.dataset.width), Number(b.dataset.height)]);
      assert(w === want.w && hgt === want.h && w === attr[0] && hgt === attr[1], `PNG ${w}x${hgt}, want ${want.w}x${want.h} (button says ${attr})`);
      assert(png.length > 3000, `PNG of ${png.length} bytes looks empty`);
      fs.mkdirSync(SHOTS, { recursive: true });
      fs.writeFileSync(path.join(SHOTS, `attn-export-${stem.replace("bertscope-attention-", "")}.png`), png);

      const [svgName, svgBuf] = await download(scope, "svg");
      assert(svgName === `${stem}.svg`, `SVG name ${svgName}`);
      const parsed = await page.evaluate((text) => {
        const doc = new DOMParser().parseFromString(text, "image/svg+xml");
        if (doc.querySelector("parsererror")) return { error: doc.querySelector("parsererror").textContent };
        const root = doc.documentElement;
        return {
          root: root.nodeName,
          width: Number(root.getAttribute("width")),
          cells: [...doc.querySelectorAll("rect.cell")].map((r) => [Number(r.dataset.row), Number(r.dataset.col), Number(r.dataset.value)]),
          title: doc.querySelector("title")?.textContent,
          labels: [...doc.querySelectorAll("text.row-label")].map((t) => t.textContent),
          note: doc.querySelector("text.legend-note")?.textContent,
          ramp: !!doc.querySelector("rect.legend-ramp"),
        };
      }, svgBuf.toString("utf8"));
      assert(!parsed.error, `SVG does not parse: ${parsed.error}`);
      assert(parsed.root === "svg" && parsed.width === want.w, `SVG root ${parsed.root} width ${parsed.width}`);
      assert(parsed.cells.length === n * n, `${parsed.cells.length} cell rects for ${n} tokens`);
      assert(parsed.cells.every(([r, c, v]) => v === values[r][c]), `${stem}: SVG cell values are the view's`);
      assert(parsed.labels.length === n && parsed.labels[0] === "[CLS]", `labels ${parsed.labels}`);
      assert(parsed.title && parsed.note && parsed.ramp, `title ${parsed.title}, legend ${parsed.note}`);
    }
    assert(errors.length === 0, `page errors: ${errors}`);
    await page.context().close();
  });
};
