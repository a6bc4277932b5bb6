// The inspector page in Chromium, run by `make bench` after `make build`: from picking a session
// file to the first frame that shows its last request (reading the file, importing it when it is
// another agent's, finding the requests, building the last one, drawing the report and the body),
// then until the whole timeline's figures are drawn. The floor beside it, in the same page: a
// `JSON.parse` of every line of the same file. A fresh page for every run; median of RUNS.
//
// Sessions: the corpus's largest (pi, Codex, Claude Code) when ../shared/corpus exists, and a
// generated log of about 1 MB in our own format.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { CHROMIUM, CHROMIUM_ARGS, serveStatic } from '../tests/js/static-server.mjs';
import { generatedLog } from './generated-log.mjs';

const RUNS = Number(process.env.RUNS ?? 5);
const root = fileURLToPath(new URL('../', import.meta.url));
const corpus = join(root, '../shared/corpus/sessions');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function sessions() {
  const dir = mkdtempSync(join(tmpdir(), 'cv-inspector-bench-'));
  const generated = join(dir, 'generated-1mb.jsonl');
  writeFileSync(generated, generatedLog(1_000_000));
  const list = [['generated log (ours)', generated]];
  if (existsSync(corpus)) {
    list.push(
      ['pi large session (corpus)', join(corpus, 'badlogic__pi-mono__packages__coding-agent__test__fixtures__large-session.jsonl')],
      ['Codex rollout (corpus)', join(corpus, 'codemie-ai__codemie-code__src__agents__plugins__codex____tests____fixtures__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl')],
      ['Claude Code session (corpus)', join(corpus, 'd-kimuson__claude-code-viewer__mock-global-claude-dir__projects__sample-project__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl')],
    );
  } else {
    console.log('corpus: SKIPPED (../shared/corpus not found): the generated session only');
  }
  return list;
}

// RETURNING=1: the page is served cacheable and each run is a new page in the same browser,
// so the wasm compiled on an earlier visit can come from the browser's code cache.
const RETURNING = process.env.RETURNING === '1';
const server = await serveStatic(root.replace(/\/$/, ''), { cacheable: RETURNING });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
// A returning visitor's context has seen the page (and compiled its wasm) once before the runs.
const shared = RETURNING ? await browser.newContext() : null;
if (RETURNING) {
  const warm = await shared.newPage();
  await warm.goto(`${server.url}/www/index.html`);
  await warm.waitForFunction(() => document.body.dataset.state === 'ready');
  await warm.close();
}
try {
  console.log(`inspector in Chromium ${browser.version()}, median of ${RUNS} fresh pages${RETURNING ? ', served cacheable (a returning visitor)' : ', nothing cached (a first visit)'}`);
  console.log('| session | file | requests | first request shown | floor: JSON.parse of every line | ratio | whole timeline drawn |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [name, path] of sessions()) {
    const first = [];
    const floors = [];
    const walks = [];
    const parts = [];
    let requests = 0;
    let fileBytes = 0;
    for (let run = 0; run < RUNS; run++) {
      const page = await (RETURNING ? shared : await browser.newContext()).newPage();
      await page.goto(`${server.url}/www/index.html`);
      await page.waitForFunction(() => document.body.dataset.state === 'ready');
      const started = Date.now();
      await page.setInputFiles('#session-input', path);
      await page.waitForFunction(() => performance.getEntriesByName('contextview:first-request').length > 0, null, { timeout: 60_000 });
      await page.waitForFunction(() => document.body.dataset.walk === 'done', null, { timeout: 300_000 });
      const walkMs = Date.now() - started;
      const r = await page.evaluate(async () => {
        const file = document.getElementById('session-input').files[0];
        const text = await file.text();
        const t0 = performance.now();
        let n = 0;
        for (const line of text.split('\n')) if (line.trim()) { JSON.parse(line); n++; }
        const floor = performance.now() - t0;
        const at = (name) => performance.getEntriesByName(name)[0]?.startTime;
        const m = performance.getEntriesByName('contextview:first-request')[0];
        const parts = {
          read: at('contextview:read') - m.startTime,
          import: at('contextview:imported') - at('contextview:read'),
          timeline: at('contextview:timeline') - at('contextview:imported'),
          build: at('contextview:built') - at('contextview:timeline'),
          render: m.startTime + m.duration - at('contextview:built'),
        };
        return {
          parts,
          first: m.duration,
          floor, n, bytes: file.size, state: document.body.dataset.state,
          requests: Number(document.getElementById('session-summary').dataset.requests),
        };
      });
      if (r.state !== 'ready') throw new Error(`${name}: page state ${r.state}`);
      first.push(r.first);
      parts.push(r.parts);
      floors.push(r.floor);
      walks.push(walkMs);
      requests = r.requests;
      fileBytes = r.bytes;
      await page.close();
      if (!RETURNING) await page.context().close();
    }
    const f = median(first);
    const fl = median(floors);
    const part = (k) => median(parts.map((p) => p[k])).toFixed(0);
    const split = `read ${part('read')}, import ${part('import')}, timeline ${part('timeline')}, build ${part('build')}, render and first frame ${part('render')}`;
    console.log(`| ${name} | ${Math.round(fileBytes / 1024)} KB | ${requests} | **${f.toFixed(0)} ms** (${split}) | ${fl.toFixed(1)} ms | ${(f / fl).toFixed(1)}× | ${median(walks)} ms |`);
  }
} finally {
  await browser.close();
  await server.close();
}
