// The package as `npm pack` packs it, unpacked into a consumer project (tests/packaging/
// installed.mjs): ESM and CommonJS, through the `exports` map, on the example session for all
// four providers — so a module left out of package.json's `files` fails here. Needs
// scripts/build.sh to have run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

import { PROVIDERS, checkBuild, checkPayload } from './payload-checks.mjs';
import { installInto, packed } from '../packaging/installed.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const project = mkdtempSync(join(tmpdir(), 'cv-consumer-'));
process.on('exit', () => rmSync(project, { recursive: true, force: true }));
const pkgDir = installInto(project) + '/';
const cv = await import(pathToFileURL(pkgDir + 'node.mjs'));
const log = readFileSync(root + 'examples/session.jsonl', 'utf8');
const logLines = log.split('\n').filter((l) => l.trim() !== '');
const pkgJson = JSON.parse(readFileSync(pkgDir + 'package.json', 'utf8'));
// `require('contextview')` from inside the package scope: Node's self-reference resolution,
// i.e. the real `exports` map with the `node` + `require` conditions.
const requireFromPkg = createRequire(pkgDir + 'package.json');
const cjsViaExports = requireFromPkg('contextview');
const cjsDirect = createRequire(pkgDir + 'package.json')(pkgDir + 'index.cjs');
const wasmGlue = createRequire(pkgDir + 'package.json')(pkgDir + 'node/contextview.js');

const TOOLS = [
  { name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'noop' },
];

test('exports map resolves each condition to the right entry', () => {
  const resolve = (conditions) => execFileSync(process.execPath,
    [...conditions.map((c) => `--conditions=${c}`), '--input-type=module', '-e', 'console.log(import.meta.resolve("contextview"))'],
    { cwd: pkgDir, encoding: 'utf8' }).trim();
  assert.equal(resolve([]), new URL('node.mjs', 'file://' + pkgDir).href);
  assert.equal(resolve(['workerd']), new URL('workerd.mjs', 'file://' + pkgDir).href);
  assert.equal(resolve(['worker']), new URL('workerd.mjs', 'file://' + pkgDir).href);
  assert.equal(requireFromPkg.resolve('contextview'), pkgDir + 'index.cjs');
  assert.equal(pkgJson.exports['.'].browser, './browser.mjs');
  assert.equal(pkgJson.exports['.'].default, './browser.mjs');
  // Workers' conditions first (wrangler's bundler may also say `node`), then Node's branches
  // (each with its own types: ESM and CommonJS declarations), then the types every other
  // resolver reads.
  const root = pkgJson.exports['.'];
  assert.deepEqual(Object.keys(root).slice(0, 4), ['workerd', 'worker', 'node', 'types']);
  assert.deepEqual(root.node.import, { types: './index.d.ts', default: './node.mjs' });
  assert.deepEqual(root.node.require, { types: './index.d.cts', default: './index.cjs' });
  assert.equal(JSON.parse(readFileSync(pkgDir + 'node/package.json', 'utf8')).type, 'commonjs');
});

