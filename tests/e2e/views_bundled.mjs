// The bundled models: the page as shipped opens on MiniLM-L6 (72 heads); the picker switches to
// bert-tiny and back, keeping the text and the open views; `?model=` opens one; the model line
// says what the model is and links its card; all 72 heads in the grid and the ablation.
import { loadedWith, modelLine } from "./page_lib.mjs";

export default async (h) => {
  const { test, newPage, sel, settled, predictions, shot, assert, TIMEOUT } = h;
  const loaded = (page, part) => loadedWith(page, part, 4 * TIMEOUT);
  const grid = (page) => page.$eval(sel("attention-grid"), (g) => [Number(g.dataset.layers), Number(g.dataset.heads), g.querySelectorAll('[data-testid="heatmap"]').length]);
  const selected = (page) => page.$eval(sel("model-select"), (s) => s.value);
  const about = (page) => page.textContent(sel("model-about"));
  const tokens = async (page) => (await predictions(page)).map((p) => p.token).join(" ");

  await test("bundled models: the page opens on MiniLM-L6; the picker switches, keeping the text and the open views", async () => {
    const text = "the capital of france is [MASK].";
    const page = await newPage(`?text=${encodeURIComponent(text)}&open=steps&device=cpu`, { shipped: true });
    await loaded(page, '"MiniLM-L6"');
    await settled(page);
    assert((await selected(page)) === "minilm", `the default is MiniLM-L6: ${await selected(page)}`);
    assert(/all-MiniLM-L6-v2/.test(await about(page)) && /Not BERT-base/.test(await about(page)), `about: ${await about(page)}`);
    assert((await page.getAttribute(sel("model-card"), "href")) === "models/minilm-l6-mlm/MODEL_CARD.md", "the card link");
    assert(/6 layers × 12 heads, hidden 384/.test(await modelLine(page)), `model line: ${await modelLine(page)}`);
    assert(JSON.stringify(await grid(page)) === "[6,12,72]", `72 heatmaps: ${await grid(page)}`);
    assert(!/model=/.test(await h.urlOf(page)), "the default is not written into the URL");
    assert((await page.textContent(sel("backend"))).includes("CPU"), "the CPU path answered");
    const mini = await tokens(page);
    await shot(page, "bundled-01-minilm-grid", sel("attention-grid"));

    // switching a head off changes the guesses; all 72 can be switched
    assert((await page.$$(sel("head-toggle"))).length === 72, "72 head switches");
    for (let hd = 0; hd < 12; hd++) await page.click(`${sel("head-toggle")}[data-layer="5"][data-head="${hd}"]`);
    await settled(page);
    const off = JSON.stringify(await predictions(page));
    await shot(page, "bundled-02-ablation", sel("ablation"));

    // bert-tiny: chosen from the picker, the same text and open fold; heads it lacks are dropped
    await page.selectOption(sel("model-select"), "tiny");
    await loaded(page, '"bert-tiny"');
    await settled(page);
    assert((await page.inputValue(sel("text-input"))) === text, "the text stays");
    assert(await page.$(sel("head-steps")), "the open fold stays open");
    assert((await selected(page)) === "tiny", "the picker shows the loaded model");
    assert(/bert-tiny/.test(await about(page)), `about: ${await about(page)}`);
    assert((await page.getAttribute(sel("model-card"), "href")) === "models/bert-tiny/MODEL_CARD.md", "the card link");
    assert(JSON.stringify(await grid(page)) === "[2,2,4]", `tiny grid: ${await grid(page)}`);
    assert((await page.$$(sel("head-toggle"))).length === 4, "4 head switches");
    assert(/model=tiny/.test(await h.urlOf(page)), `the URL names it: ${await h.urlOf(page)}`);
    const tiny = await tokens(page);
    assert(tiny !== mini, "the other model answers with other guesses");

    // and back: the larger model answers as it did with every head on
    await page.selectOption(sel("model-select"), "minilm");
    await loaded(page, '"MiniLM-L6"');
    await settled(page);
    assert((await tokens(page)) === mini, `MiniLM-L6 again: ${await tokens(page)} vs ${mini}`);
    assert(off !== JSON.stringify(await predictions(page)), "layer 5's heads switched off had changed the predictions");
    await page.context().close();

    // a link opens bert-tiny directly
    const p2 = await newPage(`?model=tiny&text=${encodeURIComponent(text)}`, { shipped: true });
    await loaded(p2, '"bert-tiny"');
    await settled(p2);
    assert((await selected(p2)) === "tiny" && (await tokens(p2)) === tiny, "?model=tiny opens bert-tiny");
    await shot(p2, "bundled-03-tiny-page");
    await p2.context().close();

    // on WebGPU (SwiftShader here) the larger model gives the CPU path's first guess
    const p3 = await newPage(`?device=webgpu&text=${encodeURIComponent(text)}`, { shipped: true });
    await loaded(p3, '"MiniLM-L6"');
    await p3.waitForFunction(() => /WebGPU/.test(document.querySelector('[data-testid="backend"]')?.textContent || ""), null, { timeout: 4 * TIMEOUT });
    await settled(p3);
    const gpuTop = (await predictions(p3))[0].token;
    assert(gpuTop === mini.split(" ")[0], `WebGPU's top-1 ${gpuTop} vs the CPU path's ${mini.split(" ")[0]}`);
    await p3.context().close();
  });
};
