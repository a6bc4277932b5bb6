// The unhappy path, the same in Node, Chromium and workerd: a session's turn sent with `send()`
// (the README's loop) to a stand-in provider (standin.mjs) whose first answer fails on demand —
// rate limits, overloads, a proxy's HTML 500, an empty 503, connections dropped mid-text,
// mid-thinking and mid-call, a stream that ends early, an answer cut by the output limit, a
// refusal, each API's context-length 400. Each case says exactly what was thrown (class, `code`,
// `status`, `retryAfterMs`), what the log holds, and that the request after it is valid.
// A case is `{name, run: async (cv)}` with `cv` the runtime's package entry. No runtime built-ins.
import { APIS, respond, TOOL_TEXT, CUT_TEXT, SUMMARY_TEXT } from './standin.mjs';

const NOW = '2026-12-05T10:00:00Z';
const MODELS = { anthropic: 'claude-sonnet-4-5', 'openai-chat': 'gpt-4.1', 'openai-responses': 'gpt-5', gemini: 'gemini-2.5-flash' };
const TOOLS = [{ name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }];
/** The id each API gives the stand-in's call (Gemini's is derived from its response id). */
const CALL_IDS = { anthropic: 'toolu_01Read', 'openai-chat': 'call_01Read', 'openai-responses': 'call_01Read', gemini: 'gR1-call-0' };

function assert(ok, message) {
  if (!ok) throw new Error(message);
}

function equal(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  assert(a === e, `${what}: expected ${e}, got ${a}`);
}

/** The session's records, as its log holds them. */
function records(session) {
  return session.snapshot().log.trim().split('\n').slice(1).map((line) => JSON.parse(line));
}

/** The session's next request, built as the loop builds it (the `buildRequest` command). */
function built(session) {
  const processed = session.dispatch({ type: 'buildRequest', options: { tools: TOOLS } }, NOW);
  assert(!processed.error, `buildRequest: ${processed.error?.message}`);
  return processed.reply;
}

/**
 * A session asked one question (after `rounds` tool rounds of `size` characters, when given; with
 * `talk`, each round's assistant text is that many characters: what pruning does not touch).
 */
function asked(cv, provider, { window = 200000, rounds = 0, size = 0, talk = 0 } = {}) {
  const session = cv.Session.create(`unhappy-${provider}`);
  session.dispatch({ type: 'switchModel', provider, model: MODELS[provider], contextWindow: window }, NOW);
  if (rounds) session.dispatch({ type: 'userMessage', text: 'Read every module.' }, NOW);
  for (let i = 0; i < rounds; i++) {
    const said = talk ? Array.from({ length: talk / 50 }, (_, l) => `Module ${i} note ${l}: the lexer keeps state.`.padEnd(49) + '\n').join('') : `Reading module ${i}.`;
    session.dispatch({ type: 'assistantResponse', text: said, toolCalls: [{ id: `seed_${i}`, name: 'read_file', input: { path: `src/m${i}.rs` } }] }, NOW);
    const output = Array.from({ length: size / 40 }, (_, l) => `fn item_${i}_${l}() -> u32 { ${l} } // ${i}\n`).join('');
    session.dispatch({ type: 'toolResult', toolCallId: `seed_${i}`, output }, NOW);
  }
  session.dispatch({ type: 'userMessage', text: 'Why does the parser test fail?' }, NOW);
  return session;
}

/**
 * One turn, as the README sends it, against the stand-in: `plan[i]` is how attempt `i` goes
 * ('ok' after the plan). Waits are recorded, not slept.
 */
