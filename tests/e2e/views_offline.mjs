// Offline after the first visit: the service worker (www/sw.js) caches the build, so with the
// server gone the page, its engine and the default model still load and answer.
import { serve } from "./serve.mjs";

export default async (h) => {
  const { test, sel, settled, predictions, assert, shot, TIMEOUT, browser, DIST } = h;
  await test("offline after the first visit: with the server gone the page loads and answers", async () => {
    const own = await serve(DIST); // its own server, to stop
    const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    try {
      const page = await ctx.newPage();
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(own.url + "?text=the+cat+sat+on+the+[MASK].");
      await settled(page);
      const online = (await predictions(page)).map((p) => `${p.token}:${p.prob}`).join(" ");
      // installed (every file of the build cached) and in control of the page
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 120_000 });
      const cached = await page.evaluate(async () => {
        const keys = await caches.keys();
        const c = await caches.open(keys.find((k) => k.startsWith("bertscope-")));
        return (await c.keys()).map((r) => new URL(r.url).pathname);
      });
      assert(cached.some((p) => p.endsWith("/models/bert-tiny/model.safetensors")) && cached.some((p) => p.endsWith(".wasm")), `cached: ${cached.join(", ")}`);
      await own.close();
      const gone = await page.evaluate((u) => fetch(u + "no-such-file").then(() => "answered", () => "network error"), own.url);
      assert(gone === "network error", `the server still answers: ${gone}`);
      await page.goto(own.url + "?text=the+cat+sat+on+the+[MASK].");
      await settled(page);
      assert((await page.getAttribute(sel("load-progress"), "data-state")) === "done", "the model loaded from the cache");
      const offline = (await predictions(page)).map((p) => `${p.token}:${p.prob}`).join(" ");
      assert(offline === online, `offline predictions differ: ${offline} vs ${online}`);
      await shot(page, "offline-01-page");
      assert(errors.length === 0, `page errors: ${errors.join("; ")}`);
    } finally {
      await ctx.close();
      await own.close().catch(() => {});
    }
  });
};
