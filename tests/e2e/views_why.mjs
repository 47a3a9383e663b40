// "Why this prediction": the attribution view opens from a link, has a score per token equal to
// the CLI's for the same text and target (`bertscope attribute`), follows the method and the
// output picked, explains a fine-tuned classifier's class, and survives hostile input.

import { execFileSync } from "node:child_process";
import path from "node:path";
import { REPO, cli } from "./page_lib.mjs";

export default async (h) => {
  const { test, newPage, sel, settled, setText, assert, shot, errorText } = h;
  const TEXT = "the man went to the [MASK] to buy milk.";

  const why = async (p, method) => {
    // the attribution of the page's latest input (it follows that input's snapshot)
    await p.waitForFunction((m) => {
      const w = document.querySelector(".why");
      const edit = document.getElementById("status")?.dataset.edit;
      return w && w.dataset.seq === edit && (!m || w.dataset.method === m) && document.querySelectorAll('[data-testid="attribution"] > *').length > 0;
    }, method, { timeout: 60_000 });
    return p.$eval(".why", (w) => ({
      target: w.dataset.target,
      method: w.dataset.method,
      seq: Number(w.dataset.seq),
      scores: [...w.querySelectorAll('[data-testid="attribution"] > *')].map((e) => Number(e.dataset.score)),
      tokens: [...w.querySelectorAll('[data-testid="attribution"] > *')].map((e) => e.textContent),
      rho: w.querySelector('[data-testid="why-spearman"]').dataset.rho,
    }));
  };
  const same = (what, ours, theirs) => {
    assert(ours.length === theirs.length, `${what}: ${ours.length} scores vs ${theirs.length}`);
    const scale = Math.max(1e-6, ...theirs.map(Math.abs));
    const d = Math.max(...ours.map((v, i) => Math.abs(v - theirs[i])));
    assert(d <= 1e-3 * scale, `${what}: max |diff| ${d} > 1e-3 x ${scale}\n page ${ours}\n cli  ${theirs}`);
  };

  await test("why: attribution per token equals the CLI's; methods; the output picked; a classifier; hostile input", async () => {
    const p = await newPage(`?text=${encodeURIComponent(TEXT)}&open=why`);
    await settled(p);
    const a = await why(p, "grad");
    const tokens = await p.$$eval(`${sel("tokens")} > *`, (els) => els.length);
    assert(a.scores.length === tokens, `one score per token: ${a.scores.length} of ${tokens}`);
    assert(/^mask:6:/.test(a.target), `the first [MASK]'s top guess by default: ${a.target}`);
    assert(a.rho !== "" && Math.abs(Number(a.rho)) <= 1, `Spearman printed: ${a.rho}`);
    const bin = cli();
    const run = (target, method) =>
      JSON.parse(execFileSync(bin, ["attribute", "--model", "www/models/bert-tiny", "--text", TEXT, "--target", target, "--method", method], { cwd: REPO, encoding: "utf8" }));
    same("grad", a.scores, run(a.target, "grad").scores);
    h.metrics.why_ms = { grad_first: Number(await p.getAttribute(".why", "data-ms")) };
    await shot(p, "34-why-grad", `section:has(${sel("fold-why")})`);

    // another method: integrated gradients, with the completeness gap
    await p.selectOption(sel("why-method"), "ig");
    const ig = await why(p, "ig");
    const want = run(ig.target, "ig");
    same("ig", ig.scores, want.scores);
    assert(/completeness gap/.test(await p.textContent(".why")), "IG says its completeness gap");
    h.metrics.why_ms.ig = Number(await p.getAttribute(".why", "data-ms"));
    // another output: the third guess at the [MASK]
    const specs = await p.$$eval(`${sel("why-target")} option`, (os) => os.map((o) => o.value));
    assert(specs.length >= 5 && specs.every((s) => s.startsWith("mask:6:")), `the guesses at the [MASK]: ${specs}`);
    await p.selectOption(sel("why-target"), specs[2]);
    await p.waitForFunction((t) => document.querySelector(".why")?.dataset.target === t, specs[2], { timeout: 60_000 });
    same("ig, third guess", (await why(p, "ig")).scores, run(specs[2], "ig").scores);
    await shot(p, "35-why-ig", `section:has(${sel("fold-why")})`);
    // clicking a guess explains it
    const guess = await p.$eval(`${sel("predictions")} li:nth-child(4)`, (e) => e.dataset.token);
    await p.click(`${sel("predictions")} li:nth-child(4)`);
    await p.waitForFunction((t) => document.querySelector(".why")?.dataset.target === t, `mask:6:${guess}`, { timeout: 60_000 });

    // hostile input: nothing to explain is a message, not a break; the page keeps answering
    await setText(p, "text-input", "😀 שלום"); // no [MASK]: nothing to explain, and it says so
    await p.waitForSelector(sel("why-error"), { timeout: 30_000 });
    assert(/Nothing here to explain/.test(await p.textContent(sel("why-error"))), "says why there is no attribution");
    assert((await p.$$(sel("attribution"))).length === 0, "no stale attribution of the old text");
    await setText(p, "text-input", "paris is the capital of [MASK].");
    const again = await why(p);
    assert(again.tokens.includes("paris") && again.scores.every(Number.isFinite), `answers again: ${again.tokens}`);
    // grad once warm (the first one also grows the worker's memory): its cost on a keystroke
    await p.selectOption(sel("why-method"), "grad");
    await why(p, "grad");
    await setText(p, "text-input", TEXT);
    await why(p, "grad");
    h.metrics.why_ms.grad = Number(await p.getAttribute(".why", "data-ms"));
    assert((await errorText(p)) === null, `no error: ${await errorText(p)}`);
    await p.context().close();

    // a fine-tuned classifier: its classes can be explained
    const c = await newPage(`?model=models/fixture/task_seqcls/&text=the+cat+sat&open=why`);
    await settled(c);
    const cls = await why(c);
    assert(/^class:/.test(cls.target), `a class by default: ${cls.target}`);
    const bertCls = JSON.parse(execFileSync(bin, ["attribute", "--model", "tests/fixtures/models/task_seqcls", "--text", "the cat sat", "--target", cls.target, "--method", "grad"], { cwd: REPO, encoding: "utf8" }));
    same("class grad", cls.scores, bertCls.scores);
    await c.context().close();
  });
};