async function sendTurn(cv, provider, plan, sessionOptions) {
  const session = asked(cv, provider, sessionOptions);
  const requests = [];
  const compactions = [];
  const retries = [];
  const waits = [];
  const fetcher = async (body, { attempt, purpose }) => {
    assert(body instanceof Uint8Array, 'the body is bytes');
    const text = new TextDecoder().decode(body);
    // A compaction's summary request: the stand-in writes the summary.
    if (purpose === 'compaction') {
      compactions.push({ text, violations: cv.validatePayload(provider, JSON.parse(text)) });
      return respond(provider, 'summary', { model: MODELS[provider] });
    }
    requests.push({ text, attempt, violations: cv.validatePayload(provider, JSON.parse(text)) });
    return respond(provider, plan[requests.length - 1] ?? 'ok', { model: MODELS[provider] });
  };
  const told = [];
  const turn = cv.send(session, fetcher, {
    build: { tools: TOOLS }, now: NOW,
    sleep: async (ms) => void waits.push(ms),
    onRetry: (error, retry) => retries.push({ error, ...retry }),
    onUpdate: (update) => told.push(update),
  });
  const updates = [];
  let result = null;
  let error = null;
  try {
    for await (const update of turn) updates.push(update);
    result = await turn.done();
  } catch (e) {
    error = e;
    // done() throws what the iteration threw.
    const again = await turn.done().then(() => null, (x) => x);
    assert(again === e, 'done() throws the error the iteration threw');
  }
  for (const [i, r] of [...requests, ...compactions].entries()) equal(r.violations, [], `request ${i} passes the API's rules`);
  assert(told.length === updates.length && told.every((u, i) => u === updates[i]), 'onUpdate is told each update the iteration yields');
  return { session, requests, compactions, retries, waits, result, error, updates, log: records(session) };
}

/** The turn ended with the stand-in's closing call: the loop goes on. */
function answeredWithTheCall(run, provider) {
  assert(run.error === null, `the turn ended with ${run.error?.stack ?? run.error}`);
  equal(run.result.toolCalls.map((c) => [c.id, c.name, c.input]), [[CALL_IDS[provider], 'read_file', { path: 'parser.rs' }]], 'the calls to run');
  equal(run.result.answer.ending, 'done', 'the last answer ended');
  const ends = run.log.filter((r) => r.event?.kind === 'answer_end');
  equal(ends.at(-1).event.status, 'complete', 'the last answer_end');
}

function isProviderError(cv, e, code) {
  assert(e instanceof cv.ProviderError && e instanceof cv.ContextviewError && e instanceof Error, `a ProviderError, not ${e?.stack ?? e}`);
  equal(e.code, code, 'code');
}

const backoff = (ms) => ms >= 375 && ms <= 500;

/** The answer_end of the failed attempt. */
const failedEnd = (run) => run.log.find((r) => r.event?.kind === 'answer_end').event;

// --- HTTP errors: recorded, retried after the wait the session decided, same bytes again ------------

const HTTP = {
  'rate-limited': {
    anthropic: { status: 429, kind: 'rate_limit_error', wait: 20, requestId: 'req_standin429' },
    'openai-chat': { status: 429, kind: 'requests', wait: 20, requestId: 'req_standin429' },
    'openai-responses': { status: 429, kind: 'tokens', wait: 20, requestId: 'req_standin429' },
    gemini: { status: 429, kind: 'RESOURCE_EXHAUSTED', wait: 20, requestId: undefined },
  },
  overloaded: {
    anthropic: { status: 529, kind: 'overloaded_error', requestId: 'req_standin529' },
    'openai-chat': { status: 503, kind: 'server_error', requestId: 'req_standin503' },
    'openai-responses': { status: 503, kind: 'server_error', requestId: 'req_standin503' },
    gemini: { status: 503, kind: 'UNAVAILABLE', requestId: undefined },
  },
  'html-500': Object.fromEntries(APIS.map((p) => [p, { status: 500, kind: 'internal_server_error', message: '500 Internal Server Error' }])),
  'empty-503': Object.fromEntries(APIS.map((p) => [p, { status: 503, kind: 'service_unavailable' }])),
};

const cases = [];

for (const [scenario, byApi] of Object.entries(HTTP)) {
  for (const provider of APIS) {
    const want = byApi[provider];
    cases.push({
      name: `${provider}: ${scenario} → ProviderError ${want.status}, recorded, retried with the same bytes`,
      async run(cv) {
        const run = await sendTurn(cv, provider, [scenario]);
        answeredWithTheCall(run, provider);
        equal(run.retries.length, 1, 'retries');
        const e = run.retries[0].error;
        isProviderError(cv, e, 'provider_error');
        equal([e.status, e.kind, e.retryable, e.requestId], [want.status, want.kind, true, want.requestId], '[status, kind, retryable, requestId]');
        if (want.message) equal(e.providerError.message, want.message, 'message');
        assert(want.wait ? e.retryAfterMs === want.wait : backoff(e.retryAfterMs), `retryAfterMs ${e.retryAfterMs}`);
        equal(run.waits, [e.retryAfterMs], 'the turn waited what the error said');
        // The log: the failure, with its status, then the answer; the retry sent the same bytes.
        const end = failedEnd(run);
        equal([end.status, end.error.status, end.error.kind, end.requestId], ['failed', want.status, want.kind, want.requestId], 'the failure as recorded');
        equal(run.requests.length, 2, 'requests');
        assert(run.requests[1].text === run.requests[0].text, 'the retry is the same request');
        equal(run.requests.map((r) => r.attempt), [0, 1], 'attempts');
      },
    });
  }
}