test('ESM, CJS and exports-map CJS share one instance and one API', async () => {
  assert.equal(cjsViaExports, cjsDirect);
  // `require` gets every export `import` gets, the same objects: one wasm instance, one copy of
  // every class (so `instanceof` holds across them).
  assert.deepEqual(Object.keys(cjsDirect).sort(), Object.keys(cv).sort());
  for (const name of Object.keys(cv)) assert.equal(cjsDirect[name], cv[name], name);
  assert.equal(cv.Session, wasmGlue.Session, 'both wrap the one wasm instance');
  const err = new cjsDirect.StorageError('seq_gap', 'x');
  assert.ok(err instanceof cv.StorageError);
  const web = await import(pathToFileURL(pkgDir + 'web/contextview.js'));
  // `start` is the #[wasm_bindgen(start)] hook, which wasm-bindgen also exports; it already ran.
  const internal = new Set(['default', 'start']);
  const webApi = Object.keys(web).filter((k) => !internal.has(k)).sort();
  // Written in JavaScript (pkg-template/discover.mjs, lazy.mjs, node-fs.mjs, storage*.mjs, timeline.mjs), not generated
  // by wasm-bindgen.
  const jsApi = ['discover', 'loadLazyModule', 'lazyModuleLoaded', 'importSession', 'importTree', 'importOpenCodeStorage', 'Workspace', 'memoryFs', 'browserFs', 'fileListFs', 'nodeFs', 'nodeFileStorage', 'StorageError', 'faultyStorage', 'DurableSession', 'openSession', 'openSubagent', 'Timeline', 'receive', 'AnswerStream', 'ProviderError', 'send', 'Turn', 'ContextviewError', 'ContextviewTypeError'];
  assert.deepEqual(jsApi.filter((k) => typeof cv[k] !== 'function'), [], 'node.mjs exports the discovery and storage API');
  const esmApi = Object.keys(cv).filter((k) => !jsApi.includes(k)).sort();
  assert.deepEqual(esmApi, [...webApi, 'init'].sort(), 'node.mjs exports what the web build exports, plus init');
  assert.deepEqual(Object.keys(wasmGlue).filter((k) => !internal.has(k)).concat('init', 'initSync').sort(), esmApi,
    'the Node entry lists every export of the wasm glue');
  for (const name of ['version', 'parseLog', 'replay', 'buildRequest', 'buildRequestString', 'validatePayload', 'Session']) {
    assert.equal(typeof cv[name], 'function', name);
  }
  const dts = readFileSync(pkgDir + 'web/contextview.d.ts', 'utf8');
  for (const name of esmApi.filter((n) => n !== 'init')) {
    assert.match(dts, new RegExp(`export (function|class) ${name}\\b`), `types declare ${name}`);
  }
  const indexDts = readFileSync(pkgDir + 'index.d.ts', 'utf8');
  assert.match(indexDts, /export function init\(/);
  for (const name of jsApi) {
    assert.match(indexDts, new RegExp(`export (declare )?(function|class) ${name}\\b`), `index.d.ts declares ${name}`);
  }
  assert.equal(await cv.init(), undefined);
});

test('version matches the package version', () => {
  assert.equal(typeof cv.version(), 'string');
  assert.ok(cv.version().includes(pkgJson.version), `${cv.version()} vs ${pkgJson.version}`);
});

test('parseLog and replay read the example session', () => {
  const parsed = cv.parseLog(log);
  assert.equal(typeof parsed.header, 'object');
  assert.ok(parsed.header);
  assert.equal(parsed.records.length, logLines.length - 1, 'one record per line after the header');
  assert.deepEqual(parsed.diagnostics.filter((d) => d.severity === 'error'), []);
  const replayed = cv.replay(log);
  assert.ok(replayed.items.length > 0);
  assert.ok(replayed.items.every((it) => typeof it.type === 'string'));
  assert.ok(Array.isArray(replayed.view) && Array.isArray(replayed.diagnostics));

  // Garbage lines are reported with their line number, not thrown.
  const bad = cv.parseLog(logLines[0] + '\n{not json\n' + logLines.slice(1).join('\n') + '\n');
  const diag = bad.diagnostics.find((d) => d.line === 2);
  assert.ok(diag, 'diagnostic for line 2');
  assert.equal(typeof diag.code, 'string');
  assert.equal(diag.severity, 'error');
  assert.equal(bad.records.length, logLines.length - 1);
});

const built = Object.fromEntries(PROVIDERS.map((p) => [p, cv.buildRequest({ log, provider: p })]));

for (const provider of PROVIDERS) {
  test(`buildRequest ${provider}: valid payload, repaired dangling call, image`, () => {
    const { payload, report, diagnostics } = built[provider];
    const s = checkBuild(provider, payload, report);
    assert.deepEqual(diagnostics, [], 'the example session reads cleanly');
    assert.ok(s.calls.length > 0, 'the example has tool calls');
    assert.ok(s.images > 0, 'the example image reaches the payload');
    assert.ok(report.repairs.some((r) => typeof r.callId === 'string' && r.callId.length > 0),
      'the dangling call is repaired');
    assert.deepEqual(cv.validatePayload(provider, payload), []);

    const str = cv.buildRequestString({ log, provider });
    assert.deepEqual(JSON.parse(str.body), payload, 'buildRequestString body is the same payload');
    assert.equal(str.report.bytes, Buffer.byteLength(str.body), 'report.bytes is the UTF-8 body size');
    assert.deepEqual(str.report.repairs, report.repairs);

    // CommonJS build gives the identical body.
    assert.equal(cjsViaExports.buildRequestString({ log, provider }).body, str.body);
    // Building from replayed items gives the same payload as building from the log, once given
    // the cache key a log supplies itself (its session id).
    const key = cv.parseLog(log).header.sessionId;
    assert.deepEqual(cv.buildRequest({ items: cv.replay(log).items, provider, cache: { key } }).payload, payload);
  });
}

test('all providers see the same tool calls and images', () => {
  const summaries = PROVIDERS.map((p) => checkPayload(p, built[p].payload));
  for (const s of summaries) {
    assert.equal(s.calls.length, summaries[0].calls.length);
    assert.equal(s.results.length, summaries[0].results.length);
    assert.equal(s.images, summaries[0].images);
  }
  assert.ok(PROVIDERS.every((p) => built[p].report.repairs.length === built.anthropic.report.repairs.length));
});

test('validatePayload names a broken pairing', () => {
  const payload = structuredClone(built.anthropic.payload);
  const i = payload.messages.findIndex((m) => m.content.some((b) => b.type === 'tool_result'));
  assert.ok(i > 0);
  payload.messages[i].content = payload.messages[i].content.filter((b) => b.type !== 'tool_result');
  if (payload.messages[i].content.length === 0) payload.messages[i].content = [{ type: 'text', text: 'hi' }];
  const violations = cv.validatePayload('anthropic', payload);
  assert.ok(violations.length > 0);
  for (const v of violations) {
    assert.equal(typeof v.rule, 'string');
    assert.equal(typeof v.path, 'string');
    assert.equal(typeof v.message, 'string');
  }
  assert.ok(violations.some((v) => v.path.startsWith(`messages.${i - 1}`) || v.path.startsWith(`messages.${i}`)));
});

test('system, tools, model and maxTokens reach each payload', () => {
  const opts = { log, system: 'You are a test.', tools: TOOLS, model: 'm-1', maxTokens: 123 };
  const a = cv.buildRequest({ ...opts, provider: 'anthropic' }).payload;
  assert.equal(a.model, 'm-1');
  assert.equal(a.max_tokens, 123);
  assert.equal(a.system[0].text, 'You are a test.');
  assert.deepEqual(a.tools.map((t) => t.name), ['read_file', 'noop']);
  assert.deepEqual(a.tools[0].input_schema, TOOLS[0].inputSchema);

  const c = cv.buildRequest({ ...opts, provider: 'openai-chat' }).payload;
  assert.equal(c.model, 'm-1');
  assert.ok(['system', 'developer'].includes(c.messages[0].role));
  assert.match(JSON.stringify(c.messages[0].content), /You are a test\./);
  assert.deepEqual(c.tools.map((t) => t.function.name), ['read_file', 'noop']);

  assert.equal(c.max_completion_tokens, 123);

  const r = cv.buildRequest({ ...opts, provider: 'openai-responses' }).payload;
  assert.equal(r.model, 'm-1');
  assert.equal(r.max_output_tokens, 123);
  assert.equal(r.instructions, 'You are a test.');
  assert.deepEqual(r.tools.map((t) => t.name), ['read_file', 'noop']);

  const g = cv.buildRequest({ ...opts, provider: 'gemini' }).payload;
  assert.match(JSON.stringify(g.systemInstruction), /You are a test\./);
  assert.deepEqual(g.tools.flatMap((t) => t.functionDeclarations ?? []).map((f) => f.name), ['read_file', 'noop']);
  assert.deepEqual(g.generationConfig, { maxOutputTokens: 123 });

  // Without a budget the OpenAI and Gemini APIs use the model's own; Anthropic requires one.
  const unset = { log, model: 'm-1' };
  assert.equal(cv.buildRequest({ ...unset, provider: 'anthropic' }).payload.max_tokens, 8192);
  assert.equal(cv.buildRequest({ ...unset, provider: 'openai-chat' }).payload.max_completion_tokens, undefined);
  assert.equal(cv.buildRequest({ ...unset, provider: 'openai-responses' }).payload.max_output_tokens, undefined);
  assert.equal(cv.buildRequest({ ...unset, provider: 'gemini' }).payload.generationConfig, undefined);
});

test('Session: appending line by line equals building the whole log', () => {
  const s = cv.Session.fromLog(logLines[0] + '\n');
  for (const line of logLines.slice(1)) s.append(line);
  assert.equal(s.itemCount(), cv.replay(log).items.length);
  for (const provider of PROVIDERS) {
    assert.deepEqual(s.build({ provider }).payload, built[provider].payload, provider);
    assert.equal(s.buildString({ provider }).body, cv.buildRequestString({ log, provider }).body, provider);
  }
  s.free();
});

test('Session: buildBytes is the body as UTF-8 bytes, and fetch sends them as they are', async () => {
  const s = cv.Session.fromLog(log);
  // A prompt outside ASCII: the bytes are UTF-8, not UTF-16 code units.
  s.append(JSON.stringify({ seq: s.recordCount() + 1, ts: '2026-12-01T10:00:00Z', update: { sessionUpdate: 'user_message_chunk', messageId: 'u-utf8', content: { type: 'text', text: 'Grüße — 你好 🎉' } } }));
  for (const provider of PROVIDERS) {
    const { body: text } = s.buildString({ provider });
    const built = s.buildBytes({ provider });
    assert.ok(built.body instanceof Uint8Array, provider);
    assert.deepEqual(Buffer.from(built.body), Buffer.from(text, 'utf8'), provider);
    assert.match(new TextDecoder().decode(built.body), /Grüße — 你好 🎉/);
    assert.equal(built.report.provider, provider);
    assert.deepEqual(built.diagnostics, []);
  }
  // A Request built from the bytes carries the same body the string would.
  const { body } = s.buildBytes({ provider: 'anthropic' });
  const request = new Request('https://api.example.invalid/v1/messages', { method: 'POST', body });
  assert.equal(await request.text(), s.buildString({ provider: 'anthropic' }).body);
  s.free();
});

test('Session: each build reads the options it is given, same or changed', () => {
  const s = cv.Session.fromLog(log);
  const tool = (name) => ({ name, description: `The ${name} tool`, inputSchema: { type: 'object' } });
  const cases = [
    { provider: 'anthropic', system: 'First system prompt.', tools: [tool('read')] },
    { provider: 'anthropic', system: 'First system prompt.', tools: [tool('read')] },
    { provider: 'anthropic', system: 'Second system prompt.', tools: [tool('read'), tool('write')] },
    { provider: 'openai-chat', system: 'Second system prompt.', tools: [tool('write')] },
    { provider: 'anthropic', system: 'First system prompt.', tools: [tool('read')] },
    // A new `now` on every step, the same tools.
    { provider: 'anthropic', system: 'First system prompt.', tools: [tool('read')], now: '2026-12-01T10:00:00Z' },
    { provider: 'anthropic', system: 'First system prompt.', tools: [tool('read')], now: '2026-12-01T10:00:05Z' },
    { provider: 'anthropic', system: 'First system prompt.', tools: [tool('read'), tool('write')], now: '2026-12-01T10:00:09Z' },
  ];
  for (const options of cases) {
    const { body } = s.buildString(options);
    assert.equal(body, cv.buildRequestString({ ...options, log }).body, JSON.stringify(options));
    assert.equal(s.usage(options).used, cv.Session.fromLog(log).usage(options).used);
  }
  assert.throws(() => s.buildString({ provider: 'anthropic', tools: 'not a list' }), (e) => e.code === 'invalid_options');
  // A refused option leaves the next build reading its own options.
  assert.equal(s.buildString(cases[2]).body, cv.buildRequestString({ ...cases[2], log }).body);
  s.free();
});

function assertCodedError(fn, what) {
  let caught;
  try { fn(); } catch (e) { caught = e; }
  assert.ok(caught, `${what}: throws`);
  assert.ok(caught instanceof Error, `${what}: throws an Error (got ${Object.prototype.toString.call(caught)})`);
  assert.equal(typeof caught.code, 'string', `${what}: has a string .code`);
  assert.ok(caught.code.length > 0, `${what}: .code is non-empty`);
  assert.ok(caught.message.length > 0, `${what}: has a message`);
  return caught;
}

test('bad input throws an Error with a stable .code', () => {
  assertCodedError(() => cv.buildRequest({ log, provider: 'nope' }), 'unknown provider');
  assertCodedError(() => cv.buildRequest({ provider: 'anthropic' }), 'neither log nor items');
  assertCodedError(() => cv.buildRequest({ log, items: [], provider: 'anthropic' }), 'both log and items');
  assertCodedError(() => cv.buildRequest({ log: 42, provider: 'anthropic' }), 'log not a string');
  assertCodedError(() => cv.buildRequest({ log, provider: 'anthropic', tools: [{ description: 'no name' }] }), 'tool without name');
  assertCodedError(() => cv.buildRequestString({ log, provider: 'gemini', maxTokens: 'lots' }), 'maxTokens not a number');
  assertCodedError(() => cv.validatePayload('nope', {}), 'validatePayload unknown provider');
  assertCodedError(() => cjsViaExports.buildRequest({ log, provider: 'nope' }), 'CJS unknown provider');
});

test('browser entry: init() from bytes gives the same bodies as the Node build', async () => {
  const browser = await import(pathToFileURL(pkgDir + 'browser.mjs'));
  const first = browser.init(readFileSync(pkgDir + 'web/contextview_bg.wasm'));
  assert.equal(browser.init(), first, 'init() is idempotent');
  assert.equal(await first, undefined);
  for (const provider of PROVIDERS) {
    assert.equal(browser.buildRequestString({ log, provider }).body, cv.buildRequestString({ log, provider }).body, provider);
  }
  assert.notEqual(browser.Session, cv.Session, 'a separate wasm instance');
});

test('the payload checks themselves reject a missing tool result and a lost image', () => {
  const dropResult = {
    anthropic: (p) => { const m = p.messages.findLast((x) => x.content.some((b) => b.type === 'tool_result')); m.content = m.content.filter((b) => b.type !== 'tool_result').concat(m.content.length === 1 ? [{ type: 'text', text: 'x' }] : []); },
    'openai-chat': (p) => { p.messages.splice(p.messages.findLastIndex((m) => m.role === 'tool'), 1); },
    'openai-responses': (p) => { p.input.splice(p.input.findLastIndex((i) => i.type === 'function_call_output'), 1); },
    gemini: (p) => { const c = p.contents.findLast((x) => x.parts.some((q) => q.functionResponse)); c.parts = [{ text: 'x' }]; },
  };
  const dropImages = (v) => {
    if (Array.isArray(v)) return v.filter((x) => !(x && (x.type === 'image' || x.type === 'image_url' || x.type === 'input_image' || x.inlineData))).map(dropImages);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, dropImages(x)]));
    return v;
  };
  for (const provider of PROVIDERS) {
    const broken = structuredClone(built[provider].payload);
    dropResult[provider](broken);
    assert.throws(() => checkPayload(provider, broken), assert.AssertionError, provider);
    assert.notDeepEqual(cv.validatePayload(provider, broken), [], `validatePayload also rejects it (${provider})`);
    assert.equal(checkPayload(provider, dropImages(built[provider].payload)).images, 0);
  }
});

