// Discovery through the package in Node: the driver (discover.mjs) over the wasm WorkspaceEngine,
// with the memory adapter and the Node adapter on the same fixture workspace (ours, in
// discover-fixture.mjs). Plus the driver alone against a fake engine, and the adapters alone.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync, mkdirSync, writeFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as cv from '../../pkg/node.mjs';
import { answerRequest, bindDiscover, MAX_ROUNDS } from '../../pkg/discover.mjs';
import { workspaceFixture, writeTree, levelOf, mentions, pathOf, nameOf } from './discover-fixture.mjs';

const pkgDir = fileURLToPath(new URL('../../pkg/', import.meta.url));
const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'contextview-discover-')));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const callsOf = (s) => s.calls.readDir + s.calls.readFile;

/**
 * The adapters under test, each on its own copy of the fixture at the same absolute paths (the
 * memory copy never touches the disk), so their environments must be equal.
 */
const ADAPTERS = {
  memory() {
    const fx = workspaceFixture(`${tmp}/ws`);
    const fs = cv.memoryFs(fx.files);
    return { fx, fs, write: (path, text) => fs.write(path, text) };
  },
  node() {
    const fx = workspaceFixture(`${tmp}/ws`);
    writeTree(fx.files);
    return {
      fx,
      fs: cv.nodeFs(),
      write: (path, text) => {
        mkdirSync(join(path, '..'), { recursive: true });
        writeFileSync(path, text);
      },
    };
  },
};

const environments = {};