// --- an answer that broke part-way: what arrived kept, the retry goes on from it -------------------

const PARTIAL = {
  'overloaded-mid-stream': { code: 'provider_error', status: { gemini: 503 }, kind: { anthropic: 'overloaded_error', 'openai-chat': 'server_error', 'openai-responses': 'server_error', gemini: 'UNAVAILABLE' }, logStatus: 'failed', kept: TOOL_TEXT.slice(0, 10) },
  'drop-text': { code: 'connection_dropped', logStatus: 'partial', kept: TOOL_TEXT.slice(0, 10) },
  'drop-thinking': { code: 'connection_dropped', logStatus: 'partial', kept: null },
  'drop-call': { code: 'connection_dropped', logStatus: 'partial', kept: TOOL_TEXT, unfinished: true },
  'early-end': { code: 'answer_incomplete', logStatus: 'partial', kept: TOOL_TEXT },
};

for (const [scenario, want] of Object.entries(PARTIAL)) {
  for (const provider of APIS) {
    cases.push({
      name: `${provider}: ${scenario} → ProviderError ${want.code}, what arrived recorded, the retry goes on from it`,
      async run(cv) {
        const run = await sendTurn(cv, provider, [scenario]);
        answeredWithTheCall(run, provider);
        equal(run.retries.length, 1, 'retries');
        const e = run.retries[0].error;
        isProviderError(cv, e, want.code);
        equal([e.status, e.retryable], [want.status?.[provider], true], '[status, retryable]');
        if (want.kind) equal(e.kind, want.kind[provider], 'kind');
        assert(backoff(e.retryAfterMs), `retryAfterMs ${e.retryAfterMs}`);
        if (want.code === 'connection_dropped') assert(e.cause instanceof TypeError && e.cause.message === 'terminated', `cause ${e.cause}`);
        // Nothing half-made was handed out: a call of the broken answer is one that arrived whole.
        for (const call of e.processed.reply.answer.toolCalls) equal([call.id, call.name, call.input], [CALL_IDS[provider], 'read_file', { path: 'parser.rs' }], 'a call of the broken answer');
        const end = failedEnd(run);
        equal(end.status, want.logStatus, 'the broken answer as recorded');
        if (want.code === 'connection_dropped') equal(end.dropped, 'TypeError: terminated', 'why');
        if (want.unfinished && provider !== 'gemini') equal(end.unfinishedCalls.map((c) => c.name), ['read_file'], 'the call still arriving, kept apart');
        const agentText = run.log.filter((r) => r.update?.sessionUpdate === 'agent_message_chunk').map((r) => r.update.content.text);
        if (want.kept) assert(agentText[0] === want.kept, `kept ${JSON.stringify(agentText[0])}, not ${JSON.stringify(want.kept)}`);
        // The retry: the request after it holds what arrived and, when the model had said
        // something, asks it to go on (AutoRecovery, in the log).
        equal(run.requests.length, 2, 'requests');
        const recovery = run.log.filter((r) => r.update?._meta?.contextview?.synthetic === 'auto_recovery');
        if (want.kept) assert(run.requests[1].text.includes(JSON.stringify(want.kept).slice(1, -1)), 'what arrived goes back');
        equal(recovery.length, 1, 'auto_recovery messages');
        assert(run.requests[1].text.includes('interrupted before it finished'), 'the model is asked to go on');
      },
    });
  }
}

// --- cut by the output limit: the turn goes on by itself (AutoContinue) ----------------------------

for (const provider of APIS) {
  cases.push({
    name: `${provider}: max-tokens → no error; the next request asks the model to go on, and the turn ends with its call`,
    async run(cv) {
      const run = await sendTurn(cv, provider, ['max-tokens']);
      answeredWithTheCall(run, provider);
      equal(run.retries.length, 0, 'retries');
      equal(run.result.answers.map((a) => a.ending), ['output_limit', 'done'], 'answers');
      assert(run.result.text.startsWith(CUT_TEXT), `the turn's text starts with what was cut: ${run.result.text}`);
      equal(run.requests.length, 2, 'requests');
      const continued = run.log.filter((r) => r.update?._meta?.contextview?.synthetic === 'auto_continue');
      equal(continued.length, 1, 'auto_continue messages');
      assert(run.requests[1].text.includes('cut off by the output token limit'), 'the model is asked to go on');
      assert(run.requests[1].text.includes(JSON.stringify(CUT_TEXT).slice(1, -1)), 'what was cut goes back');
    },
  });
}

