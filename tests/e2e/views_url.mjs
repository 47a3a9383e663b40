// The view choices a link carries: the head shown step by step, the FFN's (layer, token), hidden
// [CLS]/[SEP] and the open folds come back from the URL, and changing them rewrites it.

export default async (h) => {
  const { test, newPage, sel, settled, assert, urlOf } = h;

  await test("url: focus, ffn, hide and open folds come back from a link and follow the page", async () => {
    const text = "the cat sat on the mat because it was [MASK].";
    const page = await newPage(`?text=${encodeURIComponent(text)}&focus=1.1&ffn=1.3&hide=1&open=steps,ffn,derived`);
    await settled(page);
    assert(await page.isChecked(sel("hide-specials")), "hide=1 did not check the switch");
    const expanded = async (id) => page.getAttribute(sel(id), "aria-expanded");
    assert((await expanded("fold-derived")) === "true", "open=derived did not open the average and rollout");
    const steps = page.locator(sel("head-steps"));
    await steps.waitFor({ timeout: h.TIMEOUT });
    const focus = await steps.evaluate((e) => [e.dataset.layer, e.dataset.head].join("."));
    assert(focus === "1.1", `focus=1.1 shows head ${focus}`);
    const ffn = page.locator(sel("ffn-detail"));
    await ffn.waitFor({ timeout: h.TIMEOUT });
    const at = await ffn.evaluate((e) => [e.dataset.layer, e.dataset.token].join("."));
    assert(at === "1.3", `ffn=1.3 shows ${at}`);
    const q = new URL(await urlOf(page)).searchParams;
    assert(q.get("focus") === "1.1" && q.get("ffn") === "1.3" && q.get("hide") === "1" && q.get("open") === "steps,ffn,derived",
      `the URL lost a choice: ${q}`);

    // changing them rewrites the URL
    await page.uncheck(sel("hide-specials"));
    await page.click(sel("fold-derived"));
    await settled(page);
    const q2 = new URL(await urlOf(page)).searchParams;
    assert(!q2.has("hide") && q2.get("open") === "steps,ffn", `after unchecking and folding: ${q2}`);
  });
};
