// The simulator from JavaScript: the policies known by name (`policies()`, `policy()`, and
// `simulate` taking a name), refused names; the figures of a session of our own checked against
// arithmetic done here; and the built-in price rows against the numbers of src/cost/prices.rs.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import * as cv from '../../pkg/node.mjs';
import { geminiSession, byHand, GEMINI_3_PRO } from './simulate-fixture.mjs';

const close = (actual, expected, what) => assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: ${actual} != ${expected}`);

test('the policies known by name: default, eager and off, each with what it lays over the options', () => {
  assert.deepEqual(cv.policies().map(({ name, options }) => ({ name, options })), [
    { name: 'default', options: {} },
    { name: 'eager', options: { pruning: { stepTurns: 1, keepSteps: 2, batchSteps: 1, hardClearSteps: 2 } } },
    { name: 'off', options: { pruning: { enabled: false } } },
  ]);
  assert.ok(cv.policies().every((p) => typeof p.summary === 'string' && p.summary.length > 0));
  for (const p of cv.policies()) assert.deepEqual(cv.policy(p.name), p);
});

test('an unknown policy name is refused with a ContextviewError that names the policies there are', () => {
  const names = /the policies known by name are `default`, `eager`, `off`/;
  for (const name of ['sometimes', 'no-pruning', 'prune-every-turn', 'EAGER']) {
    assert.throws(() => cv.policy(name), (e) => {
      assert.ok(e instanceof cv.ContextviewError && !(e instanceof TypeError), String(e));
      assert.equal(e.code, 'invalid_argument');
      assert.match(e.message, new RegExp(`unknown policy \`${name}\``));
      assert.match(e.message, names);
      return true;
    });
    assert.throws(() => cv.simulate({ log: '', options: { provider: 'anthropic' }, policies: ['off', name] }), (e) => {
      assert.ok(e instanceof cv.ContextviewError, String(e));
      assert.equal(e.code, 'invalid_options');
      assert.match(e.message, names);
      return true;
    });
  }
  assert.throws(() => cv.policy(7), (e) => e instanceof cv.ContextviewTypeError && e.argument === 'name');
});

test('simulate takes a policy by name as the policy written out, and its figures are the arithmetic of the counts and the price row', () => {
  const { text, sent } = geminiSession(cv);
  // Each request's input tokens, counted by a build of the log as it stood (not the simulator).
  const t = sent.map((log) => cv.buildRequestString({ log, provider: 'gemini', pruning: { enabled: false } }).report.tokens.request);
  assert.ok(t[0] >= 4096 && t[0] < t[1] && t[1] < t[2], `each request extends the last, all over Gemini 3 Pro's 4,096: ${t}`);
  // A window of exactly t1 tokens: request 1 fills it (a share of 1, not over), request 2 is over.
  const options = { provider: 'gemini', contextWindow: t[1] };
  const sim = cv.simulate({ log: text, options, policies: ['off'] });
  const written = cv.simulate({ log: text, options, policies: [{ name: 'off', options: { pruning: { enabled: false } } }] });
  assert.deepEqual(sim.policies.map((p) => p.requests), written.policies.map((p) => p.requests));
  assert.equal(sim.model, 'gemini-3-pro-preview');
  assert.equal(sim.costModel.modelPrefix, 'gemini-3-pro');
  const [policy] = sim.policies;
  const expected = byHand(t, GEMINI_3_PRO);
  assert.deepEqual(policy.requests.map((r) => [r.index, r.tokens, r.model, r.pricedAs]), [
    [0, t[0], 'gemini-3-pro-preview', 'gemini-3-pro'], [1, t[1], 'gemini-3-pro-preview', 'gemini-3-pro'], [2, t[2], 'gemini-3-pro-preview', 'gemini-3-pro'],
  ]);
  policy.requests.forEach((r, i) => {
    const e = expected.requests[i];
    assert.deepEqual([r.read, r.written, r.uncached, r.output], [e.read, e.written, e.uncached, e.output], `request ${i}`);
    close(r.dollars, e.dollars, `request ${i} dollars`);
    close(r.windowShare, t[i] / t[1], `request ${i} window share`);
  });
  const totals = policy.totals;
  assert.deepEqual([totals.requests, totals.tokens, totals.read, totals.written, totals.uncached, totals.output, totals.overWindow],
    [3, expected.totals.tokens, expected.totals.read, expected.totals.written, 0, 800, 1]);
  close(totals.dollars, expected.totals.dollars, 'total dollars');
  close(totals.cachedShare, expected.totals.cachedShare, 'cached share');
  close(totals.maxWindowShare, t[2] / t[1], 'largest share');
  assert.equal(policy.errors, undefined, 'every request built');
});

