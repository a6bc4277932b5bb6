// Discovery in headless Chromium: the fixture written into OPFS, read through browserFs from
// pkg/browser.mjs (page: www/discover-test.html). Served from 127.0.0.1 like browser.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import * as cv from '../../pkg/node.mjs';
import { openPage } from './static-server.mjs';
import { workspaceFixture, levelOf, mentions, pathOf } from './discover-fixture.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const MOUNT = '/ws';

let server, browser, page;
const consoleMessages = [];

before(async () => {
  ({ server, browser, page } = await openPage(chromium, root, '/www/discover-test.html', consoleMessages));
  await page.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 30_000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const fx = workspaceFixture(MOUNT);
// OPFS has no symlinks: the fixture's CLAUDE.md -> AGENTS.md link is left out here.
const textFiles = Object.fromEntries(Object.entries(fx.files).filter(([, v]) => typeof v === 'string'));
const files = Object.fromEntries(Object.entries(textFiles).map(([path, text]) => [path.slice(MOUNT.length + 1), text]));

test('browserFs over OPFS answers like memoryFs on the same files', async () => {
  const dirs = ['/', MOUNT, fx.paths.root, fx.paths.b, `${fx.paths.root}/.cursor/rules`, `${fx.paths.root}/nope`, `${fx.paths.root}/AGENTS.md`, '/elsewhere'];
  const reads = [[`${fx.paths.root}/AGENTS.md`, 1000], [`${fx.paths.root}/AGENTS.md`, 5], [`${fx.paths.root}/nope.md`, 10], [fx.paths.root, 10], ['/elsewhere/x.md', 10]];
  const r = await page.evaluate((arg) => window.probeBrowserFs(arg), { files, mount: MOUNT, dirs, reads });
  const mem = cv.memoryFs(textFiles);
  const outcome = (fn) => {
    try {
      const v = fn();
      return v && v.content instanceof Uint8Array ? { ...v, content: [...v.content] } : v;
    } catch (e) {
      return { thrown: { code: e.code, name: e.name } };
    }
  };
  for (const d of dirs) {
    const want = outcome(() => mem.readDir(d));
    assert.deepEqual(r.listed[d], Array.isArray(want) ? want.map(({ size, ...e }) => e) : want, `readDir ${d}`);
  }
  reads.forEach(([path, maxBytes], i) => assert.deepEqual(r.read[i], outcome(() => mem.readFile(path, maxBytes)), `readFile ${path} ${maxBytes}`));
  assert.equal(r.read[1].content.length, 6, 'reads maxBytes + 1');
});

test('discover with browserFs over OPFS finds the rules and skills', async () => {
  const edited = 'MARK-A-EDITED: package a now uses spaces.\n';
  const r = await page.evaluate((arg) => window.discoverInOpfs(arg), {
    files, mount: MOUNT, cwd: fx.paths.cwd, home: fx.paths.home, rulesFor: fx.paths.mainTs, skill: 'lint-fix',
    edit: ['repo/a/CLAUDE.md', edited],
  });

  const { rules, skills, repoRoot, diagnostics } = r.environment;
  assert.equal(repoRoot, fx.paths.root);
  for (const marker of fx.unconditional) assert.equal(mentions(rules, marker), 1, `${marker}: ${JSON.stringify(rules.map((x) => x.path))}`);
  const levels = rules.map((x) => levelOf(fx.paths, x.path));
  assert.deepEqual(levels, [...levels].sort((x, y) => x - y), 'home first, then root down to cwd');
  assert.deepEqual(skills.map((s) => s.name).sort(), Object.keys(fx.skills).sort());
  assert.ok(skills.every((s) => typeof s.description === 'string' && s.description.length > 0));
  assert.ok(Array.isArray(diagnostics));

  assert.deepEqual(r.attached.map((x) => x.path), [`${fx.paths.root}/.cursor/rules/z.mdc`]);
  assert.deepEqual(r.attachedAgain, []);
  assert.equal(r.loaded.name, 'lint-fix');
  assert.ok(r.loaded.body.includes(fx.skills['lint-fix']));
  assert.deepEqual(r.unknown, { code: 'unknown_skill', isError: true });

  assert.deepEqual(r.changes.rules.edited.map(pathOf), [`${fx.paths.a}/CLAUDE.md`]);
  assert.equal(mentions(r.changes.environment.rules, 'MARK-A-EDITED'), 1);
  const [s0, s1] = r.refreshCalls;
  const cost = s1.calls.readDir + s1.calls.readFile - s0.calls.readDir - s0.calls.readFile;
  assert.ok(cost >= 1 && cost <= 4, `refresh cost ${cost} host calls`);
  assert.ok(r.statsAfterDiscover.calls.readFile > 0);
});

test('the page logged no errors', () => {
  assert.deepEqual(consoleMessages.filter((m) => /^(error|warning|pageerror)/.test(m)), []);
});
