// What the e2e suite and the page benchmarks share: the repository's root and the command line,
// Chromium's flags, the measure test's sentence, and one timed edit of the sentence box.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The value after `--name` on the command line, or `dflt`. */
export function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
}

/** A path given as `--name` (or `dflt`), relative to the repository's root. */
export const pathArg = (name, dflt) => path.resolve(REPO, arg(name, dflt));

export const FLAGS = [
  "--no-sandbox",
  "--enable-unsafe-webgpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
];

/** The measure test's 21-token sentence with one word swapped in. */
export const WORDS = ["quick", "slow", "happy", "sad", "small", "big", "old", "young", "red", "green"];
export const sentence = (w) => `the ${w} brown fox jumps over the lazy dog while the [MASK] sleeps under the old oak tree.`;

/** Whether the page shows the answer to its latest input (in the page). */
export const SETTLED = () => {
  const s = document.getElementById("status");
  return s && s.dataset.ready === "true" && s.dataset.shown === s.dataset.edit;
};

/** Types `text` into the sentence box at once and returns the milliseconds until the page shows
 *  the answer to it and has painted the next frame. */
export function keystrokeMs(page, text) {
  return page.evaluate((text) => new Promise((resolve, reject) => {
    const app = document.getElementById("status");
    const el = document.querySelector('[data-testid="text-input"]');
    const before = Number(app.dataset.edit);
    const t0 = performance.now();
    const done = () => {
      if (Number(app.dataset.edit) > before && app.dataset.shown === app.dataset.edit) {
        obs.disconnect();
        requestAnimationFrame(() => resolve(performance.now() - t0)); // until the next frame is painted
        return true;
      }
      return false;
    };
    const obs = new MutationObserver(done);
    obs.observe(app, { attributes: true });
    setTimeout(() => reject(new Error("no update in 10 s")), 10_000);
    el.value = text;
    el.dispatchEvent(new InputEvent("input", { bubbles: true }));
    done();
  }), text);
}

/** The CLI the browser suites compare with: the test run's build (cargo test builds target/debug). */
export function cli() {
  for (const p of ["target/release/bertscope", "target/debug/bertscope"]) {
    if (fs.existsSync(path.join(REPO, p))) return path.join(REPO, p);
  }
  execFileSync("cargo", ["build", "--locked", "--bin", "bertscope"], { cwd: REPO, stdio: "ignore" });
  return path.join(REPO, "target/debug/bertscope");
}

/** The model line, and a wait until it says a load finished and names `part`. */
export const modelLine = (page) => page.textContent('[data-testid="load-progress"]');
export const loadedWith = (page, part, timeout) =>
  page.waitForFunction((part) => {
    const el = document.querySelector('[data-testid="load-progress"]');
    return el && el.dataset.state === "done" && el.textContent.includes(part);
  }, part, { timeout });
