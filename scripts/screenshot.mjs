#!/usr/bin/env node
// The README's screenshot of the inspector: a folder and a session file given to the page through
// its own inputs, in headless Chromium. `node scripts/screenshot.mjs WORKSPACE_DIR [SESSION_FILE]
// OUT.png`; without a session file, a generated one of about 300 KB (benches/generated-log.mjs).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { openPage } from '../tests/js/static-server.mjs';
import { generatedLog } from '../benches/generated-log.mjs';

const args = process.argv.slice(2);
if (args.length < 2) {
  console.error('usage: node scripts/screenshot.mjs WORKSPACE_DIR [SESSION_FILE] OUT.png');
  process.exit(2);
}
const [workspace, ...rest] = args;
const out = rest.pop();
let session = rest[0];
if (!session) {
  session = join(mkdtempSync(join(tmpdir(), 'cv-shot-')), 'session.jsonl');
  writeFileSync(session, generatedLog(300_000));
}
const messages = [];
const { server, browser, page } = await openPage(chromium, new URL('../', import.meta.url).pathname, '/www/index.html', messages);
try {
  // The first screen, as a person sees it after picking the files.
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.waitForFunction(() => document.body.dataset.state === 'ready');
  await page.setInputFiles('#folder-input', workspace);
  await page.waitForFunction(() => Number(document.body.dataset.done) >= 2 && document.body.dataset.state !== 'busy');
  await page.setInputFiles('#session-input', session);
  await page.waitForFunction(() => document.body.dataset.walk === 'done', null, { timeout: 120_000 });
  await page.selectOption('#pruning', 'eager');
  await page.fill('#window', '60000');
  await page.dispatchEvent('#window', 'change');
  await page.waitForFunction(() => document.body.dataset.walk === 'done' && document.body.dataset.state === 'ready', null, { timeout: 120_000 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: out });
  if (messages.length) console.log(messages.join('\n'));
} finally {
  await browser.close();
  await server.close();
}
