// bertscope's service worker: after the first visit the page, its engine and the default model
// also work offline. scripts/build_web.sh writes the build's file list and a version into this
// file (dist/sw.js); a new build is a new cache and the old one is deleted. Requests go to the
// network first, so a new build shows at once, and to the cache when the network fails.
const VERSION = "__BERTSCOPE_VERSION__";
const ASSETS = ["./"]; // __BERTSCOPE_ASSETS__
const CACHE = `bertscope-${VERSION}`;

self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(ASSETS)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith("bertscope-") && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (e) => {
  const req = e.request;
  if (req.method !== "GET" || new URL(req.url).origin !== self.location.origin) return;
  e.respondWith(
    fetch(req).catch(() =>
      // the page's state is in its query (?text=...): the cached page serves every query
      caches.open(CACHE).then((c) => c.match(req, { ignoreSearch: req.mode === "navigate" })).then((r) => r || Response.error()),
    ),
  );
});
