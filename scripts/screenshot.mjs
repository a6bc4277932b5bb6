#!/usr/bin/env node
// The README's screenshot of the inspector: node scripts/screenshot.mjs WORKSPACE_DIR SESSION_FILE OUT.png
// (a folder and a session file given to the page through its own inputs, in headless Chromium).
import { chromium } from 'playwright-core';
import { openPage } from '../tests/js/static-server.mjs';
const msgs = [];
const { server, browser, page } = await openPage(chromium, new URL('../', import.meta.url).pathname, '/www/index.html', msgs);
await page.setViewportSize({ width: 1400, height: 1100 });
await page.waitForFunction(() => document.body.dataset.state === 'ready');
await page.setInputFiles('#folder-input', process.argv[2]);
await page.waitForFunction(() => document.body.dataset.state !== 'busy');
await page.setInputFiles('#session-input', process.argv[3]);
await page.waitForFunction(() => document.body.dataset.walk === 'done', null, { timeout: 120000 });
await page.screenshot({ path: process.argv[4], fullPage: true });
console.log(msgs.join('\n'));
await browser.close(); await server.close();
