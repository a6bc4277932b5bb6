// The README's TypeScript examples as a new user runs them: the package packed with `npm pack`
// and installed into a scratch project, each ```ts block compiled verbatim by tsc (strict) and
// run with Node against a local stand-in for the four providers (readme-mock.mjs over
// standin.mjs). The blocks without top-level await are also compiled and run as CommonJS. The
// quick start runs against a stand-in whose first answer on each API fails — a 429, a connection
// dropped mid-text, an answer cut by the output limit, a proxy's HTML 500 — and must still end
// each turn: every request valid, the second carrying the tool's result, each log holding the
// failure and both answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** How each API's first answer fails in the quick start's run. */
const FAULTS = 'anthropic:rate-limited,openai-chat:drop-text,openai-responses:max-tokens,gemini:html-500';
const CUT_TEXT = 'The parser keeps every line but the';
const tsc = join(root, 'node_modules/.bin/tsc');

/** The README's ```ts blocks, in order. */
function blocks() {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  return [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

function run(cmd, args, cwd, env = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k', GEMINI_API_KEY: 'k', ...env } });
  if (r.error) throw r.error;
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The README's set-up commands for a JavaScript project (its ```sh block that runs `npm init`). */
function setup() {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const block = [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]).find((b) => b.includes('npm init'));
  assert.ok(block, 'the README says how to set a project up');
  return block.split('\n').map((l) => l.replace(/#.*$/, '').trim()).filter(Boolean);
}

/**
 * A scratch project made as the README says (`npm init -y`, then its other set-up commands),
 * with the packed package installed where it says `npm install contextview`.
 */
function project() {
  const dir = mkdtempSync(join(tmpdir(), 'cv-readme-'));
  const packed = run('npm', ['pack', join(root, 'pkg'), '--pack-destination', dir, '--silent'], dir);
  assert.equal(packed.code, 0, packed.err);
  const tarball = join(dir, packed.out.trim().split('\n').pop());
  for (const line of setup()) {
    const [cmd, ...args] = line.split(/\s+/);
    assert.equal(cmd, 'npm', `a set-up command the test knows how to run: ${line}`);
    const install = args[0] === 'install' && args.includes('contextview');
    const argv = install ? ['install', '--offline', '--no-audit', '--no-fund', '--silent', tarball] : args;
    const r = run('npm', argv, dir);
    assert.equal(r.code, 0, `${line}:\n${r.err}`);
  }
  assert.equal(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).type, 'module', 'the set-up makes an ES module project');
  // What the examples read: the example session, a file for the tool to read, a rule and a skill.
  cpSync(join(root, 'examples'), join(dir, 'examples'), { recursive: true });
  writeFileSync(join(dir, 'parser.rs'), 'fn parse(input: &str) -> Vec<&str> { input.lines().collect() }\n');
  cpSync(join(root, 'tests/fixtures/claude-code.jsonl'), join(dir, 'agent-session.jsonl'));
  writeFileSync(join(dir, 'AGENTS.md'), '# Rules\nRun the tests before you stop.\n');
  mkdirSync(join(dir, '.claude/skills/deploy'), { recursive: true });
  writeFileSync(join(dir, '.claude/skills/deploy/SKILL.md'), '---\nname: deploy\ndescription: Deploy the service.\n---\nRun make deploy.\n');
  cpSync(join(root, 'tests/js/readme-mock.mjs'), join(dir, 'mock.mjs'));
  cpSync(join(root, 'tests/js/standin.mjs'), join(dir, 'standin.mjs'));
  // No name is left to the reader: the examples declare what they use.
  writeFileSync(join(dir, 'globals.d.ts'), 'export {};\n');
  return dir;
}

function tsconfig(dir, files, module) {
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, target: 'es2022', module, moduleResolution: module, outDir: 'out', skipLibCheck: false,
      lib: ['es2022', 'dom', 'dom.asynciterable'], types: ['node'], typeRoots: [join(root, 'node_modules/@types')],
    },
    files: [...files, 'globals.d.ts'],
  }));
}