test('the package weighs what the README says', () => {
  const readme = readFileSync(root + 'README.md', 'utf8');
  const m = readme.match(/What the package weighs: a first-load `\.wasm` of ([\d.]+) MB \((\d+) KB gzipped\)[^;]*?, and a lazy one of ([\d.]+) MB \((\d+) KB gzipped\)[^;]*; the tarball is (\d+) KB, ([\d.]+) MB unpacked, (\d+) files\./);
  assert.ok(m, 'the README says what the package weighs');
  const [, firstMb, firstGzKb, lazyMb, lazyGzKb, tarKb, unpackedMb, files] = m;
  const first = readFileSync(pkgDir + 'web/contextview_bg.wasm');
  const lazy = readFileSync(pkgDir + 'web/contextview_lazy_bg.wasm');
  const { info } = packed();
  // Within 5%: the figures are rounded, and move a little with every change.
  const near = (said, actual, what) => assert.ok(Math.abs(said - actual) <= 0.05 * actual, `${what}: the README says ${said}, it is ${actual.toFixed(2)}`);
  near(Number(firstMb), first.length / 1e6, 'first-load .wasm MB');
  near(Number(firstGzKb), gzipSync(first, { level: 9 }).length / 1e3, 'first-load .wasm gzipped KB');
  near(Number(lazyMb), lazy.length / 1e6, 'lazy .wasm MB');
  near(Number(lazyGzKb), gzipSync(lazy, { level: 9 }).length / 1e3, 'lazy .wasm gzipped KB');
  near(Number(tarKb), info.size / 1e3, 'tarball KB');
  near(Number(unpackedMb), info.unpackedSize / 1e6, 'unpacked MB');
  assert.equal(Number(files), info.entryCount, 'files in the tarball');
});

