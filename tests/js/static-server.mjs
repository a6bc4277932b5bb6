// Minimal static file server for the browser test: serves a root directory on 127.0.0.1 with
// MIME types browsers insist on (application/wasm for streaming compile, text/javascript for .mjs).
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.jsonl': 'application/x-ndjson; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** Starts the server (on a random port unless `port` is given); resolves to {url, close, requests}. */
export async function serveStatic(root, { port: wanted = 0, host = '127.0.0.1', cacheable = false } = {}) {
  const requests = [];
  const server = createServer(async (req, res) => {
    const { pathname } = new URL(req.url, 'http://x');
    requests.push(pathname);
    let path = normalize(join(root, decodeURIComponent(pathname)));
    if (path !== root && !path.startsWith(root.endsWith(sep) ? root : root + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      if ((await stat(path)).isDirectory()) path = join(path, 'index.html');
      const body = await readFile(path);
      res.writeHead(200, {
        'content-type': MIME[extname(path)] ?? 'application/octet-stream',
        // Tests want every load fresh; a returning visitor's browser may keep what it fetched
        // (compiled wasm included), as a deployed page's would.
        'cache-control': cacheable ? 'max-age=3600' : 'no-store',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(wanted, host, resolve);
  });
  const { port } = server.address();
  return {
    url: `http://${host === '0.0.0.0' ? 'localhost' : host}:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Chromium as every browser test launches it (Debian's build; flags from the toolchain notes). */
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * Serves `root` over loopback, launches Chromium with `playwright`, and opens `path` in a page
 * whose console messages and page errors are collected into `messages`.
 */
export async function openPage(playwright, root, path, messages, onPage = () => {}) {
  const server = await serveStatic(root.replace(/\/$/, ''));
  const browser = await playwright.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const page = await browser.newPage();
  page.on('console', (m) => messages.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => messages.push(`pageerror: ${e.message}`));
  onPage(page);
  await page.goto(`${server.url}${path}`);
  return { server, browser, page };
}
