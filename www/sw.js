// Offline copy of the inspector: every file the page loads is cached when the worker installs,
// and each request goes to the network first (so a rebuilt package is picked up) with the cached
// copy as the fallback when the network is gone.
const CACHE = 'contextview-inspector-v9';
const FILES = [
  './', './index.html', './page.mjs', './markup.mjs', './style.mjs', './inspector.mjs', './whatif.mjs', './views.mjs', './warmup.mjs', './status.mjs', './workspace.mjs',
  './chart.mjs', './load.mjs', './request.mjs', './subagents.mjs', './inputs.mjs', './heads.mjs', './imported.mjs', './walk.mjs', './answer.mjs', './view-state.mjs',
  '../pkg/browser.mjs', '../pkg/discover.mjs', '../pkg/timeline.mjs', '../pkg/durable.mjs',
  '../pkg/storage.mjs', '../pkg/storage-indexeddb.mjs', '../pkg/web/contextview.js', '../pkg/web/contextview_bg.wasm',
  // The lazy module (importers, discovery): the page loads it after it is ready, to warm up.
  '../pkg/lazy.mjs', '../pkg/web/contextview_lazy.js', '../pkg/web/contextview_lazy_bg.wasm',
];
// Only where the repository's example sits beside www/; the page works without it.
const OPTIONAL = ['../examples/session.jsonl'];

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(FILES);
    await Promise.all(OPTIONAL.map((f) => cache.add(f).catch(() => {})));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key !== CACHE) await caches.delete(key);
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith((async () => {
    try {
      const response = await fetch(request);
      if (response.status === 200) {
        const copy = response.clone();
        event.waitUntil(caches.open(CACHE).then((cache) => cache.put(request, copy)).catch(() => {}));
      }
      return response;
    } catch (e) {
      const cached = await caches.match(request, { ignoreSearch: true });
      if (cached) return cached;
      throw e;
    }
  })());
});
