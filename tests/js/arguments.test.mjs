// Wrong-typed arguments from plain JavaScript: every export of the Node entry — each function,
// each class's static and instance methods — is called with values of every wrong type in each
// argument place. None may trap the wasm module (a `RuntimeError` would leave it unusable), hang,
// or throw anything but the package's own errors (a ContextviewError; a wrong type a
// ContextviewTypeError naming the argument); after all of it, the module still builds requests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import * as cv from '../../pkg/node.mjs';

const lazy = await cv.loadLazyModule();

const log = readFileSync(fileURLToPath(new URL('../../examples/session.jsonl', import.meta.url)), 'utf8');

const WRONG = [
  ['undefined', undefined], ['null', null], ['zero', 0], ['a fraction', 42.5], ['NaN', NaN], ['true', true],
  ['a string', 'not what you want'], ['an object', { a: 1 }], ['an array', [1, 'two']], ['a function', () => 1],
  ['a symbol', Symbol('s')], ['a bigint', 10n], ['bytes', new Uint8Array([1, 2])], ['a date', new Date(0)],
];

/** Settles what a call returned: a promise, an async iterable's end, a stream's done(). */
async function settle(value) {
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('hung: no answer within 5 s')), 5000));
  const run = (async () => {
    let v = await value;
    if (v && typeof v.done === 'function' && typeof v[Symbol.asyncIterator] === 'function') v = await v.done();
  })();
  return Promise.race([run, timeout]);
}

/** Calls `fn` with `args`; returns the failure, if any, that is not one of the package's own errors. */
async function misuse(call) {
  try {
    await settle(call());
    return null;
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) return `trapped the module: ${e.message}`;
    if (!(e instanceof cv.ContextviewError)) return `threw ${e?.constructor?.name}: ${e?.message}`;
    if (e instanceof TypeError && !(e instanceof cv.ContextviewTypeError)) return `a TypeError that is not a ContextviewTypeError: ${e.message}`;
    if (e instanceof cv.ContextviewTypeError && !(typeof e.argument === 'string' && e.message.includes(e.argument))) return `a type error that does not name its argument: ${e.message}`;
    return null;
  }
}

/** Every wrong value in each of `arity` places (the others left out), and in all of them at once. */
function* argumentLists(arity) {
  for (const [, value] of WRONG) {
    for (let at = 0; at < Math.max(arity, 1); at++) {
      const args = Array(at + 1).fill(undefined);
      args[at] = value;
      yield args;
    }
    yield Array(Math.max(arity, 1)).fill(value);
  }
}

const describe = (args) => `(${args.map((a) => (typeof a === 'symbol' ? 'Symbol' : typeof a === 'bigint' ? `${a}n` : JSON.stringify(a) ?? typeof a)).join(', ')})`;

/** Instances to call methods on, made the right way. */
function instances() {
  const session = cv.Session.create('arguments');
  session.dispatch({ type: 'switchModel', provider: 'anthropic', model: 'claude-sonnet-4-5' });
  session.dispatch({ type: 'userMessage', text: 'hi' });
  return {
    Session: () => cv.Session.fromLog(log),
    WorkspaceEngine: () => new lazy.WorkspaceEngine({ cwd: '/w' }),
    Timeline: () => new cv.Timeline(log),
    AnswerStream: () => cv.receive(cv.Session.create('a'), 'x', { provider: 'anthropic' }),
    Turn: () => cv.send(session, async () => new Response(''), { maxRetries: 0 }),
    DurableSession: () => new cv.DurableSession(cv.Session.create('d'), { load: async () => ({ text: '', diagnostics: [] }), append: async () => ({ written: 0, duplicates: 0 }) }),
  };
}

test('no export traps, hangs or throws a foreign error on wrong-typed arguments', async () => {
  const problems = [];
  let calls = 0;
  const tryAll = async (name, fn, self) => {
    for (const args of argumentLists(fn.length)) {
      calls += 1;
      const problem = await misuse(() => fn.apply(self, args));
      if (problem) problems.push(`${name}${describe(args)}: ${problem}`);
    }
  };
  const makers = instances();
  // The lazy module's exports too (synchronous once loaded), after the entry's own.
  for (const [name, value] of [...Object.entries(cv), ...Object.entries(lazy)]) {
    if (typeof value !== 'function') continue;
    const isClass = /^[A-Z]/.test(name);
    if (!isClass) {
      await tryAll(name, value, undefined);
      continue;
    }
    // Static methods, then instance methods on a well-made instance.
    for (const key of Object.getOwnPropertyNames(value)) {
      if (['length', 'name', 'prototype', '__wrap'].includes(key) || typeof value[key] !== 'function') continue;
      await tryAll(`${name}.${key}`, value[key], value);
    }
    if (!makers[name]) continue;
    for (const key of Object.getOwnPropertyNames(value.prototype)) {
      const method = Object.getOwnPropertyDescriptor(value.prototype, key).value;
      if (key === 'constructor' || typeof method !== 'function' || ['free', '__destroy_into_raw'].includes(key)) continue;
      for (const args of argumentLists(method.length)) {
        calls += 1;
        const problem = await misuse(() => method.apply(makers[name](), args));
        if (problem) problems.push(`${name}#${key}${describe(args)}: ${problem}`);
      }
    }
  }
  if (process.env.CV_DUMP) (await import("node:fs")).writeFileSync(process.env.CV_DUMP, problems.join("\n"));
  assert.deepEqual(problems, [], `${problems.length} of ${calls} calls`);
  assert.ok(calls > 1500, `${calls} calls tried`);
  // The module still works.
  const { body } = cv.buildRequestString({ log, provider: 'anthropic' });
  assert.ok(body.includes('"messages"'));
});

