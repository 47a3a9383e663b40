// What an attribution costs in the page (a benchmark, not a test): opens `?bench=attribution`, so
// the worker times the rows of `cargo bench --bench attribute` (explain::attribute_bench: the same
// code, on the loaded model, in WebAssembly, side by side over 25 rounds) and prints its table.
//   node tests/e2e/bench_why.mjs [--dist dist] [--out target/bench-why.json]
import { chromium } from "playwright-core";
import fs from "node:fs";
import { serve } from "./serve.mjs";
import { FLAGS, pathArg } from "./page_lib.mjs";

const DIST = pathArg("dist", "dist");
const OUT = pathArg("out", "target/bench-why.json");

const server = await serve(DIST);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true, args: FLAGS });
try {
  const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
  await page.goto(server.url + "?device=cpu&bench=attribution");
  const table = page.locator('[data-testid="bench-attribution"]');
  await table.waitFor({ timeout: 180_000 });
  const error = await table.getAttribute("data-error");
  if (error) throw new Error(`the worker could not time the rows: ${error}`);
  const rows = await table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  const hint = await table.locator(".hint").textContent();
  console.log(hint);
  console.log();
  console.log("| what | ms | against | target |");
  console.log("|---|---:|---|---|");
  for (const r of rows) console.log(`| ${r.join(" | ")} |`);
  const ratio = Number(await table.getAttribute("data-ratio"));
  fs.writeFileSync(OUT, JSON.stringify({ rows, ig_ratio: ratio }, null, 2));
} finally {
  await browser.close();
  await server.close();
}