for (const [name, make] of Object.entries(ADAPTERS)) {
  describe(`discover with the ${name} adapter`, () => {
    let fx, fs, write, ws;

    before(async () => {
      ({ fx, fs, write } = make());
      ws = await cv.discover({ cwd: fx.paths.cwd, home: fx.paths.home }, fs);
      environments[name] = { env: structuredClone(ws.environment), fx };
    });

    after(() => ws?.free());

    test('environment has the documented shape', () => {
      const env = ws.environment;
      for (const key of ['rules', 'skills', 'skillListing', 'diagnostics', 'stats', 'repoRoot']) {
        assert.ok(key in env, `environment.${key}`);
      }
      assert.ok(Array.isArray(env.rules) && Array.isArray(env.skills) && Array.isArray(env.diagnostics));
      assert.equal(env.repoRoot, fx.paths.root);
      for (const r of env.rules) {
        assert.equal(typeof r.path, 'string', JSON.stringify(r));
        assert.ok(r.path.startsWith('/'), `absolute rule path ${r.path}`);
        assert.ok(r.source !== undefined && r.source !== null && r.source !== '', `rule ${r.path} has a source`);
      }
      for (const d of env.diagnostics) {
        assert.equal(typeof d.code, 'string');
        assert.equal(typeof d.severity, 'string');
        assert.equal(typeof d.message, 'string');
      }
      const stats = ws.stats();
      assert.ok(Number.isInteger(stats.calls.readDir) && Number.isInteger(stats.calls.readFile));
      assert.ok(Number.isInteger(stats.bytesRead) && stats.bytesRead > 0);
      assert.ok(Number.isInteger(stats.rounds) && stats.rounds > 0);
    });

    test('every unconditional rule loads exactly once; conditional ones do not', () => {
      const { rules } = ws.environment;
      for (const marker of fx.unconditional) {
        assert.equal(mentions(rules, marker), 1, `${marker} once in ${JSON.stringify(rules.map((r) => r.path))}`);
      }
      assert.equal(mentions(rules, 'MARK-RULE-X'), 0, '.claude/rules/x.md has paths: — attached by rulesForPath');
      assert.equal(mentions(rules, 'MARK-RULE-Z'), 0, '.cursor/rules/z.mdc has globs: — attached by rulesForPath');
      assert.equal(new Set(rules.map((r) => r.path)).size, rules.length, 'no path twice');
    });

    test('rules come home first, then repository root down to cwd', () => {
      const levels = ws.environment.rules.map((r) => levelOf(fx.paths, r.path));
      assert.ok(!levels.includes(-1), `every rule is under home or the repo: ${ws.environment.rules.map((r) => r.path)}`);
      assert.deepEqual(levels, [...levels].sort((x, y) => x - y), `order by level: ${ws.environment.rules.map((r) => r.path)}`);
      assert.deepEqual([...new Set(levels)], [0, 1, 2, 3]);
    });

    test('the symlinked CLAUDE.md loads once (as AGENTS.md or as the link)', () => {
      const inB = ws.environment.rules.filter((r) => levelOf(fx.paths, r.path) === 3);
      assert.equal(inB.length, 1, JSON.stringify(inB.map((r) => r.path)));
      assert.equal(mentions(inB, 'MARK-B-AGENTS'), 1);
    });

    test('CLAUDE.local.md loads although .gitignore ignores it', () => {
      const local = ws.environment.rules.filter((r) => r.path === `${fx.paths.root}/CLAUDE.local.md`);
      assert.equal(local.length, 1);
      assert.equal(mentions(local, 'MARK-ROOT-LOCAL'), 1);
    });

    test('skills are listed with name and description', () => {
      const { skills, skillListing } = ws.environment;
      assert.deepEqual(skills.map((s) => s.name).sort(), Object.keys(fx.skills).sort());
      for (const s of skills) {
        assert.equal(typeof s.description, 'string');
        assert.ok(s.description.length > 0, `${s.name} has a description`);
        assert.equal(mentions([s], fx.skills[s.name]), 0, `${s.name}: the listing does not carry the body`);
      }
      assert.ok(skills.find((s) => s.name === 'lint-fix').description.startsWith('Fix lint errors'));
      for (const name of Object.keys(fx.skills)) assert.ok(JSON.stringify(skillListing).includes(name), `skillListing names ${name}`);
    });

    test('loadSkill returns the body; an unknown name rejects with unknown_skill', async () => {
      for (const [skill, marker] of Object.entries(fx.skills)) {
        const loaded = await ws.loadSkill(skill);
        assert.equal(loaded.name, skill);
        assert.ok(loaded.path.endsWith(`/${skill}/SKILL.md`), loaded.path);
        assert.ok(loaded.body.includes(marker), `${skill} body: ${JSON.stringify(loaded.body)}`);
        assert.ok(!loaded.body.includes('description:'), 'the body is without its frontmatter');
        assert.ok(JSON.stringify(loaded.frontmatter).includes(skill), 'frontmatter carries the name');
      }
      await assert.rejects(ws.loadSkill('no-such-skill'), (e) => e instanceof Error && e.code === 'unknown_skill');
    });

    test('rulesForPath attaches a glob rule once (also with invalid YAML globs)', async () => {
      const first = await ws.rulesForPath(fx.paths.mainTs);
      assert.equal(mentions(first, 'MARK-RULE-Z'), 1, `z.mdc for main.ts: ${JSON.stringify(first.map((r) => r.path))}`);
      assert.deepEqual(first.map((r) => r.path), [`${fx.paths.root}/.cursor/rules/z.mdc`], 'only z.mdc is new for main.ts');
      assert.deepEqual(await ws.rulesForPath(fx.paths.mainTs), [], 'second time: nothing new');

      const docs = await ws.rulesForPath(fx.paths.guide);
      assert.deepEqual(docs.map((r) => r.path), [`${fx.paths.root}/.claude/rules/x.md`], 'paths: frontmatter attaches x.md for docs/');
      assert.equal(mentions(docs, 'MARK-RULE-X'), 1);
      assert.deepEqual(await ws.rulesForPath(fx.paths.guide), []);
    });

    test('the invalid YAML in z.mdc is repaired with a diagnostic, not dropped', () => {
      const all = ws.environment.diagnostics;
      assert.ok(all.some((d) => JSON.stringify(d).includes('z.mdc')), `a diagnostic names z.mdc: ${JSON.stringify(all)}`);
    });

    test('refresh after editing one rule: reported as edited, at most 4 host calls', async () => {
      const path = `${fx.paths.a}/CLAUDE.md`;
      write(path, 'MARK-A-EDITED: package a now uses spaces.\n');
      const before = ws.stats();
      const changes = await ws.refresh([path]);
      const after = ws.stats();
      assert.deepEqual(changes.rules.edited.map(pathOf), [path]);
      assert.deepEqual(changes.rules.added, []);
      assert.deepEqual(changes.rules.removed, []);
      assert.deepEqual(changes.skills, { added: [], removed: [], edited: [] });
      assert.equal(ws.environment, changes.environment, 'environment is updated');
      assert.equal(mentions(ws.environment.rules, 'MARK-A-EDITED'), 1);
      assert.equal(mentions(ws.environment.rules, 'MARK-A-CLAUDE'), 0);
      const cost = callsOf(after) - callsOf(before);
      assert.ok(cost >= 1 && cost <= 4, `refresh of one file cost ${cost} host calls`);
      const nothing = await ws.refresh([path]);
      assert.deepEqual(nothing.rules, { added: [], removed: [], edited: [] }, 'refresh without a change changes nothing');
    });

    test('refresh after adding a skill directory: reported as added', async () => {
      const dir = `${fx.paths.root}/.claude/skills/new-skill`;
      write(`${dir}/SKILL.md`, '---\nname: new-skill\ndescription: A skill added later.\n---\nMARK-SKILL-NEW\n');
      const changes = await ws.refresh([dir]);
      assert.ok(changes.skills.added.some((s) => nameOf(s) === 'new-skill' || pathOf(s)?.includes('/new-skill/')),
        JSON.stringify(changes.skills));
      assert.deepEqual(changes.rules, { added: [], removed: [], edited: [] });
      assert.ok(ws.environment.skills.some((s) => s.name === 'new-skill'));
      assert.ok((await ws.loadSkill('new-skill')).body.includes('MARK-SKILL-NEW'));
    });
  });
}

