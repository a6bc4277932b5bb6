// The <contextview-inspector> element as a web IDE embeds it: the package as `npm pack` packs it,
// installed in a consumer project, `contextview/inspector` bundled with esbuild for the browser,
// and the element fed a session, a workspace and what-if options in headless Chromium. Its
// figures must be the package's own, computed in Node from the same inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { build } from 'esbuild';

import * as cv from '../../pkg/node.mjs';
import { consumerProject, inChromium, indexHtml, root } from './page.mjs';

const log = readFileSync(join(root, 'examples/session.jsonl'), 'utf8');

const ENTRY = `import { memoryFs, ContextviewError } from 'contextview';
import wasmUrl from 'contextview/contextview_bg.wasm';
import lazyUrl from 'contextview/contextview_lazy_bg.wasm';
import { defineInspector } from 'contextview/inspector';

const Inspector = defineInspector({ wasm: wasmUrl, lazy: lazyUrl });
// Defining again gives the same class; another name registers the element under it too.
window.__defined = [defineInspector() === Inspector, customElements.get('contextview-inspector') === Inspector, defineInspector({ name: 'ide-inspector' }) === customElements.get('ide-inspector')];
const inspector = document.createElement('contextview-inspector');
// Used before it is ready (not yet in a document): refused, with the package's error.
try {
  inspector.loadSession('', 'early');
} catch (e) {
  window.__early = [e instanceof ContextviewError, e.name, e.code];
}
window.__ContextviewError = ContextviewError;
window.__states = [];
inspector.addEventListener('contextview-state', (e) => window.__states.push(e.detail.state));
document.body.append(inspector);
try {
  await inspector.ready;
  window.__inspector = inspector;
  window.__fs = memoryFs({ '/w/AGENTS.md': '# Rules\\nUse tabs.\\n', '/w/src/app.ts': 'export {};\\n' });
  document.body.dataset.status = 'ok';
} catch (e) {
  document.body.dataset.status = 'error: ' + (e && e.message);
}
`;

/** Waits until the element has finished one more action (and its walk, when asked). */
async function settle(page, action, { walk = false, arg } = {}) {
  const before = await page.evaluate(() => Number(window.__inspector.dataset.done ?? 0));
  await page.evaluate(action, arg);
  await page.waitForFunction(
    ([n, walk]) => {
      const el = window.__inspector;
      return Number(el.dataset.done ?? 0) > n && el.dataset.state !== 'busy' && (!walk || el.dataset.walk !== 'running' || el.dataset.state !== 'ready');
    },
    [before, walk],
    { timeout: 60_000 },
  );
  if (walk) await page.waitForFunction(() => window.__inspector.dataset.walk !== 'running', null, { timeout: 60_000 });
  return page.evaluate(() => window.__inspector.dataset.state);
}