test('a wrong-typed argument names itself and is a TypeError and a ContextviewError', () => {
  const cases = [
    [() => cv.parseLog(5), 'text', 'a number'],
    [() => lazy.importSession({}), 'text', 'an object'],
    [() => cv.validatePayload(1, {}), 'provider', 'a number'],
    [() => cv.Session.fromLog(null), 'text', 'null'],
    [() => cv.Session.create(['x']), 'sessionId', 'an array'],
    [() => cv.Session.create('s').dispatch({ type: 'flush' }, 12), 'now', 'a number'],
    [() => cv.Session.create('s').append(Symbol('x')), 'line', 'a symbol'],
    [() => cv.Session.create('s').answerBytes('text'), 'bytes', 'a string'],
    [() => cv.Session.create('s').onProviderError('413', 'x'), 'status', 'a string'],
    [() => cv.Session.create('s').enqueueRules('/a', 'rules'), 'rules', 'a string'],
    [() => cv.Session.create('s').reconcile(10n), 'stored', 'a bigint'],
  ];
  for (const [call, argument, got] of cases) {
    assert.throws(call, (e) => {
      assert.ok(e instanceof TypeError && e instanceof cv.ContextviewTypeError && e instanceof cv.ContextviewError, String(e));
      assert.equal(e.code, 'invalid_argument');
      assert.equal(e.argument, argument);
      assert.match(e.message, new RegExp(`\`${argument}\` must be .*, not ${got}`));
      return true;
    });
  }
  // A refusal is a ContextviewError, not a TypeError.
  assert.throws(() => cv.buildRequest({ provider: 'anthropic' }), (e) => e instanceof cv.ContextviewError && !(e instanceof TypeError) && e.code === 'invalid_options');
});

test('a wrong-typed field inside an argument names its path in the error', async () => {
  const session = cv.Session.fromLog(log);
  const cases = [
    [() => session.build({ provider: 'anthropic', maxTokens: 'lots' }), 'invalid_options', 'maxTokens'],
    [() => cv.buildRequestString({ log, provider: 'anthropic', providerOptions: { anthropic: { thinking: { type: 'enabled', budget_tokens: 'x' } } } }), 'invalid_options', 'providerOptions.anthropic.thinking.budget_tokens'],
    [() => cv.buildRequestString({ log, provider: 'openai-chat', tools: [{ name: 'read', inputSchema: { type: 'object' } }, { name: 7 }] }), 'invalid_options', 'tools[1]'],
    [() => session.dispatch({ type: 'userMessage', text: 5 }), 'invalid_command', 'text'],
  ];
  for (const [call, code, path] of cases) {
    assert.throws(call, (e) => {
      assert.ok(e instanceof cv.ContextviewError, String(e));
      assert.equal(e.code, code);
      assert.equal(e.details?.path, path, e.message);
      assert.ok(e.message.includes(path), e.message);
      return true;
    });
  }
  // Each factory checks its arguments before anything is stored.
  for (const [call, argument] of [
    [() => cv.nodeFileStorage(5), 'path'], [() => cv.nodeFileStorage(''), 'path'],
    [() => cv.faultyStorage({}), 'inner'], [() => cv.faultyStorage(cv.nodeFileStorage('/tmp/cv-args/x.jsonl'), 'crash'), 'plan'],
  ]) {
    assert.throws(call, (e) => e instanceof cv.ContextviewTypeError && e.argument === argument, argument);
  }
  await assert.rejects(cv.openSession(cv.nodeFileStorage('/tmp/cv-args/y.jsonl'), { sessionId: 'y', storageTimeoutMs: -1 }),
    (e) => e instanceof cv.ContextviewTypeError && e.argument === 'options.storageTimeoutMs');
});