test('Node and memory adapters give the same environment for the same tree', () => {
  assert.ok(environments.memory && environments.node, 'both adapters ran');
  const mem = environments.memory.env;
  const node = environments.node.env;
  assert.deepEqual(node.rules.map((r) => r.path), mem.rules.map((r) => r.path));
  assert.deepEqual(node.rules, mem.rules);
  assert.deepEqual(node.skills.map((s) => s.name), mem.skills.map((s) => s.name));
  assert.deepEqual(node, mem);
});

/** memoryFs wrapped: every answer async, missing paths thrown as errors, and chosen paths failing. */
function wrapped(inner, { failSync = new Set(), failAsync = new Set(), notFoundAs = 'ENOENT' } = {}) {
  const missing = (path) => (notFoundAs === 'ENOENT'
    ? Object.assign(new Error(`ENOENT: no such file or directory, '${path}'`), { code: 'ENOENT' })
    : Object.assign(new Error('A requested file or directory could not be found.'), { name: 'NotFoundError' }));
  const call = (op) => (path, maxBytes) => {
    if (failSync.has(path)) throw new Error(`boom-sync ${op} ${path}`);
    if (failAsync.has(path)) return Promise.reject(new Error(`boom-async ${op} ${path}`));
    const result = inner[op](path, maxBytes);
    return result == null ? Promise.reject(missing(path)) : Promise.resolve(result);
  };
  return { readDir: call('readDir'), readFile: call('readFile') };
}