test('the inspector element, bundled from the packed package, shows what the package computes', async () => {
  const dir = consumerProject('inspector-element');
  writeFileSync(join(dir, 'entry.mjs'), ENTRY);
  const result = await build({
    absWorkingDir: dir, entryPoints: ['entry.mjs'], bundle: true, platform: 'browser', format: 'esm', target: 'es2022',
    outdir: 'dist', loader: { '.wasm': 'file' }, logLevel: 'silent',
  });
  assert.deepEqual(result.errors, []);
  writeFileSync(join(dir, 'dist/index.html'), indexHtml('./entry.js'));
  await inChromium(join(dir, 'dist'), '/index.html', async (page, errors) => {
    await page.waitForFunction(() => document.body.dataset.status !== undefined && document.body.dataset.status !== 'loading', null, { timeout: 30_000 });
    assert.equal(await page.evaluate(() => document.body.dataset.status), 'ok', errors.join('\n'));
    assert.deepEqual(await page.evaluate(() => window.__defined), [true, true, true]);
    assert.deepEqual(await page.evaluate(() => window.__early), [true, 'ContextviewError', 'not_ready']);
    // Everything is inside the element's own root: the document has none of its ids.
    assert.equal(await page.evaluate(() => document.getElementById('figures')), null);
    const shadow = (fn, arg) => page.evaluate(([f, a]) => new Function('root', 'arg', `return (${f})(root, arg)`)(window.__inspector.shadowRoot, a), [fn.toString(), arg]);

    // A session: every request walked, each column's cost the package's forecast.
    assert.equal(await settle(page, (text) => window.__inspector.loadSession(text, 'example'), { walk: true, arg: log }), 'ready');
    const fed = { provider: 'anthropic', contextWindow: 200000 };
    const walked = [...new cv.Timeline(log).walk(fed)].map((w) => w.report);
    const columns = JSON.parse(await shadow((r) => r.getElementById('timeline-chart').dataset.columns));
    assert.equal(columns.length, walked.length);
    assert.deepEqual(columns.map((c) => [c.bytes, c.inputDollars, c.cacheRead]), walked.map((r) => [r.bytes, r.forecast.inputDollars, r.forecast.cacheRead]));
    const last = walked.at(-1);
    const figure = await shadow((r) => Number(r.querySelector('#figures [data-figure="input-cost"]').dataset.value));
    assert.equal(figure, last.forecast.inputDollars);
    // What it shows, as data: its `view` and `data-view` agree, and `select` moves the selection;
    // the selected request's figures and the totals are the walk's.
    const shownView = await page.evaluate(() => [window.__inspector.view, JSON.parse(window.__inspector.dataset.view)]);
    assert.deepEqual(shownView[0], shownView[1]);
    assert.deepEqual([shownView[0].asRecorded, shownView[0].selected, shownView[0].requests], [false, walked.length - 1, walked.length]);
    assert.equal(shownView[0].totals.cacheRead, walked.reduce((n, r) => n + r.forecast.cacheRead, 0));
    assert.equal(await settle(page, () => window.__inspector.select(0)), 'ready');
    assert.deepEqual((({ selected, figures }) => [selected, figures.cost])(await page.evaluate(() => window.__inspector.view)), [0, walked[0].forecast.inputDollars]);
    // The .wasm files the page fetched (esbuild named them by content).
    const fetched = () => page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname.replace(/-[A-Z0-9]+\.wasm$/, '.wasm')).filter((p) => p.endsWith('.wasm')));
    assert.deepEqual(await fetched(), ['/contextview_bg.wasm'], 'our own session shown: the first-load module alone');

    // A workspace, from the host's own file system: discovery fetches the lazy module, late.
    assert.equal(await settle(page, () => window.__inspector.openWorkspace(window.__fs, '/w')), 'ready');
    assert.deepEqual(await fetched(), ['/contextview_bg.wasm', '/contextview_lazy_bg.wasm']);
    const rules = await shadow((r) => [...r.querySelectorAll('#rules tbody tr')].map((tr) => tr.dataset.path));
    assert.deepEqual(rules, ['/w/AGENTS.md']);

    // What-if options from the host, then every pruning choice priced: the simulator's figures.
    assert.equal(await settle(page, () => { window.__inspector.options = { contextWindow: 4000, pruning: 'off' }; }, { walk: true }), 'ready');
    assert.deepEqual(await page.evaluate(() => window.__inspector.options), { provider: 'anthropic', contextWindow: 4000, pruning: { enabled: false } });
    assert.equal(await settle(page, () => window.__inspector.priceOptions()), 'ready');
    const priced = await shadow((r) => [...r.querySelectorAll('#prices tbody tr')].map((tr) => [tr.dataset.policy, Number(tr.dataset.dollars), Number(tr.dataset.over), tr.className]));
    const sim = cv.simulate({ log, options: { provider: 'anthropic', contextWindow: 4000 }, policies: [
      { name: 'default', options: {} }, { name: 'eager', options: { pruning: { stepTurns: 1, keepSteps: 2, batchSteps: 1, hardClearSteps: 2 } } }, { name: 'off', options: { pruning: { enabled: false } } },
    ] });
    assert.deepEqual(priced, sim.policies.map((p) => [p.name, p.totals.dollars, p.totals.overWindow, p.name === 'off' ? 'selected' : '']));
    assert.ok(sim.policies[1].totals.dollars < sim.policies[2].totals.dollars, 'eager pruning costs less than none on this session');

    // A bad option is the host's mistake: thrown as the package's error, naming the policies
    // there are, and nothing changed.
    const refused = await page.evaluate(() => {
      try {
        window.__inspector.options = { provider: 'gemini', pruning: 'sometimes' };
        return null;
      } catch (e) {
        return { ours: e instanceof window.__ContextviewError, code: e.code, message: e.message, options: window.__inspector.options };
      }
    });
    assert.deepEqual(refused, {
      ours: true, code: 'invalid_argument',
      message: 'unknown policy `sometimes`: the policies known by name are `default`, `eager`, `off`',
      options: { provider: 'anthropic', contextWindow: 4000, pruning: { enabled: false } },
    });
    const states = await page.evaluate(() => window.__states);
    assert.ok(states.includes('busy') && states.at(-1) === 'ready', states.join(' '));
    assert.deepEqual(errors, []);
  });
});

