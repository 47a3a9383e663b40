// "Load your own model": picked files, a URL, and bad ones (a clear message, the old model stays).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadedWith, modelLine } from "./page_lib.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const BASE = path.join(repo, "www", "models", "bert-tiny-base");

export default async (h) => {
  const { test, newPage, sel, settled, setText, predictions, errorText, shot, assert, TIMEOUT } = h;
  // the old model still answers a new sentence, and typing clears the load's message
  const oldAnswers = async (page, text) => {
    await setText(page, "text-input", text);
    assert((await errorText(page)) === null, `error still shown after typing: ${await errorText(page)}`);
    assert((await predictions(page)).length > 0, "no predictions");
  };
  const label = modelLine;
  const loaded = (page, part) => loadedWith(page, part, TIMEOUT);

  await test("load your own model: picked files, a URL; bad files and URLs say why and the old model stays", async () => {
    const page = await newPage("?text=the+cat+sat+on+the+[MASK].");
    await settled(page);
    const before = (await predictions(page)).map((p) => p.token).join(" ");
    await page.click(`${sel("model-picker")} summary`);
    await shot(page, "model-01-picker", sel("model-picker"));

    // files without weights: said at once, nothing sent, the default keeps answering
    await page.setInputFiles(sel("model-files"), [path.join(BASE, "config.json"), path.join(BASE, "tokenizer.json")]);
    await page.waitForSelector(sel("error"), { timeout: TIMEOUT });
    let msg = await errorText(page);
    assert(/model\.safetensors missing/.test(msg), `missing weights: ${msg}`);
    await oldAnswers(page, "a dog ran to the [MASK].");
    assert((await label(page)).includes('"bert-tiny"'), `label: ${await label(page)}`);

    // truncated weights: the loader's message, and the default stays
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bertscope-broken-"));
    fs.copyFileSync(path.join(BASE, "config.json"), path.join(dir, "config.json"));
    fs.copyFileSync(path.join(BASE, "tokenizer.json"), path.join(dir, "tokenizer.json"));
    fs.writeFileSync(path.join(dir, "model.safetensors"), fs.readFileSync(path.join(BASE, "model.safetensors")).subarray(0, 5000));
    await page.setInputFiles(sel("model-files"), fs.readdirSync(dir).map((f) => path.join(dir, f)));
    await page.waitForSelector(sel("error"), { timeout: TIMEOUT });
    msg = await errorText(page);
    assert(/could not be loaded; the model "bert-tiny" stays/.test(msg) && /safetensors|checkpoint|truncat/i.test(msg), `broken weights: ${msg}`);
    await shot(page, "model-02-broken");
    await oldAnswers(page, "she drank a cup of [MASK].");

    // the real files: the base bert-tiny replaces the default, and the input is asked again
    await setText(page, "text-input", "the cat sat on the [MASK].");
    await page.setInputFiles(sel("model-files"), ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"].map((f) => path.join(BASE, f)));
    await loaded(page, "your files");
    await settled(page);
    const after = (await predictions(page)).map((p) => p.token).join(" ");
    assert(after !== before, `the predictions did not change with the model: ${after}`);
    assert(/2 layers × 2 heads, hidden 128/.test(await label(page)), `label: ${await label(page)}`);
    const url = await h.urlOf(page);
    assert(!url.includes("model="), `picked files are not in the URL: ${url}`);

    // a URL of a folder on this origin: loaded, kept in the URL; a missing one: 404, the old stays
    await page.fill(sel("model-url"), "models/bert-tiny");
    await page.click(sel("model-url-load"));
    await loaded(page, '"bert-tiny"');
    await settled(page);
    assert((await predictions(page)).map((p) => p.token).join(" ") === before, "back on the default model, the same predictions");
    await page.fill(sel("model-url"), "models/missing/");
    await page.click(sel("model-url-load"));
    await page.waitForSelector(sel("error"), { timeout: TIMEOUT });
    msg = await errorText(page);
    assert(/"missing" could not be loaded/.test(msg) && /404/.test(msg), `missing folder: ${msg}`);
    await oldAnswers(page, "the cat sat on the [MASK]!");
    await setText(page, "text-input", "the cat sat on the [MASK].");
    await page.fill(sel("model-url"), "models/base/");
    await page.click(sel("model-url-load"));
    await loaded(page, '"base"');
    await settled(page);
    assert((await predictions(page)).map((p) => p.token).join(" ") === after, "the base model by URL predicts as from the files");
    const url2 = await h.urlOf(page);
    assert(/model=models(%2F|\/)base(%2F|\/)/.test(url2), `a same-origin folder is kept in the URL: ${url2}`);
    await shot(page, "model-03-loaded", ".model-bar");
    await page.context().close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
};