describe('host callbacks', () => {
  const fx = workspaceFixture('/w');
  let plain;
  before(async () => {
    const ws = await cv.discover({ cwd: fx.paths.cwd, home: fx.paths.home }, cv.memoryFs(fx.files));
    plain = ws.environment;
    ws.free();
  });

  for (const notFoundAs of ['ENOENT', 'NotFoundError']) {
    test(`async callbacks and thrown ${notFoundAs} give the same environment as plain memoryFs`, async () => {
      const ws = await cv.discover({ cwd: fx.paths.cwd, home: fx.paths.home }, wrapped(cv.memoryFs(fx.files), { notFoundAs }));
      assert.deepEqual(ws.environment, plain);
      ws.free();
    });
  }

  test('a callback that throws and one that rejects become diagnostics', async () => {
    const throwing = `${fx.paths.root}/CLAUDE.md`;
    const rejecting = `${fx.paths.root}/.claude/skills`;
    const fs = wrapped(cv.memoryFs(fx.files), { failSync: new Set([throwing]), failAsync: new Set([rejecting]) });
    const ws = await cv.discover({ cwd: fx.paths.cwd, home: fx.paths.home }, fs);
    const { rules, skills, diagnostics } = ws.environment;
    const about = (path, text) => diagnostics.some((d) => d.path === path || JSON.stringify(d).includes(text));
    assert.ok(about(throwing, 'boom-sync'), `diagnostic for the throwing readFile: ${JSON.stringify(diagnostics)}`);
    assert.ok(about(rejecting, 'boom-async'), `diagnostic for the rejecting readDir: ${JSON.stringify(diagnostics)}`);
    assert.ok(diagnostics.every((d) => typeof d.code === 'string' && typeof d.message === 'string'));
    assert.equal(mentions(rules, 'MARK-ROOT-CLAUDE'), 0);
    assert.equal(mentions(rules, 'MARK-ROOT-AGENTS'), 1, 'the other rules still load');
    assert.deepEqual(skills.map((s) => s.name), ['release-notes'], 'the other skill root still lists');
    ws.free();
  });

  test('bad options reject with invalid_options; a bad fs with invalid_argument', async () => {
    await assert.rejects(cv.discover({ home: '/h' }, cv.memoryFs({})), (e) => e.code === 'invalid_options');
    await assert.rejects(cv.discover({ cwd: '/', outsideRepo: 'everywhere' }, cv.memoryFs({})), (e) => e.code === 'invalid_options');
    await assert.rejects(cv.discover({ cwd: '/' }, {}), (e) => e.code === 'invalid_argument');
  });

  test('a freed workspace refuses further jobs', async () => {
    const ws = await cv.discover({ cwd: fx.paths.cwd }, cv.memoryFs(fx.files));
    ws.free();
    await assert.rejects(ws.rulesForPath(fx.paths.mainTs), (e) => e.code === 'workspace_closed');
    assert.throws(() => ws.stats(), (e) => e.code === 'workspace_closed');
  });
});

// ---------------------------------------------------------------------------------------------
// The driver alone, against a scripted engine (no wasm): error mapping, concurrency, the guard.

