#!/usr/bin/env node
// Serves the project root on localhost so the inspector (www/) can load the package (pkg/) beside
// it: `make serve`, then open the printed address. PORT (default 8080) and HOST (default
// 127.0.0.1) choose where; the page itself needs nothing from the server but the files.
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../tests/js/static-server.mjs';

const root = fileURLToPath(new URL('../', import.meta.url)).replace(/\/$/, '');
const port = Number(process.env.PORT ?? 8080);
const host = process.env.HOST ?? '127.0.0.1';
const server = await serveStatic(root, { port, host });
console.log(`contextview inspector: ${server.url}/www/   (Ctrl-C to stop)`);
