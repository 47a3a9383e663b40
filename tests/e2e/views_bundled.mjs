// The bundled models: the picker, switching (the text and the open views stay), `?model=`, the
// model line with its card, and the larger model's 72 heads in the grid and the ablation.
import { loadedWith, modelLine } from "./page_lib.mjs";

export default async (h) => {
  const { test, newPage, sel, settled, setText, predictions, shot, assert, TIMEOUT } = h;
  const loaded = (page, part) => loadedWith(page, part, 4 * TIMEOUT);
  const grid = (page) => page.$eval(sel("attention-grid"), (g) => [Number(g.dataset.layers), Number(g.dataset.heads), g.querySelectorAll('[data-testid="heatmap"]').length]);
  const selected = (page) => page.$eval(sel("model-select"), (s) => s.value);
  const about = (page) => page.textContent(sel("model-about"));

  await test("bundled models: the picker switches, keeps the text and the open views, and ?model= opens one", async () => {
    const text = "the capital of france is [MASK].";
    const page = await newPage(`?text=${encodeURIComponent(text)}&open=steps`);
    await settled(page);
    assert((await selected(page)) === "tiny", `the default is bert-tiny: ${await selected(page)}`);
    assert(/bert-tiny/.test(await about(page)), `about: ${await about(page)}`);
    assert((await page.getAttribute(sel("model-card"), "href")) === "models/default/MODEL_CARD.md", "the card link");
    assert(JSON.stringify(await grid(page)) === "[2,2,4]", `tiny grid: ${await grid(page)}`);
    const tiny = (await predictions(page)).map((p) => p.token);

    // the larger model: chosen from the picker, loaded with progress, the same text and open views
    await page.selectOption(sel("model-select"), "minilm");
    await loaded(page, '"MiniLM-L6"');
    await settled(page);
    assert((await page.inputValue(sel("text-input"))) === text, "the text stays");
    assert(await page.$(sel("head-steps")), "the open fold stays open");
    assert((await selected(page)) === "minilm", "the picker shows the loaded model");
    assert(/all-MiniLM-L6-v2/.test(await about(page)) && /Not BERT-base/.test(await about(page)), `about: ${await about(page)}`);
    assert((await page.getAttribute(sel("model-card"), "href")) === "models/minilm-l6-mlm/MODEL_CARD.md", "the card link");
    assert(/6 layers × 12 heads, hidden 384/.test(await modelLine(page)), `model line: ${await modelLine(page)}`);
    assert(JSON.stringify(await grid(page)) === "[6,12,72]", `72 heatmaps: ${await grid(page)}`);
    const mini = (await predictions(page)).map((p) => p.token);
    assert(mini.join(" ") !== tiny.join(" "), "the larger model answers (other guesses)");
    assert(/model=minilm/.test(await h.urlOf(page)), `the URL names it: ${await h.urlOf(page)}`);
    await shot(page, "bundled-01-minilm-grid", sel("attention-grid"));

    // switching a head of the last layer off changes the guesses; all 72 can be switched
    assert((await page.$$(sel("head-toggle"))).length === 72, "72 head switches");
    const before = JSON.stringify(await predictions(page));
    for (let hd = 0; hd < 12; hd++) await page.click(`${sel("head-toggle")}[data-layer="5"][data-head="${hd}"]`);
    await settled(page);
    assert(JSON.stringify(await predictions(page)) !== before, "switching layer 5's heads off changes the predictions");
    await shot(page, "bundled-02-ablation", sel("ablation"));

    // back to bert-tiny: heads that do not exist there are dropped, the text stays
    await page.selectOption(sel("model-select"), "tiny");
    await loaded(page, '"bert-tiny"');
    await settled(page);
    assert((await page.inputValue(sel("text-input"))) === text, "the text stays");
    assert(JSON.stringify(await grid(page)) === "[2,2,4]", "the tiny grid");
    assert((await predictions(page)).map((p) => p.token).join(" ") === tiny.join(" "), "the same guesses as before");
    assert(!/model=/.test(await h.urlOf(page)), "the default is not in the URL");
    await page.context().close();

    // a link opens the larger model directly
    const p2 = await newPage(`?model=minilm&text=${encodeURIComponent("the man went to the [MASK] to buy milk.")}`);
    await loaded(p2, '"MiniLM-L6"');
    await settled(p2);
    assert((await selected(p2)) === "minilm", "?model=minilm selects it");
    assert((await predictions(p2)).length > 0, "it answers");
    await shot(p2, "bundled-03-minilm-page");
    await p2.context().close();
  });
};