// --- a refusal or a blocked prompt: thrown, never a normal end; the same request is not built again --

for (const [provider, scenario] of [...APIS.map((p) => [p, 'refusal']), ['gemini', 'blocked']]) {
  cases.push({
    name: `${provider}: ${scenario} → ProviderError refused, not retried; the next build is refused until the input changes, then valid`,
    async run(cv) {
      const run = await sendTurn(cv, provider, [scenario]);
      isProviderError(cv, run.error, 'refused');
      const e = run.error;
      const blocked = scenario === 'blocked' ? 'MODEL_ARMOR' : undefined;
      equal([e.retryable, e.retryAfterMs, e.ending, e.processed.reply.answer.refused, e.processed.reply.answer.blocked, run.requests.length],
        [false, undefined, 'refused', true, blocked, 1], '[retryable, retryAfterMs, ending, refused, blocked, requests]');
      if (blocked) equal(e.kind, 'MODEL_ARMOR', 'kind');
      assert(e.message.startsWith('the provider refused: '), e.message);
      equal(run.log.filter((r) => r.event?.kind === 'answer_end').map((r) => r.event.refused), [true], 'the log says it was a refusal');
      // The same request would be refused again: the build says so, and writes nothing.
      const before = run.log.length;
      const again = run.session.dispatch({ type: 'buildRequest', options: { tools: TOOLS } }, NOW);
      equal(again.error?.code, 'input_refused', 'the next build');
      equal(records(run.session).length, before, 'nothing written');
      // So does a second turn, before it sends anything.
      let sent = 0;
      const second = await cv.send(run.session, async () => (sent++, respond(provider, 'ok')), { build: { tools: TOOLS }, now: NOW }).done().then(() => null, (x) => x);
      equal([second?.code, second instanceof cv.ContextviewError, sent], ['input_refused', true, 0], '[code, a ContextviewError, requests]');
      // A new message changes the input: the next request is valid.
      run.session.dispatch({ type: 'userMessage', text: 'Then explain the parser.' }, NOW);
      const { body } = built(run.session);
      equal(cv.validatePayload(provider, JSON.parse(body)), [], 'the next request passes the rules');
    },
  });
}

// --- cut by the output limit after every continuation: not done ------------------------------------

for (const provider of APIS) {
  cases.push({
    name: `${provider}: max-tokens four times → ProviderError turn_unfinished after three continuations, never a normal end`,
    async run(cv) {
      const run = await sendTurn(cv, provider, ['max-tokens', 'max-tokens', 'max-tokens', 'max-tokens']);
      isProviderError(cv, run.error, 'turn_unfinished');
      equal([run.error.code, run.error.retryable, run.error.ending, run.requests.length], ['turn_unfinished', false, 'output_limit', 4], '[code, retryable, ending, requests]');
      equal(run.log.filter((r) => r.update?._meta?.contextview?.synthetic === 'auto_continue').length, 3, 'auto_continue messages');
    },
  });
}

// --- a context-length refusal: the next build prunes to fit, or the turn asks for a compaction ------

const CONTEXT = {
  // The session assumed a larger window than the one the provider enforces.
  anthropic: { window: 1_000_000, recovery: 'prune', learnt: 200_000 },
  'openai-chat': { window: 400_000, recovery: 'prune', learnt: 128_000 },
  // No number in the refusal: the window is learnt from the refused request.
  'openai-responses': { window: 400_000, recovery: 'prune', learnt: 'from the request' },
  // 1,200,000 tokens named: more than the session counted, and more than pruning takes off of
  // a conversation that is mostly the model's own words.
  gemini: { window: 2_000_000, recovery: 'compact', learnt: 1_048_576, rounds: 12, talk: 40_000 },
};

