// Offline copy of the inspector: every file the page loads is cached when the worker installs,
// and each request goes to the network first (so a rebuilt package is picked up) with the cached
// copy as the fallback when the network is gone.
const CACHE = 'contextview-inspector-v3';
const FILES = [
  './', './index.html', './inspector.css', './inspector.mjs', './views.mjs', './warmup.mjs',
  '../pkg/browser.mjs', '../pkg/discover.mjs', '../pkg/timeline.mjs', '../pkg/durable.mjs',
  '../pkg/storage.mjs', '../pkg/storage-indexeddb.mjs', '../pkg/web/contextview.js', '../pkg/web/contextview_bg.wasm',
  '../examples/session.jsonl',
];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
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
      if (response.ok) {
        const copy = response.clone();
        caches.open(CACHE).then((cache) => cache.put(request, copy));
      }
      return response;
    } catch (e) {
      const cached = await caches.match(request, { ignoreSearch: true });
      if (cached) return cached;
      throw e;
    }
  })());
});