/** An engine that asks `script(jobName, round)` for each round's requests; `null` = done. */
function scriptedEngine(script, log = []) {
  return class FakeEngine {
    #job = null;
    #round = 0;
    #pending = null;
    constructor(options) {
      if (!options || typeof options.cwd !== 'string') throw Object.assign(new Error('cwd'), { code: 'invalid_options' });
    }
    #start(job) {
      if (this.#job) throw new Error(`job ${job} started while ${this.#job} runs`);
      this.#job = job;
      this.#round = 0;
      log.push(`start ${job}`);
    }
    startDiscover() { this.#start('discover'); }
    startRefresh(paths) { this.#start(`refresh ${paths}`); }
    startRulesForPath(path) { this.#start(`rules ${path}`); }
    startLoadSkill(name) { this.#start(`skill ${name}`); }
    step() {
      if (this.#pending) throw new Error('step before answer');
      const requests = script(this.#job, this.#round++);
      if (requests === null) {
        const outcome = { job: this.#job, rounds: this.#round - 1 };
        this.#job = null;
        return { done: true, outcome: outcome.job.startsWith('refresh') ? { environment: outcome } : outcome };
      }
      this.#pending = requests;
      return { done: false, requests };
    }
    answer(answers) {
      log.push(answers);
      this.#pending = null;
    }
    stats() { return { calls: { readDir: 0, readFile: 0 }, bytesRead: 0, rounds: this.#round }; }
    free() { log.push('free'); }
  };
}

describe('driver', () => {
  test('maps each kind of callback result to the protocol answer', async () => {
    const enoent = Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
    const domNotFound = Object.assign(new Error('gone'), { name: 'NotFoundError' });
    const fs = {
      readDir(path) {
        switch (path) {
          case '/list': return [{ name: 'a', kind: 'file' }];
          case '/null': return null;
          case '/undef': return undefined;
          case '/enoent': throw enoent;
          case '/dom': return Promise.reject(domNotFound);
          case '/throw': throw new Error('disk on fire');
          case '/reject': return Promise.reject(new Error('network gone'));
          case '/string-thrown': throw 'plain string';
          case '/not-array': return { entries: [] };
          default: throw new Error(`unexpected ${path}`);
        }
      },
      readFile(path, maxBytes) {
        switch (path) {
          case '/text': return 'hello';
          case '/bytes': return new Uint8Array([1, 2, 3]);
          case '/big-bytes': return new Uint8Array(100).fill(7);
          case '/big-text': return 'x'.repeat(100);
          case '/object': return Promise.resolve({ content: new Uint8Array([9, 9]), size: 1000 });
          case '/buffer': return Buffer.from('buf');
          case '/max': return String(maxBytes);
          case '/weird': return 42;
          default: return null;
        }
      },
    };
    const ask = (op, path, maxBytes) => answerRequest(fs, { id: 7, op, path, ...(maxBytes === undefined ? {} : { maxBytes }) });
    assert.deepEqual(await ask('readDir', '/list'), { id: 7, entries: [{ name: 'a', kind: 'file' }] });
    for (const p of ['/null', '/undef', '/enoent', '/dom']) assert.deepEqual(await ask('readDir', p), { id: 7, notFound: true }, p);
    assert.deepEqual(await ask('readDir', '/throw'), { id: 7, error: 'disk on fire' });
    assert.deepEqual(await ask('readDir', '/reject'), { id: 7, error: 'network gone' });
    assert.deepEqual(await ask('readDir', '/string-thrown'), { id: 7, error: 'plain string' });
    assert.match((await ask('readDir', '/not-array')).error, /expected an array/);
    assert.deepEqual(await ask('readFile', '/text', 10), { id: 7, content: 'hello' });
    assert.deepEqual(await ask('readFile', '/bytes', 10), { id: 7, content: new Uint8Array([1, 2, 3]), size: 3 });
    assert.deepEqual(await ask('readFile', '/big-bytes', 10), { id: 7, content: new Uint8Array(11).fill(7), size: 100 }, 'cut to maxBytes + 1');
    assert.deepEqual(await ask('readFile', '/big-text', 10), { id: 7, content: new Uint8Array(11).fill(0x78), size: 100 });
    assert.deepEqual(await ask('readFile', '/object', 10), { id: 7, content: new Uint8Array([9, 9]), size: 1000 });
    const buf = await ask('readFile', '/buffer', 10);
    assert.equal(buf.content.constructor, Uint8Array, 'a Buffer is passed as a plain Uint8Array');
    assert.equal(Buffer.from(buf.content).toString(), 'buf');
    assert.deepEqual(await ask('readFile', '/max', 5), { id: 7, content: '5' });
    assert.deepEqual(await ask('readFile', '/max'), { id: 7, content: 'undefined' }, 'no maxBytes: undefined');
    assert.deepEqual(await ask('readFile', '/missing', 5), { id: 7, notFound: true });
    assert.match((await ask('readFile', '/weird', 5)).error, /expected a string/);
    assert.match((await answerRequest(fs, { id: 1, op: 'stat', path: '/' })).error, /unknown host operation/);
  });

  test('runs a batch concurrently and answers in request order', async () => {
    const requests = [0, 1, 2].map((i) => ({ id: 10 + i, op: 'readFile', path: `/f${i}`, maxBytes: 100 }));
    const log = [];
    const Engine = scriptedEngine((job, round) => (round === 0 ? requests : null), log);
    let started = 0;
    let release;
    const all = new Promise((r) => { release = r; });
    const fs = {
      readDir: () => null,
      async readFile(path) {
        if (++started === 3) release();
        await all; // resolves only when all three calls have started
        return `content of ${path}`;
      },
    };
    const { discover } = bindDiscover(async () => Engine);
    const ws = await discover({ cwd: '/' }, fs);
    assert.deepEqual(ws.environment, { job: 'discover', rounds: 1 });
    assert.deepEqual(log[1].map((a) => a.id), [10, 11, 12]);
    assert.deepEqual(log[1].map((a) => a.content), ['content of /f0', 'content of /f1', 'content of /f2']);
  });

  test('jobs run one at a time, in call order', async () => {
    const log = [];
    const Engine = scriptedEngine((job, round) => (round < 2 ? [{ id: round, op: 'readDir', path: `/${job}` }] : null), log);
    const fs = { readDir: async () => { await new Promise((r) => setTimeout(r, 1)); return []; }, readFile: () => null };
    const { discover } = bindDiscover(async () => Engine);
    const ws = await discover({ cwd: '/' }, fs);
    const results = await Promise.all([ws.rulesForPath('/x.ts'), ws.loadSkill('s'), ws.refresh(['/a']), ws.rulesForPath('/y.ts')]);
    assert.deepEqual(results.map((r) => r.job ?? r.environment.job), ['rules /x.ts', 'skill s', 'refresh /a', 'rules /y.ts']);
    assert.deepEqual(log.filter((l) => typeof l === 'string' && l.startsWith('start')),
      ['start discover', 'start rules /x.ts', 'start skill s', 'start refresh /a', 'start rules /y.ts']);
    assert.deepEqual(ws.environment, { job: 'refresh /a', rounds: 2 }, 'refresh updates environment');
  });

  test(`a runaway engine is stopped after ${MAX_ROUNDS} rounds with discovery_stalled`, async () => {
    const log = [];
    let steps = 0;
    const Engine = scriptedEngine(() => { steps++; return [{ id: 1, op: 'readDir', path: '/again' }]; }, log);
    const { discover } = bindDiscover(async () => Engine);
    await assert.rejects(discover({ cwd: '/' }, { readDir: () => [], readFile: () => null }), (e) => {
      assert.equal(e.code, 'discovery_stalled');
      assert.match(e.message, /10000 rounds.*readDir \/again/);
      return true;
    });
    assert.equal(steps, MAX_ROUNDS + 1);
    assert.equal(log.at(-1), 'free', 'the engine is freed when discover fails');
  });

  test('engine errors propagate with their code', async () => {
    const { discover } = bindDiscover(async () => scriptedEngine(() => null));
    await assert.rejects(discover({}, { readDir() {}, readFile() {} }), (e) => e.code === 'invalid_options');
    // The engine's module failing to load rejects with its error, and a filesystem that is not
    // one is refused before the module is asked for.
    let asked = 0;
    const unavailable = bindDiscover(async () => {
      asked++;
      throw Object.assign(new Error('the lazy module could not be loaded'), { code: 'lazy_module_unavailable' });
    });
    await assert.rejects(unavailable.discover({ cwd: '/' }, { readDir() {}, readFile() {} }), (e) => e.code === 'lazy_module_unavailable');
    await assert.rejects(unavailable.discover({ cwd: '/' }, {}), (e) => e.code === 'invalid_argument');
    assert.equal(asked, 1);
  });
});

// ---------------------------------------------------------------------------------------------
// The adapters alone.

describe('adapters', () => {
  test('memoryFs: implied directories, sizes, symlinks, maxBytes, write and remove', () => {
    const fs = cv.memoryFs(new Map([
      ['/r/a.txt', 'héllo'],
      ['/r/bin', new Uint8Array([0, 1, 2, 3, 4, 5])],
      ['/r/link', { symlink: 'a.txt' }],
      ['/r/dirlink', { symlink: '/r/sub' }],
      ['/r/sub/deep/x.md', 'x'],
      ['/r/loop', { symlink: 'loop' }],
      ['/r/empty', { dir: true }],
    ]));
    assert.deepEqual(fs.readDir('/'), [{ name: 'r', kind: 'dir' }]);
    assert.deepEqual(fs.readDir('/r'), [
      { name: 'a.txt', kind: 'file', size: 6 },
      { name: 'bin', kind: 'file', size: 6 },
      { name: 'dirlink', kind: 'symlink', target: '/r/sub' },
      { name: 'empty', kind: 'dir' },
      { name: 'link', kind: 'symlink', target: 'a.txt' },
      { name: 'loop', kind: 'symlink', target: 'loop' },
      { name: 'sub', kind: 'dir' },
    ]);
    assert.deepEqual(fs.readDir('/r/empty'), []);
    assert.deepEqual(fs.readDir('/r/dirlink'), [{ name: 'deep', kind: 'dir' }], 'readDir follows a symlink');
    assert.deepEqual(fs.readDir('/r/dirlink/deep/'), [{ name: 'x.md', kind: 'file', size: 1 }]);
    assert.equal(fs.readDir('/nope'), null);
    assert.equal(fs.readDir('/r/a.txt/x'), null, 'a file in the middle of the path: not found');
    assert.equal(fs.readDir('/r/a.txt'), null, 'a file: no directory there');
    assert.throws(() => fs.readFile('/r/sub', 10), (e) => e.code === 'EISDIR');
    assert.throws(() => fs.readFile('/r/loop', 10), (e) => e.code === 'ELOOP');
    const whole = fs.readFile('/r/link', 100);
    assert.equal(new TextDecoder().decode(whole.content), 'héllo');
    assert.equal(whole.size, 6);
    assert.deepEqual(fs.readFile('/r/bin', 2), { content: new Uint8Array([0, 1, 2]), size: 6 });
    assert.deepEqual(fs.readFile('/r/bin'), { content: new Uint8Array([0, 1, 2, 3, 4, 5]), size: 6 });
    assert.equal(fs.readFile('/r/missing.md', 10), null);

    fs.write('/r/a.txt', 'longer text');
    assert.equal(fs.readDir('/r')[0].size, 11, 'a listing follows a rewritten file');
    fs.readDir('/r').pop();
    assert.equal(fs.readDir('/r').length, 7, 'callers cannot change a cached listing');
    fs.write('/r/sub/new/file.md', 'new');
    assert.deepEqual(fs.readDir('/r/sub').map((e) => e.name), ['deep', 'new']);
    assert.equal(fs.remove('/r/sub/deep'), true);
    assert.deepEqual(fs.readDir('/r/sub').map((e) => e.name), ['new']);
    assert.equal(fs.readFile('/r/sub/deep/x.md', 10), null, 'removing a directory removes what is below it');
    assert.equal(fs.remove('/r/sub/deep'), false);
    assert.throws(() => fs.write('/r/a.txt/inside', 'x'), (e) => e.code === 'ENOTDIR');
    assert.throws(() => fs.write('/r/bad', 42), TypeError);
  });

  test('nodeFs: symlinks with targets, maxBytes + 1, full size, not found', async () => {
    const dir = `${tmp}/adapter`;
    mkdirSync(`${dir}/sub`, { recursive: true });
    writeFileSync(`${dir}/big.txt`, 'a'.repeat(5000));
    writeFileSync(`${dir}/small.txt`, 'hi');
    symlinkSync('small.txt', `${dir}/link.txt`);
    symlinkSync('nowhere', `${dir}/dangling`);
    const fs = cv.nodeFs();
    assert.deepEqual(await fs.readDir(dir), [
      { name: 'big.txt', kind: 'file' },
      { name: 'dangling', kind: 'symlink', target: 'nowhere' },
      { name: 'link.txt', kind: 'symlink', target: 'small.txt' },
      { name: 'small.txt', kind: 'file' },
      { name: 'sub', kind: 'dir' },
    ]);
    const big = await fs.readFile(`${dir}/big.txt`, 100);
    assert.equal(big.content.constructor, Uint8Array);
    assert.equal(big.content.length, 101, 'reads maxBytes + 1');
    assert.equal(big.size, 5000);
    assert.equal((await fs.readFile(`${dir}/big.txt`)).content.length, 5000, 'no maxBytes: the whole file');
    const viaLink = await fs.readFile(`${dir}/link.txt`, 100);
    assert.equal(Buffer.from(viaLink.content).toString(), 'hi');
    assert.equal(viaLink.size, 2);
    assert.equal(await fs.readFile(`${dir}/missing`, 10), null);
    assert.equal(await fs.readFile(`${dir}/dangling`, 10), null);
    assert.equal(await fs.readDir(`${dir}/missing`), null);
    assert.equal(await fs.readDir(`${dir}/small.txt`), null, 'ENOTDIR: no directory there');
    await assert.rejects(fs.readFile(`${dir}/sub`, 10), (e) => e.code === 'EISDIR');
  });

  test('nodeFs and memoryFs list the fixture alike', async () => {
    const fx = workspaceFixture(`${tmp}/alike`);
    writeTree(fx.files);
    const mem = cv.memoryFs(fx.files);
    const node = cv.nodeFs();
    const dirs = [fx.paths.root, fx.paths.b, `${fx.paths.root}/.cursor/rules`, `${fx.paths.home}/.agents/skills`];
    for (const d of dirs) {
      const withoutSize = (mem.readDir(d) ?? []).map(({ size, ...e }) => e);
      assert.deepEqual(await node.readDir(d), withoutSize, d);
    }
    for (const f of Object.keys(fx.files)) {
      const a = await node.readFile(f, 20);
      const b = mem.readFile(f, 20);
      assert.deepEqual({ ...a, content: [...a.content] }, { ...b, content: [...b.content] }, f);
    }
  });

  test('entries: browser and workerd have the discovery API and no node: imports', async () => {
    for (const file of ['discover.mjs', 'browser.mjs', 'workerd.mjs']) {
      assert.doesNotMatch(readFileSync(pkgDir + file, 'utf8'), /from ['"]node:|import\(['"]node:/, file);
    }
    assert.match(readFileSync(pkgDir + 'node-fs.mjs', 'utf8'), /from 'node:fs\/promises'/);
    const browser = await import('../../pkg/browser.mjs');
    for (const name of ['discover', 'Workspace', 'memoryFs', 'browserFs']) assert.equal(typeof browser[name], 'function', name);
    assert.equal(browser.nodeFs, undefined, 'nodeFs is Node only');
    // The browser entry uses discover.mjs itself; the Node entry a bundled copy of it (index.cjs).
    const driver = await import('../../pkg/discover.mjs');
    assert.equal(browser.memoryFs, driver.memoryFs, 'the browser entry exports discover.mjs');
    assert.equal(browser.Workspace, driver.Workspace);
    const pkg = JSON.parse(readFileSync(pkgDir + 'package.json', 'utf8'));
    for (const file of ['discover.mjs', 'node-fs.mjs']) assert.ok(pkg.files.includes(file), `package.json files lists ${file}`);
  });
});

test('fileListFs: the files a page was handed give the environment memoryFs gives for the same tree', async () => {
  const fx = workspaceFixture('/w');
  // A folder picker hands over files only (no symlinks, no empty directories): the same tree
  // with each symlink replaced by a copy of what it points at.
  const plainFiles = {};
  for (const [path, value] of Object.entries(fx.files)) {
    if (typeof value === 'string' || value instanceof Uint8Array) plainFiles[path] = value;
    else if (value && typeof value.symlink === 'string') {
      const target = value.symlink.startsWith('/') ? value.symlink : path.slice(0, path.lastIndexOf('/') + 1) + value.symlink;
      plainFiles[path] = fx.files[target];
    }
  }
  const pairs = Object.entries(plainFiles).map(([path, text]) => ({ path: path.slice(1), file: new Blob([text]) }));
  const options = { cwd: fx.paths.cwd, home: fx.paths.home };
  const fromFiles = await cv.discover(options, cv.fileListFs(pairs));
  const fromMemory = await cv.discover(options, cv.memoryFs(plainFiles));
  try {
    const strip = (env) => ({ ...env, stats: undefined });
    assert.ok(fromMemory.environment.rules.length >= 4, 'the fixture has rules');
    assert.deepEqual(strip(fromFiles.environment), strip(fromMemory.environment));
  } finally {
    fromFiles.free();
    fromMemory.free();
  }
  // Under a mount, with only the bytes discovery asks for read.
  const fs = cv.fileListFs([{ path: 'proj/AGENTS.md', file: new Blob(['x'.repeat(100)]) }], { mount: '/m' });
  assert.deepEqual(await fs.readDir('/m'), [{ name: 'proj', kind: 'dir' }]);
  assert.deepEqual(await fs.readDir('/'), [{ name: 'm', kind: 'dir' }]);
  assert.deepEqual(await fs.readDir('/m/proj'), [{ name: 'AGENTS.md', kind: 'file', size: 100 }]);
  const read = await fs.readFile('/m/proj/AGENTS.md', 10);
  assert.equal(read.size, 100);
  assert.equal(read.content.length, 11);
  assert.equal(await fs.readFile('/m/proj/missing.md'), null);
  assert.equal(await fs.readDir('/m/nope'), null);
  await assert.rejects(fs.readFile('/m/proj'), (e) => e.code === 'EISDIR');
  assert.throws(() => cv.fileListFs(42), (e) => e.code === 'invalid_argument');
  assert.throws(() => cv.fileListFs([{ path: 'a.md' }]), (e) => e.code === 'invalid_argument');
});
