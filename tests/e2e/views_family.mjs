// DistilBERT and RoBERTa folders in the page (hub layout, picked as files): the model line names
// the family and tokenizer, byte-level BPE pieces read as text, DistilBERT has no segment row,
// the predictions equal the CLI's for the same text, and the anatomy view fills from the config.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { REPO, cli, loadedWith, modelLine } from "./page_lib.mjs";

const MODELS = path.join(REPO, "tests", "fixtures", "models");
const TEXT = "the quick brown fox sat on the [MASK].";

export default async (h) => {
  const { test, newPage, sel, settled, setText, predictions, shot, assert, TIMEOUT } = h;
  const label = modelLine;
  const loaded = (page, part) => loadedWith(page, part, TIMEOUT);
  const pick = async (page, dir, names) => {
    await page.click(`${sel("model-picker")} summary`);
    await page.setInputFiles(sel("model-files"), names.map((f) => path.join(MODELS, dir, f)));
  };
  // the CLI's probabilities at the first [MASK], most probable first
  const cliProbs = (dir) => {
    const out = JSON.parse(execFileSync(cli(), ["fill", "--model", path.join(MODELS, dir), "--text", TEXT, "--top-k", "10"], { cwd: REPO, encoding: "utf8" }));
    return out.masks[0].predictions.map((p) => p.prob);
  };
  const sameProbs = (page, want, what) =>
    predictions(page).then((got) => {
      const probs = got.filter((p) => p.group === got[0].group).map((p) => p.prob);
      assert(probs.length === want.length, `${what}: ${probs.length} predictions vs the CLI's ${want.length}`);
      probs.forEach((p, i) => assert(Math.abs(p - want[i]) < 1e-4, `${what}: prediction ${i}: ${p} vs the CLI's ${want[i]}`));
    });

  await test("a RoBERTa folder (tokenizer.json, or vocab.json + merges.txt) loads: byte-level BPE read as text, predictions as the CLI", async () => {
    const page = await newPage(`?text=${encodeURIComponent(TEXT)}`);
    await settled(page);
    await pick(page, "roberta_mlm", ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"]);
    await loaded(page, "your files");
    await settled(page);
    assert(/a RoBERTa \(byte-level BPE tokens\)/.test(await label(page)), `label: ${await label(page)}`);
    const scheme = await page.getAttribute(sel("token-scheme"), "data-scheme");
    assert(scheme === "byte-level BPE", `scheme: ${scheme}`);
    const pieces = await page.$$eval(`${sel("tokens")} .piece`, (els) => els.map((e) => e.textContent));
    assert(pieces[0] === "<s>" && pieces.at(-1) === "</s>", `specials: ${pieces.join(" ")}`);
    assert(pieces.some((p) => p.startsWith("␣")) && !pieces.some((p) => p.includes("Ġ")), `pieces: ${pieces.join(" ")}`);
    assert(pieces.includes("<mask>"), `[MASK] is RoBERTa's <mask>: ${pieces.join(" ")}`);
    await sameProbs(page, cliProbs("roberta_mlm"), "RoBERTa");
    await shot(page, "family-01-roberta");
    // the anatomy of the loaded model: its parameters as the CLI counts them, the sentence's cost
    await page.click(sel("fold-anatomy"));
    await page.waitForSelector(sel("anatomy-params"), { timeout: TIMEOUT });
    const counts = JSON.parse(execFileSync(cli(), ["params", "--model", path.join(MODELS, "roberta_mlm")], { cwd: REPO, encoding: "utf8" })).counts;
    const total = Number(await page.getAttribute(sel("anatomy-params"), "data-total"));
    assert(total === counts.total, `anatomy total ${total} vs the CLI's ${counts.total}`);
    const n = Number(await page.getAttribute(sel("anatomy-cost"), "data-n"));
    assert(n === pieces.length, `the cost is for this sentence's ${pieces.length} tokens, not ${n}`);
    const crossover = Number(await page.getAttribute(sel("cost-chart"), "data-crossover"));
    assert(crossover === 52 + 1, `RoBERTa fixture (I = 52): attention passes the FFN at n = 53, got ${crossover}`);
    const cols = await page.$$eval(`${sel("family-table")} thead th`, (els) => els.map((e) => e.textContent));
    assert(cols.some((c) => /BERT-base|bert-base/i.test(c)) && cols.some((c) => /RoBERTa/.test(c)), `family columns: ${cols.join(" | ")}`);
    assert((await page.$$(`${sel("complexity-table")} tbody tr`)).length === 3, "three rows in the complexity table");
    // the published models by group: BERT-base is the seed's 109,482,240
    await page.click(`${sel("anatomy")} .pick[data-model="bert-base-uncased"]`);
    await page.waitForFunction(() => document.querySelector('[data-testid="anatomy-params"]').dataset.model === "bert-base-uncased");
    const base = Number(await page.getAttribute(sel("anatomy-params"), "data-total"));
    assert(base === 109482240, `BERT-base by group: ${base}`);
    await shot(page, "family-03-anatomy", sel("anatomy"));
    await page.click(`${sel("anatomy")} .pick[data-model="this model"]`);
    // the same model from its vocabulary files alone
    await pick(page, "roberta_mlm", ["config.json", "model.safetensors", "vocab.json", "merges.txt"]);
    await page.waitForFunction(() => document.querySelector('[data-testid="load-progress"]')?.dataset.state === "done", null, { timeout: TIMEOUT });
    await setText(page, "text-input", TEXT);
    await settled(page);
    await sameProbs(page, cliProbs("roberta_mlm"), "RoBERTa from vocab.json + merges.txt");
  });

  await test("a DistilBERT folder loads: no segment embeddings in the embedding view, predictions as the CLI", async () => {
    const page = await newPage(`?text=${encodeURIComponent(TEXT)}`);
    await settled(page);
    await pick(page, "distil_mlm", ["config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json"]);
    await loaded(page, "your files");
    await settled(page);
    assert(/a DistilBERT \(WordPiece tokens\)/.test(await label(page)), `label: ${await label(page)}`);
    await sameProbs(page, cliProbs("distil_mlm"), "DistilBERT");
    await page.waitForSelector(sel("embeddings"), { timeout: TIMEOUT });
    assert((await page.$(sel("emb-segment"))) === null, "DistilBERT shows no segment table");
    const sum = await page.textContent(sel("embedding-sum"));
    assert(!sum.includes("E_seg") && sum.includes("E_tok"), `formula: ${sum}`);
    assert(/no segment embeddings/.test(await page.textContent(sel("embeddings"))), "the view says why");
    // a pair: no NSP probability, and why
    await setText(page, "pair-input", "it was warm.");
    await page.waitForSelector(sel("no-nsp"), { timeout: TIMEOUT });
    assert(/DistilBERT was trained without next-sentence prediction/.test(await page.textContent(sel("no-nsp"))), "says why there is no NSP");
    await shot(page, "family-02-distilbert-embeddings", sel("embeddings"));
  });
};
