// The inspector page in headless Chromium, read as a person reads it: what it shows first, that
// every figure agrees with every other (each request's, selected one by one, adds up to the
// session's totals, under every provider, window and pruning choice), that an imported session
// opens as it was sent, that the layout holds from 900 to 1,600 px, and that input it cannot
// read, or can read only in part, says so at the top. Sessions are our own, written here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import * as cv from '../../pkg/node.mjs';
import { openPage } from './static-server.mjs';
import { longSession, nestedTree } from './long-session-fixture.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(root, 'pkg/cli.mjs');
const fixtures = join(root, 'tests/fixtures');
let server, browser, page, work;
const consoleMessages = [];

const view = async () => JSON.parse(await page.evaluate(() => document.body.dataset.view));

/** Does `action` and waits for the page to finish what it started (one more `data-done`). */
async function act(action, { ok = true } = {}) {
  const before = await page.evaluate(() => Number(document.body.dataset.done ?? 0));
  await action();
  await page.waitForFunction((n) => Number(document.body.dataset.done ?? 0) > n && document.body.dataset.state !== 'busy', before, { timeout: 60_000 });
  const s = await page.evaluate(() => document.body.dataset.state);
  if (ok) assert.equal(s, 'ready', `page state: ${s}`);
  return s;
}

async function walkDone() {
  await page.waitForFunction(() => document.body.dataset.walk === 'done', null, { timeout: 60_000 });
}

/** Loads files through the page's own input and waits for every request's figures. */
async function load(files) {
  await act(() => page.setInputFiles('#session-input', files));
  await walkDone();
}

