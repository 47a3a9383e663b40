// Writes the list of dist/'s files and a version (a hash of their contents) into dist/sw.js, so
// the service worker caches exactly this build for offline use. Run by scripts/build_web.sh.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const dist = path.resolve(process.argv[2] || "dist");
const files = [];
(function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name !== "sw.js") files.push(path.relative(dist, p).split(path.sep).join("/"));
  }
})(dist);
files.sort();
const hash = crypto.createHash("sha256");
for (const f of files) hash.update(f).update(fs.readFileSync(path.join(dist, f)));
const version = hash.digest("hex").slice(0, 16);
const sw = path.join(dist, "sw.js");
const src = fs.readFileSync(sw, "utf8");
const assets = JSON.stringify(["./", ...files.filter((f) => f !== "index.html")]);
const out = src.replace("__BERTSCOPE_VERSION__", version).replace(/const ASSETS = \[.*?\]; \/\/ __BERTSCOPE_ASSETS__/, `const ASSETS = ${assets};`);
if (out.includes("__BERTSCOPE")) throw new Error("dist/sw.js: placeholders not found");
fs.writeFileSync(sw, out);
console.log(`dist/sw.js: ${files.length + 1} files cached for offline use, version ${version}`);
