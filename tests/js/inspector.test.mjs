// The inspector page (www/index.html) in headless Chromium: a workspace folder and session files
// go in through the page's own inputs, and what the page shows must equal what the CLI reports
// for the same inputs; the timeline and the what-if controls must change it; it must load again
// with the network gone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import * as cv from '../../pkg/node.mjs';
import { openPage } from './static-server.mjs';
import { commonPrefix } from './payload-checks.mjs';
import { geminiSession, byHand, GEMINI_3_PRO } from './simulate-fixture.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(root, 'pkg/cli.mjs');
const exampleLog = join(root, 'examples/session.jsonl');
const claudeFixture = join(root, 'tests/fixtures/claude-code.jsonl');
let server, browser, page;
const consoleMessages = [];
let work, project, emptyHome, projectFiles;

/** Our workspace: a repository with rules of every activation and two skills of one name. */
function writeProject(dir) {
  const files = {
    '.git/HEAD': 'ref: refs/heads/main\n',
    'AGENTS.md': '# Shop\nRun `make check` before you say a change is done.\n',
    'CLAUDE.md': 'Read the style guide: @docs/style.md\n',
    'docs/style.md': 'Two spaces, no tabs. Prices are integers in cents.\n',
    '.cursor/rules/typescript.mdc': '---\ndescription: TypeScript conventions\nglobs: "**/*.ts"\nalwaysApply: false\n---\nPrefer `unknown` to `any`.\n',
    '.cursor/rules/migrations.mdc': '---\ndescription: How to write a database migration\nalwaysApply: false\n---\nOne migration per change.\n',
    'web/AGENTS.md': 'The web app uses plain modules, no framework.\n',
    'web/app.ts': 'export const total = (cents: number[]) => cents.reduce((a, b) => a + b, 0);\n',
    '.claude/skills/deploy/SKILL.md': '---\nname: deploy\ndescription: Deploy the shop to staging.\n---\nRun the deploy script.\n',
    '.agents/skills/deploy/SKILL.md': '---\nname: deploy\ndescription: An older deploy.\n---\nOld steps.\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return files;
}

function runCli(args) {
  return execFileSync(process.execPath, [cli, ...args], { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The CLI's report for request `at` of a log, with build options as flags. */
function cliRequest(log, at, flags) {
  const reportPath = join(work, `report-${Math.random().toString(36).slice(2)}.json`);
  const body = runCli(['timeline', '--session', log, '--at', String(at), '--report', reportPath, ...flags]).trimEnd();
  return { body, report: JSON.parse(readFileSync(reportPath, 'utf8')) };
}

function cliTimeline(log, flags) {
  return runCli(['timeline', '--session', log, ...flags]).trim().split('\n').map((l) => JSON.parse(l));
}

/** Does `action` and waits for the page to finish what it started (one more `data-done`). */
async function act(action) {
  const before = await page.evaluate(() => Number(document.body.dataset.done ?? 0));
  await action();
  await page.waitForFunction((n) => Number(document.body.dataset.done ?? 0) > n && document.body.dataset.state !== 'busy', before, { timeout: 30_000 });
  const s = await page.evaluate(() => document.body.dataset.state);
  assert.equal(s, 'ready', `page state: ${s}`);
}

/** Waits for a freshly loaded page to be ready. */
async function loaded() {
  await page.waitForFunction(() => Number(document.body.dataset.done ?? 0) > 0, null, { timeout: 30_000 });
  const s = await page.evaluate(() => document.body.dataset.state);
  assert.equal(s, 'ready', `page state: ${s}`);
}

async function walkDone() {
  await page.waitForFunction(() => document.body.dataset.walk === 'done', null, { timeout: 60_000 });
}

/** What the page shows for the selected request. */
function shown() {
  return page.evaluate(() => {
    const fig = (id) => Number(document.querySelector(`#figures [data-figure="${id}"]`)?.dataset.value);
    const sources = {};
    const bytes = {};
    for (const tr of document.querySelectorAll('#sources tbody tr')) {
      sources[tr.dataset.source] = Number(tr.dataset.tokens);
      bytes[tr.dataset.source] = Number(tr.dataset.bytes);
    }
    const bar = [...document.querySelectorAll('#by-source > div')].map((d) => d.dataset.source);
    return {
      bytes: fig('bytes'), tokens: fig('tokens'), items: fig('items'), context: fig('context'),
      cacheRead: fig('cache-read'), inputCost: fig('input-cost'),
      sources, sourceBytes: bytes, bar,
      shared: Number(document.getElementById('prefix').dataset.shared),
      slider: Number(document.getElementById('slider').value),
      max: Number(document.getElementById('slider').max),
      gaugeSize: Number(document.getElementById('gauge').dataset.size),
      gaugeAdjusted: Number(document.getElementById('gauge').dataset.adjusted),
      gaugeText: document.getElementById('gauge-text').textContent,
      title: document.getElementById('request-title').textContent,
      firstEntry: document.querySelector('#body details')?.textContent.slice(0, 0),
      diff: [...document.querySelectorAll('#diff li[data-kind]')].map((li) => li.dataset.kind),
    };
  });
}

function assertMatches(view, report, what) {
  assert.equal(view.bytes, report.bytes, `${what}: bytes`);
  assert.equal(view.tokens, report.tokens.request, `${what}: tokens`);
  assert.equal(view.items, report.items, `${what}: items`);
  assert.equal(view.context, report.tokens.context.used, `${what}: context tokens`);
  assert.equal(view.gaugeAdjusted, report.tokens.context.adjustedTokens, `${what}: what the view left out of the count`);
  assert.deepEqual([view.cacheRead, view.inputCost], [report.forecast.cacheRead, report.forecast.inputDollars], `${what}: forecast`);
  assert.deepEqual(view.sources, report.tokens.bySource, `${what}: tokens by source`);
  assert.deepEqual(view.sourceBytes, report.sources, `${what}: bytes by source`);
  // The bar draws every source that has tokens, and only those.
  assert.deepEqual(view.bar.sort(), Object.keys(report.tokens.bySource).filter((k) => report.tokens.bySource[k] > 0).sort(), `${what}: bar`);
}


before(async () => {
  work = mkdtempSync(join(tmpdir(), 'cv-inspector-'));
  project = join(work, 'shop');
  emptyHome = join(work, 'home');
  mkdirSync(emptyHome);
  projectFiles = writeProject(project);
  ({ server, browser, page } = await openPage(chromium, root, '/www/index.html', consoleMessages));
  await loaded();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('a workspace folder: rules in load order, skills with shadowing, and the rules a path attaches, as the CLI finds them', async () => {
  await act(() => page.setInputFiles('#folder-input', project));
  const env = JSON.parse(runCli(['discover', '--cwd', project, '--home', emptyHome]));
  const rel = (p) => p.slice(p.indexOf('/shop/') + '/shop/'.length);
  const rows = await page.$$eval('#rules tbody tr', (trs) => trs.map((tr) => ({ path: tr.dataset.path, group: tr.dataset.group, source: tr.dataset.source, bytes: Number(tr.dataset.bytes) })));
  const expected = [['loaded', env.rules], ['conditional', env.conditional], ['requestable', env.requestable]]
    .flatMap(([group, rules]) => rules.map((r) => ({ path: rel(r.path), group, source: r.source, bytes: r.bytes })));
  assert.deepEqual(rows.map((r) => ({ ...r, path: rel(r.path) })), expected);
  // The fixture's own facts, so the comparison cannot pass on two empty lists.
  assert.deepEqual(expected.map((r) => `${r.group} ${r.path}`), [
    'loaded AGENTS.md', 'loaded CLAUDE.md', 'loaded docs/style.md',
    'conditional .cursor/rules/typescript.mdc', 'requestable .cursor/rules/migrations.mdc',
  ]);
  const skills = await page.$$eval('#skills tbody tr[data-name]', (trs) => trs.map((tr) => `${tr.dataset.name} ${tr.dataset.source}`));
  assert.deepEqual(skills, env.skills.map((s) => `${s.name} ${s.source}`));
  const shadowed = await page.$$eval('#skills tbody tr[data-shadowed]', (trs) => trs.map((tr) => tr.dataset.shadowed));
  assert.deepEqual(shadowed.map(rel), env.diagnostics.filter((d) => d.code === 'skills.shadowed').map((d) => rel(d.path)));
  assert.equal(shadowed.length, 1);

  // The path box offers the folder's files (not .git's).
  const offered = await page.$$eval('#workspace-files option', (os) => os.map((o) => o.value));
  assert.ok(offered.includes('web/app.ts') && offered.includes('AGENTS.md'), offered.join(', '));
  assert.ok(!offered.some((p) => p.startsWith('.git/')), offered.join(', '));
  // Asking twice shows the same rules (looking attaches nothing).
  for (let i = 0; i < 2; i++) {
    await page.fill('#path-query', 'web/app.ts');
    await act(() => page.press('#path-query', 'Enter'));
    const attached = await page.$$eval('#path-rules li[data-path]', (lis) => lis.map((li) => li.dataset.path));
    assert.deepEqual(attached.map(rel), ['.cursor/rules/typescript.mdc', 'web/AGENTS.md']);
  }
  const ws = await cv.discover({ cwd: project, home: emptyHome }, cv.nodeFs());
  assert.deepEqual((await ws.rulesMatching(join(project, 'web/app.ts'))).map((r) => rel(r.path)), ['.cursor/rules/typescript.mdc', 'web/AGENTS.md']);
  ws.free();
});

test('a session: the request at every point of the timeline equals the CLI\'s, with the prefix it shares with the one before', async () => {
  await act(() => page.setInputFiles('#session-input', exampleLog));
  await walkDone();
  const flags = ['--provider', 'anthropic', '--context-window', '200000'];
  const lines = cliTimeline(exampleLog, flags);
  let view = await shown();
  assert.equal(view.max + 1, lines.length, 'one slider position per request');
  assert.ok(lines.length >= 3, `the example session sent ${lines.length} requests`);
  const last = lines.length - 1;
  assert.equal(view.slider, last, 'the page opens on the last request');
  const lastReport = cliRequest(exampleLog, last, flags).report;
  assertMatches(view, lastReport, 'last request');
  assert.equal(view.shared, lines[last].sharedBytes);
  // The repair the last request needed (a call left without its result) is listed.
  const repairs = await page.$$eval('#pipeline li[data-kind="repair"]', (lis) => lis.map((li) => li.textContent));
  assert.equal(repairs.length, lastReport.repairs.length);
  assert.ok(repairs.length > 0 && repairs.every((t, i) => t.includes(lastReport.repairs[i].kind)), repairs.join('; '));

  // The shared prefix is what the two bodies really share, counted here on the bytes.
  const timeline = new cv.Timeline(readFileSync(exampleLog, 'utf8'));
  const body = (i) => cv.buildRequestString({ log: timeline.logAt(i), provider: 'anthropic', contextWindow: 200000 }).body;
  assert.equal(view.shared, commonPrefix(body(last - 1), body(last)));

  // Step back with the keyboard: the page shows the request before, as the CLI builds it.
  await page.focus('#slider');
  await act(() => page.keyboard.press('ArrowLeft'));
  view = await shown();
  assert.equal(view.slider, last - 1);
  assertMatches(view, cliRequest(exampleLog, last - 1, flags).report, 'request before the last');
  assert.equal(view.shared, lines[last - 1].sharedBytes);
  assert.equal(view.shared, commonPrefix(body(last - 2), body(last - 1)));
  assert.ok(view.diff.length > 0 && view.diff.every((k) => k === 'added'), `an agent step only adds: ${view.diff}`);

  // Against any earlier request: one in the middle. The entries the two share from the start
  // are counted here on the bodies; every entry after them is listed.
  const middle = Math.floor((last - 1) / 2);
  assert.ok(middle >= 1, 'a request between the first and this one');
  await page.fill('#compare', String(middle + 1));
  await act(() => page.dispatchEvent('#compare', 'change'));
  const against = await page.$eval('#diff', (ul) => ({ against: ul.dataset.against, common: Number(ul.dataset.common), n: ul.querySelectorAll('li[data-kind]').length }));
  const older = JSON.parse(body(middle)).messages.map((m) => JSON.stringify(m));
  const these = JSON.parse(body(last - 1)).messages.map((m) => JSON.stringify(m));
  let common = 0;
  while (common < older.length && common < these.length && older[common] === these[common]) common++;
  assert.ok(common > 1, `the two share ${common} entries`);
  assert.equal(against.against, String(middle + 1));
  assert.deepEqual([against.common, against.n], [common, these.length - common], JSON.stringify(against));
  await page.fill('#compare', '');
  await act(() => page.dispatchEvent('#compare', 'change'));

  // The timeline's figures are the CLI's, request by request, column by column.
  const walked = await page.evaluate(() => document.body.dataset.walk);
  assert.equal(walked, 'done');
  const columns = JSON.parse(await page.$eval('#timeline-chart', (c) => c.dataset.columns));
  assert.deepEqual(columns.map((c) => [c.bytes, c.shared]), lines.map((l) => [l.bytes, l.sharedBytes]));
  // What each request's cache use and input cost are: the simulator's, from the CLI.
  const sim = JSON.parse(runCli(['simulate', '--session', exampleLog, ...flags]));
  const simulated = sim.policies[0].requests;
  assert.deepEqual(columns.map((c) => c.cacheRead), simulated.map((q) => q.read));
  const inputDollars = (q) => q.dollars - (q.output * sim.costModel.prices.output) / 1e6;
  columns.forEach((c, i) => assert.ok(Math.abs(c.inputDollars - inputDollars(simulated[i])) < 1e-12, `request ${i}: ${c.inputDollars} vs ${inputDollars(simulated[i])}`));
  const total = await page.$eval('#session-cost', (p) => Number(p.dataset.dollars));
  assert.ok(Math.abs(total - simulated.reduce((n, q) => n + inputDollars(q), 0)) < 1e-12);
  await page.focus('#slider');
  await act(() => page.keyboard.press('Home'));
  view = await shown();
  assert.equal(view.slider, 0);
  assert.equal(view.shared, 0, 'the first request shares nothing');
  assertMatches(view, cliRequest(exampleLog, 0, flags).report, 'first request');
});

test('what if: the provider, the window and pruning change the request, its gauge and its thresholds', async () => {
  await page.focus('#slider');
  await act(() => page.keyboard.press('End'));
  const before = await shown();
  await act(() => page.selectOption('#provider', 'openai-responses'));
  let view = await shown();
  const last = view.max;
  assertMatches(view, cliRequest(exampleLog, last, ['--provider', 'openai-responses', '--context-window', '200000']).report, 'openai-responses');
  assert.notEqual(view.bytes, before.bytes, 'another provider, another body');

  // Another model: the body names it, the figures are the CLI's for that model.
  await page.fill('#model', 'gpt-5-mini');
  await act(() => page.dispatchEvent('#model', 'change'));
  view = await shown();
  assertMatches(view, cliRequest(exampleLog, last, ['--provider', 'openai-responses', '--model', 'gpt-5-mini', '--context-window', '200000']).report, 'model gpt-5-mini');
  assert.match(view.title, /gpt-5-mini/);
  assert.equal(await page.$eval('#body', (b) => b.textContent.includes('"gpt-5-mini"')), true);
  await page.fill('#model', '');
  await act(() => page.dispatchEvent('#model', 'change'));

  await page.fill('#window', '8000');
  await act(() => page.dispatchEvent('#window', 'change'));
  view = await shown();
  const { report } = cliRequest(exampleLog, last, ['--provider', 'openai-responses', '--context-window', '8000']);
  assertMatches(view, report, 'window 8000');
  assert.equal(view.gaugeSize, 8000);
  assert.ok(report.tokens.context.pruneAt < 8000 && view.gaugeText.includes(report.tokens.context.pruneAt.toLocaleString('en-US')), view.gaugeText);
  await walkDone();

  // Eager pruning (the package's policy of that name, written out here) clears old results: a
  // smaller body, and the cache figures say the request rewrote what the one before sent,
  // because of pruning.
  assert.deepEqual(await page.$$eval('#pruning option', (os) => os.map((o) => o.value)), ['default', 'eager', 'off']);
  await act(() => page.selectOption('#pruning', 'eager'));
  view = await shown();
  const eager = new cv.Timeline(readFileSync(exampleLog, 'utf8'))
    .buildAt(last, { provider: 'openai-responses', contextWindow: 8000, pruning: { stepTurns: 1, keepSteps: 2, batchSteps: 1, hardClearSteps: 2 } }).report;
  assertMatches(view, eager, 'eager pruning');
  assert.ok(eager.pruning.cleared > 0 && view.bytes < report.bytes, 'pruning cleared results');
  // The gauge says what the count is made of, as the report does.
  const c = eager.tokens.context;
  assert.match(view.gaugeText, new RegExp(`${c.anchorTokens.toLocaleString('en-US')} reported by the provider, ${c.estimatedTokens.toLocaleString('en-US')} estimated`), view.gaugeText);
  assert.equal(view.gaugeText.includes('left out by this view'), c.adjustedTokens < 0, view.gaugeText);
  assert.equal(view.shared, eager.prefix.sharedBytes);
  assert.equal(eager.prefix.cause, 'pruning');
  const rewritten = await page.$eval('#prefix [data-figure="rewritten"]', (f) => ({ value: Number(f.dataset.value), text: f.textContent }));
  assert.equal(rewritten.value, eager.prefix.rewrittenBytes);
  assert.match(rewritten.text, /by pruning/);
  const cleared = await page.$eval('#pipeline [data-kind="pruning"]', (li) => Number(li.dataset.cleared));
  assert.equal(cleared, eager.pruning.cleared);
  await act(() => page.selectOption('#pruning', 'default'));

  // Compaction prepared at this point: the summarising request the session would send. With
  // the default recent budget the example is too small to compact, and the page says so.
  const prepare = async (keep) => {
    await page.fill('#keep-recent', keep);
    await act(() => page.click('#compact'));
    return page.$eval('#compaction-summary', (p) => ({ summarised: Number(p.dataset.summarised), text: p.textContent }));
  };
  const none = await prepare('');
  assert.equal(none.summarised, 0);
  assert.match(none.text, /nothing_to_compact/);
  const shownCompaction = await prepare('100');
  const session = cv.Session.fromLog(new cv.Timeline(readFileSync(exampleLog, 'utf8')).logAt(last));
  const opts = { provider: 'openai-responses', contextWindow: 8000 };
  session.buildBytes(opts);
  const expected = session.dispatch({ type: 'prepareCompaction', options: { build: opts, keepRecentTokens: 100 } });
  session.free();
  assert.equal(expected.error, undefined);
  assert.equal(shownCompaction.summarised, expected.reply.summarised);
  assert.ok(shownCompaction.summarised > 0);
  assert.ok(shownCompaction.text.includes(`${expected.reply.kept} kept verbatim`), shownCompaction.text);
  const shownBytes = await page.$eval('#compaction-body', (b) => Number(b.dataset.bytes));
  assert.equal(shownBytes, Buffer.byteLength(expected.reply.body), 'the summary request shown is the package\'s');
  await act(() => page.selectOption('#provider', 'anthropic'));
  await page.fill('#window', '200000');
  await act(() => page.dispatchEvent('#window', 'change'));
});

test('what if the session had started with the workspace\'s prompt: the system prompt and the rules are in every request', async () => {
  const at = await shown();
  if (at.slider !== at.max) {
    await page.focus('#slider');
    await act(() => page.keyboard.press('End'));
  }
  const without = await shown();
  assert.equal(without.slider, without.max);
  assert.equal(without.sources.system, 0);
  assert.equal(without.sources.prefix, 0);
  await act(() => page.check('#use-heads'));
  const withHeads = await shown();
  // The same heads, rendered here from the same files discovered in memory at the page's /shop.
  const mem = cv.memoryFs(Object.fromEntries(Object.entries(projectFiles).map(([rel, text]) => [`/shop/${rel}`, text])));
  const ws = await cv.discover({ cwd: '/shop' }, mem);
  const heads = cv.renderHeads({ cwd: '/shop', rules: ws.environment.rules, skills: ws.environment.skillListing });
  ws.free();
  assert.match(heads.firstUserPrefix, /make check/);
  const lines = readFileSync(exampleLog, 'utf8').split('\n');
  const record = JSON.stringify({ seq: 0, ts: JSON.parse(lines[1]).ts, event: { kind: 'prompt_head_snapshot', system: heads.system, firstUserPrefix: heads.firstUserPrefix } });
  const timeline = new cv.Timeline([lines[0], record, ...lines.slice(1)].join('\n'));
  const expected = timeline.buildAt(timeline.length - 1, { provider: 'anthropic', contextWindow: 200000 }).report;
  assertMatches(withHeads, expected, 'with the workspace heads');
  assert.ok(withHeads.sources.system > 0 && withHeads.sources.prefix > 0);
  assert.equal(withHeads.bytes - without.bytes > 0, true);
  await walkDone();
  // In every request, not only the last: each column is the package's walk with the heads.
  const columns = JSON.parse(await page.$eval('#timeline-chart', (c) => c.dataset.columns));
  const walked = [...timeline.walk({ provider: 'anthropic', contextWindow: 200000 })].map(({ report }) => report);
  assert.equal(columns.length, walked.length);
  columns.forEach((c, i) => {
    assert.deepEqual([c.bytes, c.sources], [walked[i].bytes, walked[i].sources], `request ${i}`);
    assert.ok(c.sources.system > 0 && c.sources.prefix > 0, `request ${i} carries the heads`);
  });
  await act(() => page.uncheck('#use-heads'));
  assert.equal((await shown()).bytes, without.bytes);
});

test('the head budget: the workspace panel shows how its sections share it, and what gives way reaches every request', async () => {
  const mem = cv.memoryFs(Object.fromEntries(Object.entries(projectFiles).map(([rel, text]) => [`/shop/${rel}`, text])));
  const ws = await cv.discover({ cwd: '/shop' }, mem);
  const context = { cwd: '/shop', rules: ws.environment.rules, skills: ws.environment.skillListing };
  ws.free();
  const heads = (tokens, sections = {}) => cv.renderHeads({ ...context, headBudget: { ...(tokens === undefined ? {} : { tokens }), window: 200000, sections } });
  const expected = (tokens, sections) => heads(tokens, sections).allocation.sections.map((s) => [s.section, s.granted, s.used, (s.cuts ?? []).length]);
  const rows = () => page.$$eval('#head-allocation tbody tr', (trs) => trs.map((tr) => [tr.dataset.section, Number(tr.dataset.granted), Number(tr.dataset.used), Number(tr.dataset.cuts)]));
  // Without a budget of its own: a quarter of the window, everything whole.
  assert.deepEqual(await rows(), expected(undefined));
  assert.equal(await page.$eval('#head-allocation', (t) => Number(t.dataset.budget)), 50000);
  const need = Object.fromEntries(heads(undefined).allocation.sections.map((s) => [s.section, s.need]));
  assert.ok(need.rules > 0 && need.skills > 0, JSON.stringify(need));
  // Room for the user info and the rules and 10 tokens: the skills listing (priority 40) gives way.
  const budget = need.userInfo + need.rules + 10;
  await page.fill('#head-budget', String(budget));
  await act(() => page.dispatchEvent('#head-budget', 'change'));
  assert.deepEqual(await rows(), expected(budget));
  const cutSkills = (await rows()).find(([s]) => s === 'skills');
  assert.ok(cutSkills[3] > 0 && cutSkills[1] === 10, `skills: ${cutSkills}`);
  // Skills raised above the rules: now the rules give way, the listing is whole.
  await act(() => page.fill('#head-allocation input[data-priority="skills"]', '90').then(() => page.dispatchEvent('#head-allocation input[data-priority="skills"]', 'change')));
  assert.deepEqual(await rows(), expected(budget, { skills: { priority: 90 } }));
  const after = Object.fromEntries((await rows()).map(([s, granted, , cuts]) => [s, { granted, cuts }]));
  assert.deepEqual([after.skills.granted, after.skills.cuts], [need.skills, 0]);
  assert.ok(after.rules.cuts > 0);
  // Every request starts with the prefix as cut: the package's own walk with those heads.
  await act(() => page.check('#use-heads'));
  await walkDone();
  const cut = heads(budget, { skills: { priority: 90 } });
  const lines = readFileSync(exampleLog, 'utf8').split('\n');
  const cuts = cut.allocation.sections.flatMap((s) => s.cuts ?? []);
  const record = JSON.stringify({ seq: 0, ts: JSON.parse(lines[1]).ts, event: { kind: 'prompt_head_snapshot', system: cut.system, firstUserPrefix: cut.firstUserPrefix, cuts } });
  const timeline = new cv.Timeline([lines[0], record, ...lines.slice(1)].join('\n'));
  const last = timeline.buildAt(timeline.length - 1, { provider: 'anthropic', contextWindow: 200000 }).report;
  assert.deepEqual(last.headCuts, cuts);
  assertMatches(await shown(), last, 'with the budgeted heads');
  // Back as it was.
  await act(() => page.uncheck('#use-heads'));
  await act(() => page.fill('#head-allocation input[data-priority="skills"]', '40').then(() => page.dispatchEvent('#head-allocation input[data-priority="skills"]', 'change')));
  await page.fill('#head-budget', '');
  await act(() => page.dispatchEvent('#head-budget', 'change'));
  assert.deepEqual(await rows(), expected(undefined));
});

test('another agent\'s session is detected and imported, with its report', async () => {
  // First one the view cannot hold all of: an image whose data is not base64.
  const lossy = join(work, 'lossy-claude.jsonl');
  writeFileSync(lossy, [
    { type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's', message: { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'not*base64' } }] } },
    { type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { id: 'm1', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'I see.' }] } },
    { type: 'user', uuid: 'u2', parentUuid: 'a1', message: { role: 'user', content: [{ type: 'text', text: 'and now?' }] } },
  ].map((l) => JSON.stringify(l)).join('\n') + '\n');
  await act(() => page.setInputFiles('#session-input', lossy));
  const lossyStderr = spawnSync(process.execPath, [cli, 'import', lossy], { encoding: 'utf8' }).stderr;
  assert.match(lossyStderr, /WARNING: 1 element\(s\) the source agent's model saw are missing from the view:\n    image from line 1\n/);
  const lossyShown = await page.$$eval('#import-report dd', (dds) => Object.fromEntries(dds.map((d) => [d.dataset.key, d.textContent])));
  assert.equal(lossyShown['fidelity-missing'], '1', 'the page says what the CLI says is missing');
  assert.equal(lossyShown['fidelity-view'], '2 prompts, 1 texts, 0 reasoning, 0 tool calls, 0 images');

  await act(() => page.setInputFiles('#session-input', claudeFixture));
  const text = readFileSync(claudeFixture, 'utf8');
  const { report, log } = await cv.importSession(text);
  const stderr = spawnSync(process.execPath, [cli, 'import', claudeFixture], { encoding: 'utf8' }).stderr;
  const shownReport = await page.$$eval('#import-report dd', (dds) => Object.fromEntries(dds.map((d) => [d.dataset.key, d.textContent])));
  assert.equal(shownReport.format, 'claude-code');
  // The CLI's summary line and the page's figures: the same counts.
  const [, cliLines, cliRecords] = stderr.match(/import claude-code: (\d+) lines -> (\d+) records/);
  assert.equal(shownReport.records, `${Number(cliLines).toLocaleString('en-US')} → ${Number(cliRecords).toLocaleString('en-US')}`);
  assert.equal(shownReport['fidelity-missing'], String(report.fidelity.missing.length));
  assert.doesNotMatch(stderr, /WARNING/);
  assert.match(shownReport['fidelity-view'], new RegExp(`^${report.fidelity.view.prompts} prompts, `));
  const logPath = join(work, 'imported.jsonl');
  writeFileSync(logPath, runCli(['import', claudeFixture]));
  assert.equal(readFileSync(logPath, 'utf8'), log);
  await walkDone();
  const view = await shown();
  const lines = cliTimeline(logPath, ['--provider', 'anthropic', '--context-window', '200000']);
  assert.equal(view.max + 1, lines.length);
  assertMatches(view, cliRequest(logPath, view.max, ['--provider', 'anthropic', '--context-window', '200000']).report, 'imported session');
});

test('a Claude Code session picked with its subagents\' files: each child at the call it answered, with its requests and their cost', async () => {
  const dir = join(root, 'tests/fixtures/claude-subagents');
  const files = ['s-main.jsonl', 's-main/subagents/agent-aaa1.jsonl', 's-main/subagents/agent-bbb2.jsonl'].map((p) => join(dir, p));
  await act(() => page.setInputFiles('#session-input', files));
  const rows = await page.$$eval('#subagents > li', (lis) => lis.map((li) => ({ ...li.dataset })));
  // The same, worked out with the package: the tree imported, each child's walk priced.
  const [parent, ...children] = files.map((f) => readFileSync(f, 'utf8'));
  const tree = await cv.importTree(parent, children);
  const links = new cv.Timeline(tree.parent.log).subagents();
  // The view's options, as the page says it builds with: as recorded, for an imported session.
  const pageOptions = () => page.evaluate(() => document.body.inspector.options());
  const options = await pageOptions();
  assert.deepEqual(options, { asRecorded: true, provider: 'anthropic', contextWindow: 200000 });
  assert.deepEqual(rows.map((r) => [r.call, r.session, r.request, r.status]), links.map((l) => [l.callId, l.sessionId, String(l.request), l.status]));
  assert.deepEqual(links.map((l) => [l.callId, l.request, l.status]), [['toolu_1', 0, 'completed'], ['toolu_2', 0, 'completed']]);
  for (const [i, link] of links.entries()) {
    const log = tree.children.find((c) => c.log.includes(`"sessionId":"${link.sessionId}"`)).log;
    const child = new cv.Timeline(log);
    let cost = 0;
    for (const { report } of child.walk(options)) cost += report.forecast?.inputDollars ?? 0;
    assert.equal(rows[i].requests, String(child.length), link.callId);
    // Each of its requests, listed at the call with its tokens and cost.
    const listed = await page.$$eval(`#subagents > li[data-call="${link.callId}"] .child-requests li`, (lis) => lis.map((li) => [Number(li.dataset.tokens), Number(li.dataset.dollars)]));
    assert.deepEqual(listed, [...child.walk(options)].map(({ report }) => [report.tokens.request, report.forecast?.inputDollars ?? 0]));
    assert.ok(Math.abs(Number(rows[i].dollars) - cost) < 1e-12, `${link.callId}: ${rows[i].dollars} vs ${cost}`);
    assert.ok(cost > 0);
  }
  // Other options price the children again.
  const provider = await page.$eval('#provider', (p) => p.value);
  await act(() => page.selectOption('#provider', 'openai-responses'));
  const repriced = await page.$$eval('#subagents > li', (lis) => lis.map((li) => Number(li.dataset.dollars)));
  const at = await pageOptions();
  assert.equal(at.asRecorded, undefined, 'a provider chosen is a what-if');
  assert.deepEqual(repriced, links.map((link) => {
    const log = tree.children.find((c) => c.log.includes(`"sessionId":"${link.sessionId}"`)).log;
    return [...new cv.Timeline(log).walk(at)].reduce((n, { report }) => n + (report.forecast?.inputDollars ?? 0), 0);
  }));
  await act(() => page.selectOption('#provider', provider));
  await act(() => page.check('#as-recorded'));
  // Picked the other way round (the subagents first), the same session with the same children.
  await act(() => page.setInputFiles('#session-input', [...files].reverse()));
  assert.deepEqual(await page.$$eval('#subagents > li', (lis) => lis.map((li) => ({ ...li.dataset }))), rows);
  assert.equal(JSON.parse(await page.evaluate(() => document.body.dataset.view)).session, 's-main.jsonl');
  // A real click on a child's "open" shows its own requests, one level down, and the breadcrumb
  // goes back to the parent at the request it showed.
  const second = links[1];
  await act(() => page.click(`#subagents > li[data-call="${second.callId}"] button.open`));
  const inChild = JSON.parse(await page.evaluate(() => document.body.dataset.view));
  assert.deepEqual([inChild.session, inChild.depth, inChild.requests], [second.sessionId, 1, Number(rows[1].requests)]);
  assert.equal(await page.$eval('#crumbs', (n) => n.hidden), false);
  await act(() => page.click('#crumbs a'));
  assert.deepEqual((({ session, depth }) => [session, depth])(JSON.parse(await page.evaluate(() => document.body.dataset.view))), ['s-main.jsonl', 0]);
  // The session alone: the calls are there, their logs not.
  await act(() => page.setInputFiles('#session-input', files[0]));
  const alone = await page.$$eval('#subagents > li', (lis) => lis.map((li) => li.dataset.requests));
  assert.deepEqual(alone, ['', '']);
  assert.equal(await page.$eval('#subagents-box', (b) => b.hidden), false);
});

test("a provider's answer dropped after a session: recorded as the CLI records it, and the next request shown", async () => {
  const now = '2026-12-03T10:00:00Z';
  const session = cv.Session.create('inspect-answer');
  const lines = [
    session.dispatch({ type: 'switchModel', provider: 'anthropic', model: 'claude-sonnet-4-5', contextWindow: 200000 }, now),
    session.dispatch({ type: 'userMessage', text: 'Find the serde docs on untagged variants.' }, now),
  ].flatMap((p) => p.effects.flatMap((e) => (e.type === 'persist' ? e.lines : [])));
  const logPath = join(work, 'before-answer.jsonl');
  writeFileSync(logPath, lines.join('\n') + '\n');
  await act(() => page.setInputFiles('#session-input', logPath));
  await page.selectOption('#provider', 'anthropic');
  const answer = join(root, 'tests/fixtures/answers/anthropic-web-search-pause.sse');
  await act(() => page.setInputFiles('#answer-input', answer));
  const recorded = JSON.parse(await page.evaluate(() => document.body.dataset.answer));
  // The CLI records the same answer; the log with it builds the continuation of the paused turn.
  const appended = runCli(['respond', '--session', logPath, '--provider', 'anthropic', '--response', answer, '--now', now]);
  assert.deepEqual(recorded, { status: 'complete', stopReason: 'pause_turn', records: appended.trim().split('\n').length, toolCalls: [], error: null });
  const after = join(work, 'after-answer.jsonl');
  writeFileSync(after, readFileSync(logPath, 'utf8') + appended);
  const body = runCli(['build', '--session', after, '--provider', 'anthropic', '--context-window', '200000']).trimEnd();
  const view = await shown();
  assert.equal(view.bytes, Buffer.byteLength(body));
  assert.match(await page.textContent('#request-title'), /the next request, after the answer/);
  assert.match(await page.textContent('#status'), /stop pause_turn/);
});

test('the prices of a session of our own, worked out by hand: the price table and the selected request\'s figures', async () => {
  const { text, sent } = geminiSession(cv);
  const file = join(work, 'gemini-session.jsonl');
  writeFileSync(file, text);
  await act(() => page.setInputFiles('#session-input', file));
  await page.selectOption('#provider', 'gemini');
  await page.fill('#model', '');
  await page.fill('#window', '200000');
  await act(() => page.dispatchEvent('#window', 'change'));
  await walkDone();
  // Each request's input tokens, as a build of the log as it stood counts them (in Node).
  const t = sent.map((log) => cv.buildRequestString({ log, provider: 'gemini', contextWindow: 200000 }).report.tokens.request);
  assert.ok(t[0] >= 4096 && t[0] < t[1] && t[1] < t[2] && t[2] < 100000, `cached from the first request, pruning never due: ${t}`);
  const expected = byHand(t, GEMINI_3_PRO);
  const close = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-12, `${what}: ${a} != ${b}`);
  // The last request, selected: t1 read from the cache, the rest written (billed as input).
  const view = await shown();
  assert.equal(view.slider, 2);
  assert.equal(view.tokens, t[2]);
  assert.equal(view.cacheRead, t[1]);
  close(view.inputCost, (t[1] * 0.2 + (t[2] - t[1]) * 2) / 1e6, 'input cost of the last request');
  // Every pruning choice prices the same here (nothing is pruned below half the window): the
  // session's total, output included.
  await act(() => page.click('#price'));
  const rows = await page.$$eval('#prices tbody tr', (trs) => trs.map((tr) => ({ policy: tr.dataset.policy, dollars: Number(tr.dataset.dollars), read: Number(tr.dataset.read), over: Number(tr.dataset.over) })));
  assert.deepEqual(rows.map((r) => r.policy), ['default', 'eager', 'off']);
  for (const r of rows) {
    close(r.dollars, expected.totals.dollars, `${r.policy}: dollars`);
    assert.deepEqual([r.read, r.over], [expected.totals.read, 0], r.policy);
  }
  assert.match(await page.textContent('#prices-note'), /^gemini gemini-3-pro-preview, window 200,000, at gemini-3-pro prices of 2026-12-04$/);
  await act(() => page.selectOption('#provider', 'anthropic'));
});

// Real sessions from ../shared/corpus when it is there: the page imports each one and shows its
// last request as the CLI builds it from the CLI's own import.
const corpus = join(root, '../shared/corpus/sessions');
const REAL = [
  'badlogic__pi-mono__packages__coding-agent__test__fixtures__large-session.jsonl',
  'codemie-ai__codemie-code__src__agents__plugins__codex____tests____fixtures__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl',
  'd-kimuson__claude-code-viewer__mock-global-claude-dir__projects__sample-project__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl',
];
const haveCorpus = existsSync(corpus);
if (!haveCorpus) console.log('# inspector on real sessions: SKIPPED (../shared/corpus not found)');

test('real pi, Codex and Claude Code sessions: the last request as the CLI builds it', { skip: haveCorpus ? false : 'SKIPPED: ../shared/corpus not found' }, async () => {
  for (const name of REAL) {
    const file = join(corpus, name);
    await act(() => page.setInputFiles('#session-input', file));
    const logPath = join(work, `real-${REAL.indexOf(name)}.jsonl`);
    writeFileSync(logPath, runCli(['import', file]));
    const view = await shown();
    // As recorded: at the provider and model the session went to, nothing pruned.
    const flags = ['--as-recorded', '--context-window', '200000'];
    const { report } = cliRequest(logPath, view.max, flags);
    assertMatches(view, report, name.slice(0, 40));
    const recorded = cliTimeline(logPath, ['--as-recorded', '--context-window', '200000']).at(-1);
    const shownView = JSON.parse(await page.evaluate(() => document.body.dataset.view));
    assert.deepEqual([shownView.asRecorded, shownView.provider, shownView.model, shownView.pruning.cleared], [true, recorded.provider, recorded.model, 0], name.slice(0, 40));
    assert.ok(view.max > 0, `${name}: more than one request`);
    await walkDone();
  }
});

test('a session with no request clears the last one; a log without its header is still ours; expanding opens every message', async () => {
  await act(() => page.setInputFiles('#session-input', exampleLog));
  await walkDone();
  // "Expand messages" opens the conversation and each of its entries on the first click.
  await page.click('#expand-all');
  const opened = await page.$$eval('#body details details details', (ds) => ds.filter((d) => d.open).length);
  const entries = JSON.parse(cliRequest(exampleLog, (await shown()).max, ['--provider', 'anthropic', '--context-window', '200000']).body).messages.length;
  assert.equal(opened, entries);

  const headerOnly = join(work, 'header-only.jsonl');
  writeFileSync(headerOnly, readFileSync(exampleLog, 'utf8').split('\n')[0] + '\n');
  await act(() => page.setInputFiles('#session-input', headerOnly));
  const cleared = await page.evaluate(() => ({
    slider: document.getElementById('slider').disabled,
    compact: document.getElementById('compact').disabled,
    figures: document.getElementById('figures').childElementCount,
    body: document.getElementById('body').childElementCount,
    title: document.getElementById('request-title').textContent,
    requests: document.getElementById('session-summary').dataset.requests,
  }));
  assert.deepEqual(cleared, { slider: true, compact: true, figures: 0, body: 0, title: '', requests: '0' });

  const headerless = join(work, 'headerless.jsonl');
  writeFileSync(headerless, readFileSync(exampleLog, 'utf8').split('\n').slice(1).join('\n'));
  await act(() => page.setInputFiles('#session-input', headerless));
  const view = await shown();
  const expected = cv.buildRequestString({ log: readFileSync(headerless, 'utf8'), provider: 'anthropic', contextWindow: 200000 });
  assert.equal(view.bytes, expected.report.bytes);
  const diags = await page.$$eval('#session-diagnostics li', (lis) => lis.map((li) => li.dataset.code));
  assert.ok(diags.includes('log.missing_header'), diags.join(', '));
});

test('the page loads again with the network gone, and logged no errors', async () => {
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload();
  await loaded();
  await page.context().setOffline(true);
  try {
    await page.reload();
    await loaded();
    await act(() => page.click('#example'));
    const view = await shown();
    // The example's last request, built offline, is the CLI's for the provider and window shown.
    const provider = view.title.match(/(?:as recorded|what if): (anthropic|openai-chat|openai-responses|gemini) /)?.[1];
    assert.ok(provider, view.title);
    assert.equal(view.slider, view.max);
    const flags = ['--provider', provider, '--context-window', String(view.gaugeSize)];
    assertMatches(view, cliRequest(exampleLog, view.max, flags).report, 'offline');
    // Another agent's session, offline: the lazy module (the importers) comes from the offline copy too.
    const imported = await page.evaluate(async (text) => (await (await import('/pkg/browser.mjs')).importSession(text)).report.format, readFileSync(claudeFixture, 'utf8'));
    assert.equal(imported, 'claude-code');
  } finally {
    await page.context().setOffline(false);
  }
  const problems = consoleMessages.filter((m) => m.startsWith('error') || m.startsWith('pageerror') || m.startsWith('warning'));
  assert.deepEqual(problems, []);
});

test('the samples the page warms up on import cleanly, each in its own format', async () => {
  const { SAMPLES, warmUp } = await import('../../www/warmup.mjs');
  for (const [format, make] of Object.entries(SAMPLES)) {
    const { report } = await cv.importSession(make());
    assert.equal(report.format, format);
    assert.deepEqual(report.unmapped, {}, format);
    assert.deepEqual(report.diagnostics, [], format);
    assert.deepEqual(report.fidelity.missing, [], format);
    assert.ok(report.written.tool_call >= 10, `${format}: ${JSON.stringify(report.written)}`);
  }
  assert.ok((await warmUp(cv)) > 100);
});