function write(name, text) {
  const path = join(work, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'cv-inspector-view-'));
  ({ server, browser, page } = await openPage(chromium, root, '/www/index.html', consoleMessages));
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.waitForFunction(() => Number(document.body.dataset.done ?? 0) > 0, null, { timeout: 30_000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the first screen holds the timeline, the selected request\'s figures, tokens by source and the gauge', async () => {
  const log = longSession(cv, { rounds: 30 });
  await load(write('long.jsonl', log));
  const tops = await page.evaluate(() => Object.fromEntries(['timeline-chart', 'figures', 'by-source', 'gauge', 'slider'].map((id) => {
    const r = document.getElementById(id).getBoundingClientRect();
    return [id, Math.round(r.bottom)];
  })));
  for (const [id, bottom] of Object.entries(tops)) assert.ok(bottom > 0 && bottom <= 800, `#${id} ends at ${bottom}px, below the first screen`);
  // The workspace panel is folded until a folder is opened.
  assert.equal(await page.$eval('#workspace-panel', (d) => d.open), false);
  const v = await view();
  const requests = new cv.Timeline(log).length;
  assert.deepEqual([v.selected, v.requests, v.walk, v.asRecorded], [requests - 1, requests, 'done', false]);
  // A log that records no provider has nothing to show as recorded: the view stays a what-if.
  await act(() => page.evaluate(() => document.body.inspector.setOptions({ asRecorded: true })));
  assert.equal((await view()).asRecorded, false);
  assert.equal(await page.$eval('#as-recorded', (c) => c.disabled), true);
});

test('the chart: a click on a column selects it, the keys move the selection, a hover reads its figures out', async () => {
  const columns = JSON.parse(await page.$eval('#timeline-chart', (c) => c.dataset.columns));
  const box = await page.$eval('#timeline-chart', (c) => { const r = c.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; });
  // A column's middle, from the column the chart itself says is under a point.
  const xOf = (i) => page.evaluate(([i, n]) => {
    const c = document.getElementById('timeline-chart');
    const r = c.getBoundingClientRect();
    const left = Number(c.dataset.plotLeft);
    for (let x = r.left; x < r.right; x += 1) if (Math.floor((x - r.left - left) / ((r.width - left) / n)) === i) return x + 2;
    return null;
  }, [i, columns.length]);
  const x = await xOf(7);
  await act(() => page.mouse.click(x, box.y + box.height / 2));
  assert.equal((await view()).selected, 7);
  await page.mouse.move(await xOf(3), box.y + box.height / 2);
  const readout = await page.$eval('#chart-readout', (r) => ({ hidden: r.hidden, index: r.dataset.index, text: r.textContent }));
  assert.deepEqual([readout.hidden, readout.index], [false, '3']);
  assert.match(readout.text, new RegExp(`^request 4: ${columns[3].bytes.toLocaleString('en-US')} bytes, ${columns[3].tokens.toLocaleString('en-US')} tokens, ${columns[3].cacheRead.toLocaleString('en-US')} cached`));
  await page.focus('#timeline-chart');
  await act(() => page.keyboard.press('ArrowRight'));
  assert.equal((await view()).selected, 8);
  await act(() => page.keyboard.press('Home'));
  assert.equal((await view()).selected, 0);
  await act(() => page.keyboard.press('End'));
  assert.equal((await view()).selected, columns.length - 1);
  // The legend names every source the stack is drawn from, and the shared prefix.
  const legend = await page.$$eval('#timeline-legend [data-source]', (s) => s.map((x) => x.dataset.source));
  assert.deepEqual(legend, ['tools', 'system', 'prefix', 'user', 'assistant', 'reasoning', 'toolCalls', 'toolResults', 'reminders', 'images', 'summaries', 'shared']);
});

test('every request\'s figures, selected one by one, add up to the session\'s totals under every provider, window and pruning', async () => {
  await load(write('long-16.jsonl', longSession(cv, { rounds: 16 })));
  for (const provider of ['anthropic', 'openai-responses', 'gemini']) {
    for (const contextWindow of [200000, 8000]) {
      for (const pruning of ['default', 'eager', 'off']) {
        await act(() => page.evaluate((o) => document.body.inspector.setOptions(o), { provider, contextWindow, pruning }));
        await walkDone();
        const { totals, requests } = await view();
        // Each request selected in turn, as a host does (`select` shows it before it returns):
        // what `data-view` says and the figure the panel draws.
        const selected = await page.evaluate((n) => Array.from({ length: n }, (_, i) => {
          document.body.inspector.select(i);
          const v = JSON.parse(document.body.dataset.view);
          const figure = document.querySelector('#figures [data-figure="cache-read"]');
          const drawn = Number(figure.dataset.value);
          return { selected: v.selected, state: document.body.dataset.state, cacheRead: v.figures.cacheRead, cost: v.figures.cost, drawn, label: figure.querySelector('span').textContent };
        }), requests);
        assert.deepEqual(selected.map((x) => [x.selected, x.state, x.drawn]), selected.map((x, i) => [i, 'ready', x.cacheRead]));
        // A request the cache serves nothing of says why beside the figure.
        for (const [i, x] of selected.entries()) {
          if (x.cacheRead === 0) assert.match(x.label, i === 0 ? /^cached \(the first request\)$/ : /^cached \((prefix rewritten by \w+|below the cache minimum, or expired|its prefix changed)\)$/, `${i}`);
          else assert.equal(x.label, 'cached');
        }
        if (provider === 'gemini' && pruning === 'eager' && contextWindow === 8000) assert.ok(selected.some((x) => /rewritten by pruning/.test(x.label)), 'eager pruning at a small window rewrites a prefix Gemini then caches nothing of');
        const cacheRead = selected.reduce((n, x) => n + x.cacheRead, 0);
        const cost = selected.reduce((n, x) => n + x.cost, 0);
        const what = `${provider} ${contextWindow} ${pruning}`;
        assert.equal(cacheRead, totals.cacheRead, what);
        assert.ok(Math.abs(cost - totals.cost) < 1e-9, `${what}: ${cost} vs ${totals.cost}`);
        assert.equal(Number(await page.$eval('#session-cost', (p) => p.dataset.cacheRead)), totals.cacheRead, what);
        if (contextWindow === 200000) assert.ok(totals.cacheRead > 0, `${what}: the cache serves some of it`);
      }
    }
  }
});

test('a Codex rollout opens as recorded: at its provider and model, sending what was recorded', async () => {
  const file = join(fixtures, 'codex.jsonl');
  await act(() => page.evaluate(() => document.body.inspector.setOptions({ contextWindow: 2000 })));
  await load(file);
  const v = await view();
  assert.deepEqual([v.asRecorded, v.provider, v.model, v.pruning.cleared, v.pruning.trimmed], [true, 'openai-responses', 'gpt-5', 0, 0]);
  assert.equal(await page.$eval('#mode-label', (l) => l.textContent), 'as recorded');
  assert.equal(await page.$eval('#recorded-note', (n) => n.hidden), false);
  // Each token count has its line, with the figure the panel shows.
  const notes = await page.$$eval('#token-notes li[data-count]', (lis) => lis.map((li) => [li.dataset.count, Number(li.querySelector('b')?.textContent.replace(/,/g, ''))]));
  const noted = Object.fromEntries(notes);
  assert.deepEqual([noted.tokens, noted.context], [v.figures.tokens, v.figures.context], JSON.stringify(notes));
  assert.ok(notes.every(([, n]) => Number.isFinite(n) || Number.isNaN(n)), JSON.stringify(notes));
  // What the page shows is what the CLI builds as recorded, every request of it.
  const logPath = write('codex-log.jsonl', execFileSync(process.execPath, [cli, 'import', file], { encoding: 'utf8' }));
  for (let i = 0; i < v.requests; i++) {
    await act(() => page.evaluate((i) => document.body.inspector.select(i), i));
    const body = execFileSync(process.execPath, [cli, 'timeline', '--session', logPath, '--as-recorded', '--context-window', '2000', '--at', String(i)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trimEnd();
    const shown = await page.evaluate(() => document.body.inspector.view);
    assert.equal(shown.figures.bytes, Buffer.byteLength(body), `request ${i}`);
  }
  // A provider chosen is a what-if, labelled so, with what it changes against the recorded request.
  await act(() => page.selectOption('#provider', 'anthropic'));
  const w = await view();
  assert.deepEqual([w.asRecorded, w.provider], [false, 'anthropic']);
  assert.equal(await page.$eval('#mode-label', (l) => l.textContent), 'what if');
  assert.match(await page.$eval('#against-recorded', (n) => n.textContent), /openai-responses gpt-5 → anthropic /);
  await act(() => page.check('#as-recorded'));
  assert.equal((await view()).provider, 'openai-responses');
  await act(() => page.evaluate(() => document.body.inspector.setOptions({ contextWindow: 200000 })));
});

test('a Gemini CLI recording opens as recorded: at Gemini and the model of each answer, sending what was recorded', async () => {
  const file = join(fixtures, 'gemini-cli.json');
  await load(file);
  const v = await view();
  assert.deepEqual([v.asRecorded, v.provider, v.model, v.requests], [true, 'gemini', 'gemini-2.5-flash', 3]);
  assert.equal(await page.$eval('#mode-label', (l) => l.textContent), 'as recorded');
  const logPath = write('gemini-log.jsonl', execFileSync(process.execPath, [cli, 'import', file], { encoding: 'utf8' }));
  for (let i = 0; i < v.requests; i++) {
    await act(() => page.evaluate((i) => document.body.inspector.select(i), i));
    const body = execFileSync(process.execPath, [cli, 'timeline', '--session', logPath, '--as-recorded', '--at', String(i)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trimEnd();
    const shown = await page.evaluate(() => document.body.inspector.view);
    assert.equal(shown.figures.bytes, Buffer.byteLength(body), `request ${i}`);
    assert.ok(JSON.parse(body).contents.length > 0, `request ${i}`);
  }
});

test('a Cline task opens as recorded at the model of each answer, and a Roo Code task with its subtask', async () => {
  const file = join(fixtures, 'cline-task', 'cline.json');
  await load(file);
  const v = await view();
  assert.deepEqual([v.asRecorded, v.provider, v.model, v.requests], [true, 'anthropic', 'claude-sonnet-4-5', 3]);
  const logPath = write('cline-log.jsonl', execFileSync(process.execPath, [cli, 'import', file], { encoding: 'utf8' }));
  for (let i = 0; i < v.requests; i++) {
    await act(() => page.evaluate((i) => document.body.inspector.select(i), i));
    const body = execFileSync(process.execPath, [cli, 'timeline', '--session', logPath, '--as-recorded', '--at', String(i)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trimEnd();
    const shown = await page.evaluate(() => document.body.inspector.view);
    assert.equal(shown.figures.bytes, Buffer.byteLength(body), `request ${i}`);
  }
  // The second answer was GPT-5's: that request went to OpenAI as recorded.
  await act(() => page.evaluate(() => document.body.inspector.select(1)));
  const second = await view();
  assert.deepEqual([second.provider, second.model], ['openai-chat', 'gpt-5']);
  // A task's history with its chat, in either order: the chat is the task's, its requests anchored.
  const task = ['ui_messages.json', 'api_conversation_history.json'].map((f) => write(`cline/${f}`, readFileSync(join(fixtures, 'cline-task', 'truncated', f), 'utf8')));
  await load(task);
  const t = await view();
  assert.deepEqual([t.asRecorded, t.requests, t.subagents, t.reading.skipped], [true, 5, 0, 0]);
  const roo = ['roo-code-subtask.json', 'roo-code.json'].map((f) => write(`roo/${f}`, readFileSync(join(fixtures, 'cline-task', f), 'utf8')));
  await load(roo);
  assert.equal((await view()).subagents, 1);
});

test('an OpenCode export opens as recorded with its subagent, each request at the model that answered it', async () => {
  const files = ['ses-subagent.json', 'ses-main.json'].map((f) => write(`opencode/${f}`, readFileSync(join(fixtures, 'opencode', f), 'utf8')));
  await load(files);
  const v = await view();
  assert.deepEqual([v.asRecorded, v.subagents], [true, 1]);
  const logPath = write('opencode-log.jsonl', execFileSync(process.execPath, [cli, 'import', files[1]], { encoding: 'utf8' }));
  const seen = [];
  for (let i = 0; i < v.requests; i++) {
    await act(() => page.evaluate((i) => document.body.inspector.select(i), i));
    const body = execFileSync(process.execPath, [cli, 'timeline', '--session', logPath, '--as-recorded', '--at', String(i)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trimEnd();
    const shown = await view();
    assert.equal(shown.figures.bytes, Buffer.byteLength(body), `request ${i}`);
    seen.push(`${shown.provider} ${shown.model}`);
  }
  assert.deepEqual([...new Set(seen)], ['anthropic claude-sonnet-4-5', 'openai-responses gpt-5']);
});

/** Writes `text` at the end of the page's file `name` (made anew when `create`), as an agent
 * writes its session: in a real File System Access handle (the origin's own file system). */
const growFile = (name, text, create) => page.evaluate(async ({ name, text, create }) => {
  const dir = await navigator.storage.getDirectory();
  const handle = await dir.getFileHandle(name, { create });
  const size = create ? 0 : (await handle.getFile()).size;
  const writable = await handle.createWritable({ keepExistingData: !create });
  await writable.seek(size);
  await writable.write(text);
  await writable.close();
}, { name, text, create });

test('a file that grows under the page is followed: the timeline grows, the newest stays the newest, another selection stays', async () => {
  const lines = readFileSync(join(fixtures, 'copilot-cli.jsonl'), 'utf8').split(/(?<=\n)/);
  const grow = (text, { create = false } = {}) => growFile('events.jsonl', text, create);
  await grow(lines.slice(0, 12).join(''), { create: true });
  await act(() => page.evaluate(async () => {
    const dir = await navigator.storage.getDirectory();
    await document.body.inspector.follow(await dir.getFileHandle('events.jsonl'), { interval: 50 });
  }));
  const first = await view();
  assert.deepEqual([first.following, first.requests, first.selected, first.asRecorded], ['events.jsonl', 2, 1, true]);
  // The agent writes on: the newest request was selected, the newest is.
  await grow(lines.slice(12, 24).join(''));
  await page.waitForFunction(() => JSON.parse(document.body.dataset.view).requests === 3 && document.body.dataset.state === 'ready', null, { timeout: 30_000 });
  const second = await view();
  assert.equal(second.selected, 2);
  assert.notEqual(second.figures.context, first.figures.context, 'the gauge moved with the newest request');
  // A request chosen stays chosen while the file grows.
  await act(() => page.evaluate(() => document.body.inspector.select(0)));
  await grow(lines.slice(24).join(''));
  await page.waitForFunction(() => JSON.parse(document.body.dataset.view).requests === 4 && document.body.dataset.state === 'ready', null, { timeout: 30_000 });
  await walkDone();
  const third = await view();
  assert.equal(third.selected, 0);
  // What it shows is what a whole import of the file shows.
  const whole = write('followed-whole.jsonl', execFileSync(process.execPath, [cli, 'import', join(fixtures, 'copilot-cli.jsonl')], { encoding: 'utf8' }));
  const total = execFileSync(process.execPath, [cli, 'timeline', '--session', whole, '--as-recorded'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n').length;
  assert.equal(third.requests, total);
  await act(() => page.evaluate(() => document.body.inspector.select(3)));
  const body = execFileSync(process.execPath, [cli, 'timeline', '--session', whole, '--as-recorded', '--at', '3'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trimEnd();
  assert.equal((await view()).figures.bytes, Buffer.byteLength(body));
  await page.evaluate(() => document.body.inspector.unfollow());
  assert.equal((await view()).following, null);
});

test('a Claude Code file followed under the page shows its last turn while the file may still change it', async () => {
  const lines = readFileSync(join(fixtures, 'claude-code.jsonl'), 'utf8').split(/(?<=\n)/);
  const grow = (text, create) => growFile('claude.jsonl', text, create);
  const half = Math.ceil(lines.length / 2);
  await grow(lines.slice(0, half).join(''), true);
  await act(() => page.evaluate(async () => {
    const dir = await navigator.storage.getDirectory();
    await document.body.inspector.follow(await dir.getFileHandle('claude.jsonl'), { interval: 50 });
  }));
  // The agent writes the rest a line at a time; each message's blocks come a line each.
  for (const line of lines.slice(half)) await grow(line, false);
  const whole = write('followed-claude.jsonl', execFileSync(process.execPath, [cli, 'import', join(fixtures, 'claude-code.jsonl')], { encoding: 'utf8' }));
  const total = execFileSync(process.execPath, [cli, 'timeline', '--session', whole, '--as-recorded'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n').length;
  await page.waitForFunction((total) => JSON.parse(document.body.dataset.view).requests === total && document.body.dataset.state === 'ready', total, { timeout: 30_000 });
  await walkDone();
  // The newest request is the whole import's last: its last turn is shown though not settled.
  const shown = await view();
  assert.equal(shown.selected, total - 1);
  const body = execFileSync(process.execPath, [cli, 'timeline', '--session', whole, '--as-recorded', '--at', String(total - 1)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trimEnd();
  assert.equal(shown.figures.bytes, Buffer.byteLength(body));
  await page.evaluate(() => document.body.inspector.unfollow());
  const after = await view();
  assert.deepEqual([after.following, after.requests], [null, total], 'stopping settles what was pending: the session stays as shown');
});

test('no element overflows its column and nothing scrolls sideways at 900, 1280, 1600 and 1920 px', async () => {
  // A session whose subagents were given long tasks (twenty lines each), with their files.
  const dir = join(fixtures, 'claude-subagents');
  const task = Array.from({ length: 20 }, (_, i) => `Step ${i + 1}: read every module of the crate and list each unsafe block with the invariant it relies on, in full.`).join('\n');
  const main = readFileSync(join(dir, 's-main.jsonl'), 'utf8').replaceAll('"prompt":"Audit crate a"', `"prompt":${JSON.stringify(task)}`);
  const files = [write('tree/s-main.jsonl', main), ...['agent-aaa1.jsonl', 'agent-bbb2.jsonl'].map((f) => write(`tree/s-main/subagents/${f}`, readFileSync(join(dir, 's-main/subagents', f), 'utf8')))];
  await load(files);
  assert.equal((await view()).subagents, 2);
  for (const width of [900, 1280, 1600, 1920]) {
    await page.setViewportSize({ width, height: 800 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const problems = await page.evaluate(() => {
      const out = [];
      if (document.documentElement.scrollWidth > window.innerWidth) out.push(`page ${document.documentElement.scrollWidth}px wide in ${window.innerWidth}px`);
      for (const column of document.querySelectorAll('#overview, #request-panel, #session-panel, .inputs')) {
        const edge = column.getBoundingClientRect().right + 1;
        for (const node of column.querySelectorAll('*')) {
          // What a scrolling box holds is inside it, not out of the column.
          if (node.closest('.json') || node.getClientRects().length === 0) continue;
          const r = node.getBoundingClientRect();
          if (r.right > edge) out.push(`${column.id || column.className} > ${node.tagName.toLowerCase()}${node.id ? '#' + node.id : ''}.${node.className}: right ${Math.round(r.right)} > ${Math.round(edge)}`);
        }
      }
      return out;
    });
    assert.deepEqual(problems, [], `at ${width}px`);
    // One line per task: the row is no taller than a couple of lines of text.
    const heights = await page.$$eval('#subagents > li', (lis) => lis.map((li) => li.getBoundingClientRect().height));
    assert.ok(heights.every((h) => h < 60), `at ${width}px: rows ${heights.join(', ')}px tall`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  // The whole task is one click away, and the child's requests open with a real click.
  await page.click('#subagents > li[data-call="toolu_1"] summary');
  assert.equal(await page.$eval('#subagents > li[data-call="toolu_1"] .task-full', (p) => p.textContent), task);
  await act(() => page.click('#subagents > li[data-call="toolu_1"] button.open'));
  assert.deepEqual((({ session, depth }) => [session, depth])(await view()), ['s-main/agent-aaa1', 1]);
});

test('a subagent\'s subagent opens with real clicks, and the breadcrumb goes back up', async () => {
  const { parent, child, grandchild } = nestedTree(cv);
  // Given children out of order: each is found by the call it answered.
  await act(() => page.evaluate(([p, c, g]) => document.body.inspector.loadSession(p, 'p.jsonl', [g, c]), [parent, child, grandchild]));
  await walkDone();
  // What the row says a child cost is what the child's own session totals, opened.
  const row = await page.$eval('#subagents > li[data-call="s1"]', (li) => ({ ...li.dataset }));
  await act(() => page.click('#subagents > li[data-call="s1"] button.open'));
  await walkDone();
  const opened = await view();
  assert.deepEqual([opened.session, opened.depth, opened.subagents, opened.requests], ['p/s1', 1, 1, Number(row.requests)]);
  assert.ok(Number(row.dollars) > 0, `the row prices the child: ${row.dollars}`);
  // A request that costs a fraction of a cent says how much, not $0.0000.
  const shownCost = await page.$eval('#figures [data-figure="input-cost"] b', (b) => b.textContent);
  assert.ok(opened.figures.cost > 0 && opened.figures.cost < 0.01, String(opened.figures.cost));
  assert.ok(Math.abs(Number(shownCost.slice(1)) - opened.figures.cost) <= 0.05 * opened.figures.cost, `${shownCost} for ${opened.figures.cost}`);
  assert.ok(Math.abs(opened.totals.cost - Number(row.dollars)) < 1e-12, `${opened.totals.cost} vs ${row.dollars}`);
  await act(() => page.click('#subagents > li[data-call="g1"] button.open'));
  const deepest = await view();
  assert.deepEqual([deepest.session, deepest.depth, deepest.requests], ['p/s1/g1', 2, new cv.Timeline(grandchild).length]);
  assert.deepEqual(await page.$$eval('#crumbs a, #crumbs [aria-current]', (n) => n.map((x) => x.textContent)), ['p.jsonl', 'Check the first part', 'Check the first part\'s tests']);
  await act(() => page.click('#crumbs a >> nth=1'));
  assert.deepEqual((({ session, depth }) => [session, depth])(await view()), ['p/s1', 1]);
  await act(() => page.click('#crumbs a >> nth=0'));
  assert.deepEqual((({ session, depth }) => [session, depth])(await view()), ['p.jsonl', 0]);
});

test('a session cut mid-line says so at the top; a file it cannot read clears the last one and offers the formats', async () => {
  const text = readFileSync(join(fixtures, 'claude-code.jsonl'), 'utf8').trimEnd();
  const cut = write('cut.jsonl', text.slice(0, text.length - 40));
  await load(cut);
  const v = await view();
  assert.equal(v.reading.cut, true);
  const alert = await page.$eval('#alert', (a) => ({ hidden: a.hidden, text: a.textContent, top: a.getBoundingClientRect().top }));
  assert.equal(alert.hidden, false);
  assert.ok(alert.top >= 0 && alert.top < 200, `the banner at ${alert.top}px`);
  assert.match(alert.text, /cut\.jsonl is cut short: its last line \(line \d+\) is incomplete/);
  // A README is no session: what was shown is cleared, and the formats are offered.
  const readme = write('README.md', '# A project\n\nNothing to see here.\n');
  const s = await act(() => page.setInputFiles('#session-input', readme), { ok: false });
  assert.match(s, /^error: session README\.md: unknown_format: /);
  const after = await view();
  assert.deepEqual([after.session, after.requests, after.figures], [null, 0, null]);
  assert.equal(await page.$eval('#format-box', (b) => b.hidden), false);
  assert.match(await page.$eval('#alert', (a) => a.textContent), /README\.md: the format was not recognised/);
  assert.equal(await page.$eval('#figures', (f) => f.childElementCount), 0);
  // Read as one the page names, it goes through that format's importer (a README holds no request).
  await page.selectOption('#format', 'claude-code');
  await act(() => page.click('#format-load'));
  assert.equal((await view()).requests, 0);
  assert.match(await page.textContent('#status'), /no request to show/);
});

test('a session folder: the Claude Code session at its top and its subagents\' files under subagents/', async () => {
  const dir = join(fixtures, 'claude-subagents');
  const folder = join(work, 'project');
  const parent = readFileSync(join(dir, 's-main.jsonl'), 'utf8');
  const children = ['agent-aaa1.jsonl', 'agent-bbb2.jsonl'].map((f) => readFileSync(join(dir, 's-main/subagents', f), 'utf8'));
  write('project/s-main.jsonl', parent);
  children.forEach((text, i) => write(`project/s-main/subagents/agent-${['aaa1', 'bbb2'][i]}.jsonl`, text));
  // A file that is no session beside them is not taken for one.
  write('project/notes.md', '# notes\n');
  await act(() => page.setInputFiles('#session-folder-input', folder));
  await walkDone();
  const v = await view();
  assert.deepEqual([v.session, v.subagents], ['s-main.jsonl', 2]);
  const tree = await cv.importTree(parent, children);
  assert.deepEqual(await page.$$eval('#subagents > li', (lis) => lis.map((li) => li.dataset.requests)), tree.children.map((c) => String(new cv.Timeline(c.log).length)));
});

test("an OpenCode storage folder: its latest session that is no subagent's, with its messages, parts and subagent", async () => {
  // The data folder above storage/, as OpenCode keeps it; its project holds an older session too.
  const folder = join(work, 'opencode-data');
  cpSync(join(fixtures, 'opencode-storage'), join(folder, 'storage'), { recursive: true });
  await act(() => page.setInputFiles('#session-folder-input', folder));
  await walkDone();
  const v = await view();
  assert.deepEqual([v.session, v.subagents], ['storage/session/9a1c0e4f5b6a/ses_7a01c0ffee01AbCdEfGhIjKlMn.json', 1]);
  const tree = await cv.importTree(readFileSync(join(fixtures, 'opencode/ses-main.json'), 'utf8'), [readFileSync(join(fixtures, 'opencode/ses-subagent.json'), 'utf8')]);
  assert.equal(v.requests, new cv.Timeline(tree.parent.log).length);
  assert.deepEqual(await page.$$eval('#subagents > li', (lis) => lis.map((li) => li.dataset.requests)), tree.children.map((c) => String(new cv.Timeline(c.log).length)));
});

test('a compaction preview over the window says so; repeated repairs are one line with a count', async () => {
  // Where pruning took its part off (of counts the log's answers did not report), the gauge and
  // the pipeline give the same count before it.
  await load(write('long-estimated.jsonl', longSession(cv, { rounds: 20, usage: false })));
  await act(() => page.evaluate(() => document.body.inspector.setOptions({ provider: 'anthropic', contextWindow: 8000, pruning: 'eager' })));
  const gauge = await page.$eval('#gauge', (g) => ({ before: Number(g.dataset.before), used: Number(g.dataset.used) }));
  const pruned = await page.$eval('#pipeline li[data-kind="pruning"]', (li) => ({ before: Number(li.dataset.before), text: li.textContent }));
  assert.ok(gauge.before > gauge.used, JSON.stringify(gauge));
  assert.equal(pruned.before, gauge.before);
  assert.match(pruned.text, new RegExp(`the context before pruning: ${gauge.before.toLocaleString('en-US')} tokens \\(prune mark [\\d,]+\\), after: ${gauge.used.toLocaleString('en-US')}`));
  await load(write('long-compact.jsonl', longSession(cv, { rounds: 20 })));
  await act(() => page.evaluate(() => document.body.inspector.setOptions({ provider: 'anthropic', contextWindow: 8000, pruning: 'off' })));
  await act(() => page.click('#compact'));
  const c = await page.$eval('#compaction-summary', (p) => ({ ...p.dataset, text: p.textContent }));
  assert.equal(c.overWindow, 'true', c.text);
  assert.ok(Number(c.inputTokens) > Number(c.window), c.text);
  assert.match(c.text, /^Over the window: this summary request holds [\d,]+ tokens, more than the 8,000-token window/);
  // Three calls the log never answered: one repair line, counted.
  const session = cv.Session.create('repairs');
  const lines = [];
  const run = (command) => {
    const p = session.dispatch(command, '2026-12-04T10:00:00Z');
    for (const e of p.effects) if (e.type === 'persist') lines.push(...e.lines.filter((l) => lines.length === 0 || JSON.parse(l).format === undefined));
  };
  run({ type: 'userMessage', text: 'Read three files.' });
  run({ type: 'assistantResponse', toolCalls: ['a', 'b', 'c'].map((id) => ({ id, name: 'read', input: { path: `${id}.rs` } })) });
  run({ type: 'userMessage', text: 'Never mind, stop.' });
  session.free();
  await act(() => page.evaluate(() => document.body.inspector.setOptions({ contextWindow: 200000, pruning: 'default' })));
  await load(write('repairs.jsonl', lines.map((l) => l + '\n').join('')));
  const repairs = await page.$$eval('#pipeline li[data-kind="repair"]', (lis) => lis.map((li) => [li.dataset.repair, li.dataset.count, li.textContent]));
  assert.equal(repairs.length, 1, JSON.stringify(repairs));
  assert.deepEqual(repairs[0].slice(0, 2), ['synthetic_result', '3']);
  assert.match(repairs[0][2], /×3/);
});

test('the page logged no errors', () => {
  assert.deepEqual(consoleMessages.filter((m) => m.startsWith('error') || m.startsWith('pageerror')), []);
});