for (const provider of APIS) {
  const want = CONTEXT[provider];
  cases.push({
    name: `${provider}: context-length → ProviderError context_length_exceeded; ${want.recovery === 'prune' ? 'the next build prunes' : 'the turn compacts through the same fetcher'} and the turn goes on`,
    async run(cv) {
      const run = await sendTurn(cv, provider, ['context-length'], { window: want.window, rounds: want.rounds ?? 36, size: 10_000, talk: want.talk });
      answeredWithTheCall(run, provider);
      const e = run.retries[0]?.error;
      isProviderError(cv, e, 'context_length_exceeded');
      equal([e.status, e.retryable, e.retryAfterMs, e.recovery], [400, false, undefined, want.recovery], '[status, retryable, retryAfterMs, recovery]');
      assert(run.log.some((r) => r.event?.kind === 'usage_anchor' && r.event.counted > 0), 'the refusal\'s count beside the ledger\'s');
      const window = run.log.filter((r) => r.event?.kind === 'model_switch').at(-1).event.contextWindow;
      if (typeof want.learnt === 'number') equal(window, want.learnt, 'the window the provider enforces');
      else assert(window < want.window && window === e.context.window, `a window learnt from the request: ${window}`);
      equal(run.waits, [], 'no wait: the request changed');
      equal(run.requests.length, 2, 'requests');
      assert(run.requests[1].text.length < run.requests[0].text.length * 0.75, `smaller: ${run.requests[0].text.length} -> ${run.requests[1].text.length}`);
      equal(run.compactions.length, want.recovery === 'compact' ? 1 : 0, 'compactions');
      equal(run.result.compactions, run.compactions.length, 'the turn counts them');
      if (want.recovery === 'compact') {
        const checkpoint = run.log.find((r) => r.event?.kind === 'compaction_checkpoint');
        assert(checkpoint && checkpoint.event.summary === SUMMARY_TEXT, 'the summary the model wrote is applied');
        assert(run.requests[1].text.includes('## Goal'), 'the request after it carries the summary');
      }
    },
  });
}

// --- a refusal that names no number, as often as the provider says it: always a smaller request ----

cases.push({
  name: 'openai-responses: refused without numbers until under a limit → each request smaller than the one refused, then answered',
  async run(cv) {
    for (const limit of [60_000, 25_000]) {
      const session = asked(cv, 'openai-responses', { window: 400_000, rounds: 36, size: 10_000 });
      const sizes = [];
      const refused = [];
      const fetcher = async (body, { purpose }) => {
        if (purpose === 'compaction') return respond('openai-responses', 'summary', { model: MODELS['openai-responses'] });
        sizes.push(body.byteLength);
        if (body.byteLength > limit) {
          refused.push(body.byteLength);
          return respond('openai-responses', 'context-length');
        }
        return respond('openai-responses', 'ok', { model: MODELS['openai-responses'] });
      };
      const result = await cv.send(session, fetcher, { build: { tools: TOOLS }, now: NOW, sleep: async () => {} }).done();
      equal(result.toolCalls.map((c) => c.name), ['read_file'], `${limit}: the turn goes on`);
      assert(refused.length >= 1 && sizes.at(-1) <= limit, `${limit}: sizes ${sizes}`);
      for (let i = 1; i < sizes.length; i++) assert(sizes[i] < sizes[i - 1], `${limit}: request ${i} is smaller than the one refused: ${sizes}`);
      // The ledger counts what the last request held.
      const usage = session.usage({ provider: 'openai-responses', tools: TOOLS });
      assert(usage.used > 0 && usage.used < usage.size, `${limit}: ${JSON.stringify(usage)}`);
    }
  },
});

cases.push({
  name: 'openai-responses: a prompt alone over the window → ProviderError prompt_too_long; the prompt is never cut',
  async run(cv) {
    const session = asked(cv, 'openai-responses', { window: 400_000 });
    const prompt = Array.from({ length: 900 }, (_, i) => `Line ${i} of the log the user pasted: parser.rs:${i} ok`).join('\n');
    session.dispatch({ type: 'userMessage', text: prompt }, NOW);
    const sizes = [];
    const fetcher = async (body) => {
      sizes.push(body.byteLength);
      return body.byteLength > 20_000 ? respond('openai-responses', 'context-length') : respond('openai-responses', 'ok');
    };
    const e = await cv.send(session, fetcher, { build: { tools: TOOLS }, now: NOW, sleep: async () => {} }).done().then(() => null, (x) => x);
    isProviderError(cv, e, 'prompt_too_long');
    assert(e.context.promptTokens >= e.context.window, `the prompt over the window: ${JSON.stringify(e.context)}`);
    for (let i = 1; i < sizes.length; i++) assert(sizes[i] < sizes[i - 1], `each request smaller: ${sizes}`);
    const { body } = built(session);
    assert(body.includes(JSON.stringify(prompt).slice(1, 200)), 'the prompt goes whole');
  },
});