test('every type the package declares is declared once (a second declaration would merge into the first)', () => {
  const names = new Map();
  for (const file of ['index.d.ts', 'web/contextview.d.ts']) {
    const text = readFileSync(`${pkgDir}${file}`, 'utf8');
    for (const [, name] of text.matchAll(/^export (?:declare )?(?:interface|type|class|enum) (\w+)/gm)) {
      names.set(name, [...(names.get(name) ?? []), file]);
    }
  }
  // On purpose: `Session`'s typed methods (dispatch, build) are an interface merged into the class.
  const merged = new Set(['Session']);
  const twice = [...names].filter(([name, files]) => files.length > 1 && !merged.has(name)).map(([name, files]) => `${name} (${files.join(', ')})`);
  assert.deepEqual(twice, []);
  assert.ok(names.size > 300, `${names.size} types`);
});

test('each module stays within its size budget', () => {
  // Gzipped bytes at most. The first-load module is what a web IDE downloads before anything
  // works; the lazy one (importers, discovery) what its first import or discovery fetches. A
  // capability that grows either past its budget fails here until the budget is raised on
  // purpose. (The Node build loads the web build's files. Node's gzip at level 9, which packs a
  // few KB less tightly than `gzip -9`.) Raised on purpose when the modules became crates built
  // in one cargo run, the core compiled once at "s" for both: the lazy one links the core's
  // code at "s", not "z" (+21.7 KB), the first one inlines a little differently across the
  // crates at link time (+5.3 KB); and again when the settings' tagged enums were each declared
  // once (`tagged_enum!`: a conversion from the reader's type, +2.8 KB). Lowered when the core's
  // structs were read by generated readers instead of serde's derived ones (`#[derive(ReadValue)]`:
  // and its enums: first 690,028 B -> 598,654 B, lazy 306,061 B -> 304,314 B), and when imagesize
  // kept only the formats the sniffer names (first 593,027 B, lazy 299,333 B), the providers'
  // content blocks too (595,618 B), and the hand readers read by generated ones without rebuilding
  // their value (592,671 B, lazy 299,306 B), and when an import parsed each line once and
  // replayed its log once (lazy 296,688 B). Raised on purpose when the subagent records, the
  // subagent commands and the head budget, read by hand, were generated from their declarations
  // too (+2.3 KB: serde's `Option` reader instantiated for the counts read null-as-absent, where
  // the hand readers walked the map themselves). The lazy one raised on purpose for the Gemini CLI
  // importer, its recording reader and its fidelity reader (+8.3 KB, 304,995 B; the first-load
  // module unchanged), and for the Copilot CLI importer with its fidelity reader (+3.6 KB,
  // 308,559 B), and for the Aider transcript reader and importer (+4.6 KB, 313,163 B), and for the Cline, Roo Code and Kilo Code task importer with its
  // fidelity reader (+7.2 KB, 320,346 B), and for the OpenCode export importer with its fidelity
  // reader (+5 KB, 325,310 B), and for the incremental import a followed file goes through, with
  // its JavaScript class (+5 KB, 330,309 B), and for the line readers it reads Codex, pi and
  // Copilot CLI files through and its calibration one anchor at a time (+4.2 KB, 334,526 B), and
  // for a Copilot CLI subagent's events read into a session of its own, with the importers'
  // shared parts split into modules (+4.6 KB together, 339,079 B), and for a task's chat read
  // beside its history (usage per request, Cline's truncations: +5.4 KB, 344,458 B), and for a
  // line-read file rewritten under its reader, compared whole from then on (+0.6 KB, 345,081 B),
  // and for a followed file's last model turn held back as pending until the file goes past it,
  // found by the core's request points (+2.2 KB, 347,252 B), and for a task's history imported
  // once with its chat and the rewind kept from naming a prompt the log lacks (+0.5 KB,
  // 347,749 B), and for an OpenCode storage folder's files put together as its export
  // (`importOpenCodeStorage`, with what the import says of a message named by its file: +4.5 KB,
  // 352,298 B), and for a newer Copilot CLI's events (images kept as session assets, a skill's
  // body delivered, a cleared conversation: +1.2 KB, 353,585 B), and for a session an early
  // Copilot CLI brought in from its older format (its chat messages: +1.7 KB, 355,302 B);
  // BENCHMARKS.md.
  const BUDGETS = { 'contextview_bg.wasm': 595_000, 'contextview_lazy_bg.wasm': 355_500 };
  for (const [file, budget] of Object.entries(BUDGETS)) {
    const gz = gzipSync(readFileSync(`${pkgDir}web/${file}`), { level: 9 }).length;
    assert.ok(gz <= budget, `${file}: ${gz} B gzipped, over the budget of ${budget} B`);
  }
});