test("the README's TypeScript examples compile as written and run against a local mock of every provider", async (t) => {
  const examples = blocks();
  assert.ok(examples.length >= 5, `${examples.length} ts blocks`);
  const dir = project();
  try {
    const files = examples.map((code, i) => {
      writeFileSync(join(dir, `example${i}.ts`), code);
      return `example${i}.ts`;
    });
    tsconfig(dir, files, 'nodenext');
    const compiled = run(tsc, ['-p', dir], dir);
    assert.equal(compiled.code, 0, `tsc (strict, ESM):\n${compiled.out}${compiled.err}`);

    for (const [i, code] of examples.entries()) {
      await t.test(`example ${i}: ${code.split('\n').find((l) => !l.startsWith('import') && l.trim())?.slice(0, 60)}`, () => {
        rmSync(join(dir, 'requests.jsonl'), { force: true });
        const quickStart = code.includes("for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini'] as const)");
        const r = run(process.execPath, ['--import', './mock.mjs', `out/example${i}.js`], dir, quickStart ? { CV_STANDIN_FAULTS: FAULTS } : {});
        assert.equal(r.code, 0, `example ${i} failed:\n${r.err}`);
        // The quick start says each retry on stderr; nothing else may be said there.
        const retries = r.err.split('\n').filter((l) => l.startsWith('retry: '));
        assert.doesNotMatch(r.err.split('\n').filter((l) => !l.startsWith('retry: ')).join('\n'), /Error|warning/i, r.err);
        if (!quickStart) return;
        // The quick start: one turn with a tool round on every API, each API's first answer failing.
        assert.deepEqual(retries.map((l) => l.replace(/again in \d+ ms/, 'again in N ms')), [
          'retry: provider_error 429, again in N ms',
          'retry: connection_dropped connection_dropped, again in N ms',
          'retry: provider_error 500, again in N ms',
        ]);
        assert.match(retries[0], /again in 20 ms$/, "the server's retry-after-ms, obeyed");
        const requests = readFileSync(join(dir, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
        assert.deepEqual(requests.map((q) => [q.provider, q.scenario, q.answered]), [
          ['anthropic', 'rate-limited', false], ['anthropic', 'ok', false], ['anthropic', 'ok', true],
          ['openai-chat', 'drop-text', false], ['openai-chat', 'ok', false], ['openai-chat', 'ok', true],
          ['openai-responses', 'max-tokens', false], ['openai-responses', 'ok', false], ['openai-responses', 'ok', true],
          ['gemini', 'html-500', false], ['gemini', 'ok', false], ['gemini', 'ok', true],
        ]);
        // After a failure with nothing in it, the same bytes; after part of an answer, more.
        const sent = (provider, n) => JSON.stringify(requests.filter((q) => q.provider === provider)[n].body);
        assert.equal(sent('anthropic', 1), sent('anthropic', 0));
        assert.equal(sent('gemini', 1), sent('gemini', 0));
        assert.match(sent('openai-chat', 1), /interrupted before it finished/);
        assert.match(sent('openai-responses', 1), /cut off by the output token limit/);
        for (const q of requests) {
          assert.deepEqual(q.violations, [], `${q.provider}: the body passes its API's rules`);
          assert.equal(q.streamed, true, `${q.provider}: the settings asked for a stream`);
        }
        // The second request carries the model's call back with its own id, and the result.
        const second = Object.fromEntries(requests.filter((q) => q.answered).map((q) => [q.provider, JSON.stringify(q.body)]));
        assert.match(second.anthropic, /"type":"tool_use","id":"toolu_01Read"/);
        assert.match(second['openai-chat'], /"tool_call_id":"call_01Read"/);
        assert.match(second['openai-responses'], /"type":"function_call_output","call_id":"call_01Read"/);
        assert.match(second.gemini, /"functionResponse":\{"id":"[^"]+","name":"read_file","response":\{"output":"fn parse/);
        const turn = 'Reading the parser.The parser drops the last line.';
        assert.equal(r.out, [turn, `Reading th${turn}`, `${CUT_TEXT}${turn}`, turn].join(''), 'the streamed text, as it arrived');
        // Each log: the failure, then both answers (and the continued one).
        for (const [provider, ends] of Object.entries({
          anthropic: ['failed', 'complete', 'complete'], 'openai-chat': ['partial', 'complete', 'complete'],
          'openai-responses': ['complete', 'complete', 'complete'], gemini: ['failed', 'complete', 'complete'],
        })) {
          const log = readFileSync(join(dir, `${provider}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
          assert.deepEqual(log.filter((l) => l.event?.kind === 'answer_end').map((l) => l.event.status), ends, `${provider}.jsonl`);
        }
      });
    }

    // The quick start as written, with every API's first answer failing the same way, for each
    // way an answer can fail: the loop goes on by itself, or stops with the error it cannot mend.
    const quick = examples.findIndex((code) => code.includes("for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini'] as const)"));
    const turn = 'Reading the parser.The parser drops the last line.';
    // (scenario, what the stderr says of each retry, what each log's answer_ends say, or the error it stops with)
    const runs = [
      ['rate-limited', /^retry: provider_error 429, again in 20 ms$/, ['failed', 'complete', 'complete']],
      ['overloaded', /^retry: provider_error (529|503), again in \d+ ms$/, ['failed', 'complete', 'complete']],
      ['overloaded-mid-stream', /^retry: provider_error (undefined|503|overloaded|server_error), again in \d+ ms$/, ['failed', 'complete', 'complete']],
      ['html-500', /^retry: provider_error 500, again in \d+ ms$/, ['failed', 'complete', 'complete']],
      ['empty-503', /^retry: provider_error 503, again in \d+ ms$/, ['failed', 'complete', 'complete']],
      ['drop-text', /^retry: connection_dropped connection_dropped, again in \d+ ms$/, ['partial', 'complete', 'complete']],
      ['drop-thinking', /^retry: connection_dropped connection_dropped, again in \d+ ms$/, ['partial', 'complete', 'complete']],
      ['drop-call', /^retry: connection_dropped connection_dropped, again in \d+ ms$/, ['partial', 'complete', 'complete']],
      ['early-end', /^retry: answer_incomplete answer_incomplete, again in \d+ ms$/, ['partial', 'complete', 'complete']],
      ['max-tokens', null, ['complete', 'complete', 'complete']],
      // Not the model being done: said on stderr, and the loop goes on to the next API.
      ['refusal', /^(anthropic|openai-chat|openai-responses|gemini): refused  (refusal|SAFETY|stop|completed), request /, ['complete']],
      ['max-tokens*4', /^(anthropic|openai-chat|openai-responses|gemini): turn_unfinished  turn_unfinished, request /, ['complete', 'complete', 'complete', 'complete']],
      // The stand-in names 210,000 tokens for the one-line prompt: by its count, over the window alone.
      ['context-length', 'anthropic: prompt_too_long 400 invalid_request_error, request req_standinCtx', ['failed']],
    ];
    for (const [scenario, retried, ends] of runs) {
      await t.test(`the quick start, each API's first answer: ${scenario}`, () => {
        rmSync(join(dir, 'requests.jsonl'), { force: true });
        for (const p of ['anthropic', 'openai-chat', 'openai-responses', 'gemini']) rmSync(join(dir, `${p}.jsonl`), { force: true });
        const faults = ['anthropic', 'openai-chat', 'openai-responses', 'gemini'].map((p) => `${p}:${scenario}`).join(',');
        const r = run(process.execPath, ['--import', './mock.mjs', `out/example${quick}.js`], dir, { CV_STANDIN_FAULTS: faults });
        const lines = r.err.split('\n').filter(Boolean);
        if (typeof retried === 'string') {
          // Not mended by a retry: the loop stops with the typed error, after the log holds it.
          assert.notEqual(r.code, 0);
          assert.ok(lines.includes(retried), r.err);
          const log = readFileSync(join(dir, 'anthropic.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
          assert.deepEqual(log.filter((l) => l.event?.kind === 'answer_end').map((l) => l.event.status), ends);
          return;
        }
        assert.equal(r.code, 0, r.err);
        const retries = lines.filter((l) => l.startsWith('retry: '));
        if (retried && !retried.source.startsWith('^retry')) {
          // Said once per API, and nothing retried.
          assert.equal(lines.filter((l) => retried.test(l)).length, 4, r.err);
          assert.deepEqual(retries, []);
        } else if (retried) {
          assert.equal(retries.length, 4, r.err);
          for (const l of retries) assert.match(l, retried);
        } else {
          assert.deepEqual(retries, []);
        }
        assert.doesNotMatch(lines.filter((l) => !l.startsWith('retry: ')).join('\n'), /Error|warning/i, r.err);
        if (!['refusal', 'max-tokens*4'].includes(scenario)) assert.ok(r.out.endsWith(turn), r.out);
        const requests = readFileSync(join(dir, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
        for (const q of requests) assert.deepEqual(q.violations, [], `${q.provider}: every request passes its API's rules`);
        for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini']) {
          const log = readFileSync(join(dir, `${provider}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
          assert.deepEqual(log.filter((l) => l.event?.kind === 'answer_end').map((l) => l.event.status), ends, `${provider}.jsonl`);
        }
      });
    }

    // One API's own endings, and a storage that fails once, through the quick start as written.
    const quickRun = (env) => {
      rmSync(join(dir, 'requests.jsonl'), { force: true });
      rmSync(join(dir, 'storage-faults.jsonl'), { force: true });
      for (const p of ['anthropic', 'openai-chat', 'openai-responses', 'gemini']) rmSync(join(dir, `${p}.jsonl`), { force: true });
      return run(process.execPath, ['--import', './mock.mjs', `out/example${quick}.js`], dir, env);
    };
    const logOf = (provider) => readFileSync(join(dir, `${provider}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const requestsOf = (provider) => readFileSync(join(dir, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((q) => q.provider === provider);

    await t.test('the quick start: a prompt Gemini blocks ends its turn, typed, and the loop goes on', () => {
      const r = quickRun({ CV_STANDIN_FAULTS: 'gemini:blocked' });
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(r.err.split('\n').filter(Boolean), ['gemini: refused  MODEL_ARMOR, request undefined']);
      assert.deepEqual(logOf('gemini').filter((l) => l.event?.kind === 'answer_end').map((l) => [l.event.status, l.event.refused]), [['complete', true]]);
      assert.equal(requestsOf('gemini').length, 1, 'the blocked request is not sent again');
    });

    await t.test('the quick start: a refusal that names no number, for a prompt over the window, ends typed and is not sent again', () => {
      const r = quickRun({ CV_STANDIN_FAULTS: 'openai-responses:context-length*9' });
      assert.notEqual(r.code, 0);
      assert.ok(r.err.split('\n').includes('openai-responses: prompt_too_long 400 invalid_request_error, request req_standinCtx'), r.err);
      const sizes = requestsOf('openai-responses').map((q) => q.bytes);
      for (let i = 1; i < sizes.length; i++) assert.ok(sizes[i] < sizes[i - 1], `each request smaller than the one refused: ${sizes}`);
    });

    await t.test('the quick start: a storage that fails once stops the loop at the call that wrote, with nothing sent ahead of it and nothing acknowledged lost', () => {
      // The fourth append to openai-chat.jsonl (the first answer) finds the disk full.
      const r = quickRun({ CV_STORAGE_FAULTS: 'openai-chat.jsonl:4' });
      assert.notEqual(r.code, 0);
      assert.match(r.err, /StorageError: storage did not take records \d+–\d+: cannot append to openai-chat\.jsonl: ENOSPC: no space left on device/, r.err);
      assert.match(r.err, /code: 'write_failed'/, r.err);
      assert.deepEqual(readFileSync(join(dir, 'storage-faults.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)), [{ file: 'openai-chat.jsonl', append: 4 }]);
      // Anthropic's turn ended before; openai-chat's request went once, and nothing after the failure.
      assert.deepEqual(logOf('anthropic').filter((l) => l.event?.kind === 'answer_end').map((l) => l.event.status), ['complete', 'complete']);
      assert.equal(requestsOf('openai-chat').length, 1);
      assert.equal(requestsOf('openai-responses').length, 0);
      // What storage holds loads clean: what was acknowledged (the model, the prompt, the tools).
      const log = logOf('openai-chat');
      assert.deepEqual(log.map((l) => l.event?.kind ?? l.update?.sessionUpdate ?? 'header'), ['header', 'model_switch', 'user_message_chunk', 'tools_defined']);
    });

    // The same examples from CommonJS, where they need no top-level await.
    const cjs = examples.map((code, i) => [code, i]).filter(([code]) => !/\bawait\b/.test(code));
    assert.ok(cjs.length >= 1, 'a README example runs in CommonJS');
    const cjsDir = join(dir, 'cjs');
    mkdirSync(cjsDir);
    writeFileSync(join(cjsDir, 'package.json'), JSON.stringify({ name: 'readme-cjs', private: true, type: 'commonjs' }));
    cpSync(join(dir, 'node_modules'), join(cjsDir, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    cpSync(join(dir, 'examples'), join(cjsDir, 'examples'), { recursive: true });
    cpSync(join(dir, 'globals.d.ts'), join(cjsDir, 'globals.d.ts'));
    const cjsFiles = cjs.map(([code, i]) => {
      writeFileSync(join(cjsDir, `example${i}.ts`), code);
      return `example${i}.ts`;
    });
    tsconfig(cjsDir, cjsFiles, 'node16');
    const cjsCompiled = run(tsc, ['-p', cjsDir], cjsDir);
    assert.equal(cjsCompiled.code, 0, `tsc (strict, CommonJS):\n${cjsCompiled.out}${cjsCompiled.err}`);
    for (const file of cjsFiles) {
      const out = join('out', file.replace(/\.ts$/, '.js'));
      assert.match(readFileSync(join(cjsDir, out), 'utf8'), /require\("contextview"\)/, 'compiled to require()');
      const r = run(process.execPath, [out], cjsDir);
      assert.equal(r.code, 0, `${file} as CommonJS:\n${r.err}`);
    }
  } finally {
    if (!existsSync(join(dir, 'keep'))) rmSync(dir, { recursive: true, force: true });
  }
});
