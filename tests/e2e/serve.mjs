// A static file server for dist/ on 127.0.0.1 (a free port), for the e2e suite. Besides the files it
// serves a broken model at /models/broken/ (a truncated checkpoint), the base bert-tiny
// (www/models/bert-tiny-base/) at /models/base/ for loading another model, the fine-tuned fixture
// models at /models/fixture/<name>/, and can stream the default
// model's weights slowly, so the progress bar can be seen moving.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const BASE_MODEL = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "www", "models", "bert-tiny-base");
// the fine-tuned fixture models (random BertForSequenceClassification, ...TokenClassification,
// ...QuestionAnswering) at /models/fixture/<name>/
const FIXTURE_MODELS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "models");

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".md": "text/markdown; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Serves `root`; returns { url, close, setSlow(bytesPerTick | 0), hold(), release(), requests }.
 *  While held, a slow weights download stops after its first chunk until `release()`. */
export async function serve(root) {
  root = path.resolve(root);
  let slow = 0;
  let gate = null; // { promise, open } while held
  const hold = () => {
    let open;
    const promise = new Promise((r) => (open = r));
    gate = { promise, open };
  };
  const release = () => {
    if (gate) gate.open();
    gate = null;
  };
  const requests = [];
  const defaultModel = path.join(root, "models", "bert-tiny");
  // the broken model: real config and tokenizer, weights cut after 1000 bytes
  const broken = {
    "config.json": () => fs.readFileSync(path.join(defaultModel, "config.json")),
    "tokenizer.json": () => fs.readFileSync(path.join(defaultModel, "tokenizer.json")),
    "model.safetensors": () => fs.readFileSync(path.join(defaultModel, "model.safetensors")).subarray(0, 1000),
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, "http://localhost");
    const rel = decodeURIComponent(url.pathname);
    requests.push(rel);
    const send = (status, body, type) => {
      res.writeHead(status, { "Content-Type": type, "Content-Length": body.length, "Cache-Control": "no-store" });
      res.end(body);
    };
    if (rel.startsWith("/models/broken/")) {
      const make = broken[rel.slice("/models/broken/".length)];
      return make ? send(200, make(), "application/octet-stream") : send(404, Buffer.from("not found"), "text/plain");
    }
    if (rel.startsWith("/models/fixture/")) {
      const [name, file] = rel.slice("/models/fixture/".length).split("/");
      const f = path.join(FIXTURE_MODELS, path.basename(name || ""), path.basename(file || ""));
      return name && file && fs.existsSync(f) ? send(200, fs.readFileSync(f), TYPES[path.extname(f)] || "application/octet-stream") : send(404, Buffer.from("not found"), "text/plain");
    }
    if (rel.startsWith("/models/base/")) {
      const name = path.basename(rel);
      const f = path.join(BASE_MODEL, name);
      return fs.existsSync(f) && name ? send(200, fs.readFileSync(f), TYPES[path.extname(f)] || "application/octet-stream") : send(404, Buffer.from("not found"), "text/plain");
    }
    let file = path.join(root, path.normalize(rel));
    if (!file.startsWith(root)) return send(403, Buffer.from("forbidden"), "text/plain");
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, "index.html");
    if (!fs.existsSync(file)) return send(404, Buffer.from("not found"), "text/plain");
    const body = fs.readFileSync(file);
    const type = TYPES[path.extname(file)] || "application/octet-stream";
    if (slow > 0 && file.endsWith(".safetensors")) {
      res.writeHead(200, { "Content-Type": type, "Content-Length": body.length, "Cache-Control": "no-store" });
      for (let i = 0; i < body.length; i += slow) {
        if (!res.write(body.subarray(i, i + slow))) await new Promise((r) => res.once("drain", r));
        if (gate) await gate.promise;
        await sleep(100);
      }
      return res.end();
    }
    send(200, body, type);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    setSlow: (bytes) => (slow = bytes),
    hold,
    release,
    close: () => new Promise((r) => { release(); server.closeAllConnections(); server.close(r); }),
  };
}
