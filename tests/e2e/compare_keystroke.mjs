// Keystroke latency and first load of two or more builds of the page, measured side by side: one
// page per build, all open at once, rounds of edits alternating between them (and fresh-context
// loads alternating too), so a noisy machine slows each build alike. Prints a table per build.
// A benchmark, not a test.
//   node tests/e2e/compare_keystroke.mjs DIST_A DIST_B [...] [--rounds 8] [--edits 8] [--loads 5] [--query ?device=cpu]
import { chromium } from "playwright-core";
import path from "node:path";
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { serve } from "./serve.mjs";
import { FLAGS, SETTLED, WORDS as words, keystrokeMs as edit, sentence } from "./page_lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args.splice(i, 2)[1] : dflt;
};
const ROUNDS = Number(opt("rounds", "8"));
const EDITS = Number(opt("edits", "8"));
const QUERY = opt("query", "");
const LOADS = Number(opt("loads", "5"));
const dists = args.map((d) => path.resolve(repo, d));
if (dists.length < 2) {
  console.error("usage: node tests/e2e/compare_keystroke.mjs DIST_A DIST_B [...] [--rounds N] [--edits N]");
  process.exit(2);
}

const servers = await Promise.all(dists.map((d) => serve(d)));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: FLAGS });
try {
  // first load to the first snapshot on screen, nothing cached, builds alternating
  const loads = dists.map(() => []);
  for (let r = 0; r < LOADS; r++) {
    for (const k of r % 2 ? [...servers.keys()].reverse() : [...servers.keys()]) {
      const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      const page = await ctx.newPage();
      await page.goto(servers[k].url + QUERY);
      await page.waitForFunction(() => performance.getEntriesByName("bertscope:snapshot").length > 0, null, { timeout: 60_000 });
      loads[k].push(await page.evaluate(() => performance.getEntriesByName("bertscope:snapshot")[0].startTime));
      await ctx.close();
    }
  }
  const pages = [];
  for (const s of servers) {
    const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(s.url + QUERY);
    await page.waitForFunction(SETTLED, null, { timeout: 60_000 });
    for (let i = 0; i < 10; i++) await edit(page, sentence(words[i % words.length])); // warm-up
    pages.push(page);
  }
  const times = dists.map(() => []);
  let n = 0;
  for (let r = 0; r < ROUNDS; r++) {
    // alternate which build goes first
    const order = r % 2 ? [...pages.keys()].reverse() : [...pages.keys()];
    for (const k of order) {
      for (let e = 0; e < EDITS; e++) times[k].push(await edit(pages[k], sentence(words[(n++) % words.length]) + (e % 2 ? " " : "")));
    }
  }
  const q = (xs, f) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(f * xs.length))];
  const load = fs.existsSync("/proc/loadavg") ? fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ") : "?";
  console.log(`keystroke to updated predictions (21 tokens, ${ROUNDS} rounds x ${EDITS} edits per build) and first load to interactive (${LOADS} per build), load average ${load}`);
  console.log("| build | keystroke p50 ms | keystroke p90 ms | first load median ms | first loads ms |");
  console.log("|---|---:|---:|---:|---|");
  dists.forEach((d, k) => console.log(`| ${path.relative(repo, d) || d} | ${q(times[k], 0.5).toFixed(1)} | ${q(times[k], 0.9).toFixed(1)} | ${q(loads[k], 0.5).toFixed(0)} | ${loads[k].map((x) => x.toFixed(0)).join(" ")} |`));
} finally {
  await browser.close();
  for (const s of servers) await s.close();
}