test("costModels() holds the dated rows of src/cost/prices.rs", () => {
  const rows = cv.costModels();
  const prefixes = (provider) => rows.filter((r) => r.provider === provider).map((r) => r.modelPrefix);
  assert.deepEqual(prefixes('anthropic'), ['claude', 'claude-opus-4', 'claude-opus-4-5', 'claude-opus-4-6', 'claude-opus-4-7', 'claude-opus-4-8', 'claude-opus-5',
    'claude-opus-5-5', 'claude-sonnet-4', 'claude-sonnet-4-6', 'claude-sonnet-5', 'claude-sonnet-5-5', 'claude-haiku-4-5', 'claude-3-5-haiku']);
  assert.deepEqual(prefixes('openai'), ['gpt', 'gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano', 'gpt-5', 'gpt-5-mini', 'gpt-5-nano',
    'gpt-5.1', 'gpt-5.2', 'gpt-5.4', 'gpt-5.5', 'gpt-5.6', 'o3', 'o4-mini', 'grok', 'grok-code-fast-1']);
  assert.deepEqual(prefixes('gemini'), ['gemini', 'gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-2.5-flash-lite', 'gemini-3-pro', 'gemini-3.1-pro', 'gemini-3-flash']);
  assert.equal(rows.length, 14 + 18 + 7);
  assert.ok(rows.every((r) => r.asOf === '2026-12-04' && r.source.length > 0));
  const row = (prefix) => rows.find((r) => r.modelPrefix === prefix);
  const p = (input, output, cacheRead, cacheWrite, cacheWriteLong) => ({ input, output, cacheRead, cacheWrite, cacheWriteLong });
  assert.deepEqual(row('gemini-3-pro').prices, { ...p(2, 12, 0.2, 0, 0), longContext: { aboveTokens: 200000, prices: p(4, 18, 0.4, 0, 0) } });
  assert.deepEqual(row('gemini-3-pro').caching, { kind: 'implicit', minTokens: 4096, ttlSeconds: 300 });
  assert.deepEqual(row('claude-sonnet-4').prices, { ...p(3, 15, 0.3, 3.75, 6), longContext: { aboveTokens: 200000, prices: p(6, 22.5, 0.6, 7.5, 12) } });
  assert.deepEqual(row('claude-sonnet-4').caching, { kind: 'breakpoints', minTokens: 1024, ttlSeconds: 300, longTtlSeconds: 3600 });
  assert.deepEqual(row('claude-opus-4-5').caching.minTokens, 4096);
  assert.deepEqual(row('gpt-4.1').prices, p(2, 8, 0.5, 0, 0));
  assert.deepEqual(row('gpt-5.6').prices, p(5, 30, 0.5, 6.25, 6.25));
  assert.deepEqual(row('gpt-5.6').caching, { kind: 'prefix', minTokens: 1024, step: 128, ttlSeconds: 1800 });
  assert.deepEqual(row('gpt-5').caching, { kind: 'prefix', minTokens: 1024, step: 128, ttlSeconds: 300 });
  assert.deepEqual(row('gemini-2.5-flash-lite').prices, p(0.1, 0.4, 0.01, 0, 0));
});
