// Presenter mode: a toggle (and ?present=1) that makes everything larger for a projector.
export default async (h) => {
  const { test, newPage, sel, settled, predictions, assert, shot } = h;
  await test("presenter mode: larger, kept in the link, and the page still answers", async () => {
    const page = await newPage("?text=the+cat+sat+on+the+[MASK].");
    await settled(page);
    const size = () => page.$eval(sel("text-input"), (e) => e.getBoundingClientRect().height);
    const before = await size();
    await page.click(sel("presenter"));
    await page.waitForFunction(() => document.getElementById("app").classList.contains("presenter"));
    const url = await h.urlOf(page);
    assert(/present=1/.test(url), `not in the URL: ${url}`);
    assert((await size()) > before * 1.2, `not larger: ${before} -> ${await size()}`);
    assert((await page.getAttribute(sel("presenter"), "aria-pressed")) === "true", "aria-pressed");
    await shot(page, "present-01-on");
    // opened from the link: on at once; the keyboard reaches the toggle
    const p2 = await newPage("?present=1&text=hello+[MASK].");
    await settled(p2);
    assert(await p2.$eval("#app", (e) => e.classList.contains("presenter")), "?present=1 did not turn it on");
    await p2.focus(sel("presenter"));
    await p2.keyboard.press("Enter");
    await p2.waitForFunction(() => !document.getElementById("app").classList.contains("presenter"));
    const url2 = await h.urlOf(p2);
    assert(!/present=/.test(url2), `still in the URL: ${url2}`);
    assert((await predictions(p2)).length > 0, "no predictions");
    await page.context().close();
    await p2.context().close();
  });
};