// --- a failure that is not retryable, and retries that run out --------------------------------------

cases.push({
  name: 'openai-chat: insufficient quota → thrown at once, not retried',
  async run(cv) {
    const session = asked(cv, 'openai-chat');
    const quota = () => new Response(JSON.stringify({ error: { message: 'You exceeded your current quota.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } }), { status: 429, headers: { 'content-type': 'application/json' } });
    let sent = 0;
    const e = await cv.send(session, async () => (sent++, quota()), { build: { tools: TOOLS }, now: NOW, sleep: async () => {} }).done().then(() => null, (x) => x);
    isProviderError(cv, e, 'provider_error');
    equal([e.status, e.kind, e.retryable, e.retryAfterMs, e.reason, sent], [429, 'insufficient_quota', false, undefined, 'quota_exceeded', 1], '[status, kind, retryable, retryAfterMs, reason, sent]');
  },
});

cases.push({
  name: 'gemini: a daily quota spent → thrown at once, not retried, though it names a wait',
  async run(cv) {
    const run = await sendTurn(cv, 'gemini', ['daily-quota']);
    isProviderError(cv, run.error, 'provider_error');
    const e = run.error;
    equal([e.status, e.kind, e.retryable, e.retryAfterMs, e.reason, run.requests.length, run.waits], [429, 'RESOURCE_EXHAUSTED', false, undefined, 'quota_exceeded', 1, []],
      '[status, kind, retryable, retryAfterMs, reason, requests, waits]');
  },
});

cases.push({
  name: 'anthropic: overloaded three times → retried twice (as the SDKs), then thrown; each failure recorded',
  async run(cv) {
    const run = await sendTurn(cv, 'anthropic', ['overloaded', 'overloaded', 'overloaded']);
    isProviderError(cv, run.error, 'provider_error');
    equal([run.error.status, run.requests.length, run.retries.map((r) => r.attempt)], [529, 3, [0, 1]], '[status, requests, retried attempts]');
    // The backoff doubles: attempt 1 waits 750–1000 ms.
    assert(backoff(run.waits[0]) && run.waits[1] >= 750 && run.waits[1] <= 1000, `waits ${run.waits}`);
    equal(run.log.filter((r) => r.event?.kind === 'answer_end').map((r) => r.event.error.status), [529, 529, 529], 'three failures in the log');
  },
});

cases.push({
  name: 'a fetch that rejects (no response at all) is a dropped connection: recorded and retried',
  async run(cv) {
    const session = asked(cv, 'anthropic');
    let sent = 0;
    const fetcher = async () => {
      sent += 1;
      if (sent === 1) throw new TypeError('fetch failed');
      return respond('anthropic', 'ok', { model: MODELS.anthropic });
    };
    const result = await cv.send(session, fetcher, { build: { tools: TOOLS }, now: NOW, sleep: async () => {} }).done();
    equal([result.errors.map((e) => [e.code, e.cause?.message]), result.toolCalls.length], [[['connection_dropped', 'fetch failed']], 1], '[errors, calls]');
    const ends = records(session).filter((r) => r.event?.kind === 'answer_end').map((r) => [r.event.status, r.event.dropped]);
    equal(ends, [['partial', 'TypeError: fetch failed'], ['complete', undefined]], 'answer_ends');
  },
});

cases.push({
  name: "the host's abort stops the turn while it waits, with the signal's reason",
  async run(cv) {
    const session = asked(cv, 'anthropic');
    const controller = new AbortController();
    const reason = new Error('the user pressed stop');
    const turn = cv.send(session, async () => respond('anthropic', 'overloaded'), {
      build: { tools: TOOLS }, now: NOW, signal: controller.signal, onRetry: () => controller.abort(reason),
    });
    const e = await turn.done().then(() => null, (x) => x);
    assert(e === reason, `the abort's reason, not ${e}`);
  },
});

export const unhappyCases = cases;

/** Runs `cases` with the runtime's entry `cv`: `[{name, ok, error?}]`. */
export async function runUnhappy(cases, cv) {
  const results = [];
  for (const c of cases) {
    try {
      await c.run(cv);
      results.push({ name: c.name, ok: true });
    } catch (e) {
      results.push({ name: c.name, ok: false, error: String(e?.stack ?? e) });
    }
  }
  return results;
}