test('the inspector element whose lazy module cannot be fetched: discovery and imports show the typed error, our own sessions still show', async () => {
  const dir = consumerProject('inspector-element-offline');
  writeFileSync(join(dir, 'entry.mjs'), ENTRY.replace('defineInspector({ wasm: wasmUrl, lazy: lazyUrl })', "defineInspector({ wasm: wasmUrl, lazy: '/nowhere/contextview_lazy_bg.wasm' })"));
  const result = await build({
    absWorkingDir: dir, entryPoints: ['entry.mjs'], bundle: true, platform: 'browser', format: 'esm', target: 'es2022',
    outdir: 'dist', loader: { '.wasm': 'file' }, logLevel: 'silent',
  });
  assert.deepEqual(result.errors, []);
  writeFileSync(join(dir, 'dist/index.html'), indexHtml('./entry.js'));
  const pi = readFileSync(join(root, 'tests/fixtures/pi.jsonl'), 'utf8');
  await inChromium(join(dir, 'dist'), '/index.html', async (page, errors) => {
    await page.waitForFunction(() => document.body.dataset.status !== undefined && document.body.dataset.status !== 'loading', null, { timeout: 30_000 });
    assert.equal(await page.evaluate(() => document.body.dataset.status), 'ok', errors.join('\n'));
    const state = await settle(page, () => window.__inspector.openWorkspace(window.__fs, '/w'));
    assert.match(state, /^error: discovery: lazy_module_unavailable: the lazy module \(importers and discovery\) could not be loaded: /);
    assert.equal(await settle(page, (text) => window.__inspector.loadSession(text, 'example'), { arg: log }), 'ready');
    assert.match(await settle(page, (text) => window.__inspector.loadSession(text, 'pi.jsonl'), { arg: pi }), /^error: session pi\.jsonl: lazy_module_unavailable: /);
    assert.deepEqual(errors, []);
  });
});

/** The README's ```ts browser block (the element's example). */
function readmeBlock() {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```ts browser\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  assert.equal(blocks.length, 1);
  return blocks[0];
}

test("the README's inspector example type-checks and runs as written in Chromium", async () => {
  const dir = consumerProject('inspector-readme');
  writeFileSync(join(dir, 'example.ts'), readmeBlock());
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, target: 'es2022', module: 'es2022', moduleResolution: 'bundler', outDir: 'out', lib: ['es2022', 'dom'], types: [] },
    files: ['example.ts'],
  }));
  const tsc = spawnSync(join(root, 'node_modules/.bin/tsc'), ['-p', dir], { encoding: 'utf8' });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  // Served as it is, the package's modules mapped by name (no bundler moves the .wasm).
  writeFileSync(join(dir, 'session.jsonl'), log);
  const imports = { contextview: '/node_modules/contextview/browser.mjs', 'contextview/inspector': '/node_modules/contextview/inspector.mjs' };
  writeFileSync(join(dir, 'index.html'), `<!doctype html><meta charset="utf-8"><script type="importmap">${JSON.stringify({ imports })}</script><body><script type="module" src="/out/example.js"></script></body>`);
  await inChromium(dir, '/index.html', async (page, errors) => {
    const priced = () => document.querySelector('contextview-inspector')?.shadowRoot?.querySelectorAll('#prices tbody tr').length === 3;
    await page.waitForFunction(priced, null, { timeout: 60_000 }).catch(() => assert.fail(`not priced: ${errors.join('\n')}`));
    const shown = await page.evaluate(() => {
      const el = document.querySelector('contextview-inspector');
      const r = el.shadowRoot;
      return {
        state: el.dataset.state,
        provider: r.getElementById('provider').value,
        selected: r.querySelector('#prices tr.selected')?.dataset.policy,
        rules: [...r.querySelectorAll('#rules tbody tr')].map((tr) => tr.dataset.path),
        requests: Number(r.getElementById('session-summary').dataset.requests),
      };
    });
    assert.deepEqual(shown, { state: 'ready', provider: 'openai-responses', selected: 'eager', rules: ['/w/AGENTS.md'], requests: new cv.Timeline(log).length });
    assert.deepEqual(errors, []);
  });
});
