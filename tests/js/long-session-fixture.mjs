// A long session of our own: one prompt followed by many tool rounds (the normal shape of an
// agent's session), each result a few thousand characters, ten seconds apart, with a second
// prompt halfway — long enough for every provider's cache and for pruning at a small window.
// Written through the package's own session (`dispatch`), so it is a log as a host records it.

const WORDS = ['parser', 'line', 'newline', 'buffer', 'token', 'split', 'trailing', 'record', 'field', 'offset', 'reader', 'writer'];

/** Deterministic text of about `n` characters, different for each `seed`. */
function prose(seed, n) {
  let out = '';
  let x = seed * 7919 + 13;
  while (out.length < n) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += WORDS[x % WORDS.length] + (x % 11 === 0 ? '.\n' : ' ');
  }
  return out.slice(0, n);
}

/**
 * The log's text: `rounds` tool rounds after a prompt (a second prompt at half of them), the
 * model recorded as `provider`/`model` when given (`recordedAs`: the name the log records
 * instead, an agent's own, e.g. Codex's `openai`); the log ends waiting on the last result.
 */
export function longSession(cv, { rounds = 24, provider = null, model = null, recordedAs = null, resultChars = 3000, usage: reported = true } = {}) {
  const session = cv.Session.create('long-session');
  const lines = [];
  let clock = Date.parse('2026-12-04T10:00:00Z');
  const run = (command) => {
    clock += 10_000;
    const p = session.dispatch(command, new Date(clock).toISOString());
    if (p.error) throw new Error(`${command.type}: ${p.error.message}`);
    // Each write hands storage the header until storage says it took it: kept once.
    for (const e of p.effects) if (e.type === 'persist') lines.push(...e.lines.filter((l) => lines.length === 0 || JSON.parse(l).format === undefined));
  };
  // The provider's usage on every answer, unless `usage: false` (a log whose counts are all estimates).
  const usage = (inputTokens, outputTokens) => (reported ? { provider: provider ?? 'anthropic', model: model ?? 'claude-sonnet-4-5', inputTokens, outputTokens } : undefined);
  try {
    if (provider) run({ type: 'switchModel', provider, model });
    run({ type: 'userMessage', text: `Find why the parser drops the last line.\n${prose(0, 6000)}` });
    let context = 4000;
    for (let i = 1; i <= rounds; i++) {
      if (i === Math.floor(rounds / 2)) {
        run({ type: 'assistantResponse', text: 'Half way: the reader is fine.', usage: usage(context, 40) });
        run({ type: 'userMessage', text: `Now look at the writer.\n${prose(1000 + i, 800)}` });
      }
      run({ type: 'assistantResponse', text: `Reading part ${i}.`, toolCalls: [{ id: `call_${i}`, name: 'read', input: { path: `src/part${i}.rs` } }], usage: usage(context, 60) });
      run({ type: 'toolResult', toolCallId: `call_${i}`, output: prose(i, resultChars) });
      context += Math.round(resultChars / 3.5) + 80;
    }
    // The provider as an agent names it, where that is not one of ours.
    const recorded = recordedAs === null ? lines : lines.map((l) => {
      const record = JSON.parse(l);
      if (record.event?.kind !== 'model_switch') return l;
      return JSON.stringify({ ...record, event: { ...record.event, provider: recordedAs } });
    });
    return recorded.map((l) => l + '\n').join('');
  } finally {
    session.free();
  }
}

/**
 * Three sessions of our own, a subagent's subagent: the parent `p` delegates call `s1` to
 * `p/s1`, which delegates `g1` to `p/s1/g1`. Returns `{parent, child, grandchild}`, the logs.
 */
export function nestedTree(cv) {
  const NOW = '2026-12-04T10:00:00Z';
  const keep = (lines, effects) => {
    for (const e of effects) if (e.type === 'persist') lines.push(...e.lines.filter((l) => lines.length === 0 || JSON.parse(l).format === undefined));
  };
  const run = (session, lines, command) => {
    const p = session.dispatch(command, NOW);
    if (p.error) throw new Error(`${command.type}: ${p.error.message}`);
    keep(lines, p.effects);
    return p;
  };
  const open = (start, lines) => {
    const session = cv.Session.forSubagent(start, NOW);
    keep(lines, session.takeEffects());
    return session;
  };
  const [pl, cl, gl] = [[], [], []];
  const parent = cv.Session.create('p');
  run(parent, pl, { type: 'switchModel', provider: 'anthropic', model: 'claude-sonnet-4-5' });
  run(parent, pl, { type: 'userMessage', text: 'Check both parts.' });
  run(parent, pl, { type: 'assistantResponse', toolCalls: [{ id: 's1', name: 'task', input: { task: 'the first part' } }] });
  const child = open(run(parent, pl, { type: 'startSubagent', toolCallId: 's1', task: 'Check the first part' }).reply.child, cl);
  run(child, cl, { type: 'assistantResponse', toolCalls: [{ id: 'g1', name: 'task', input: { task: 'its tests' } }] });
  const grandchild = open(run(child, cl, { type: 'startSubagent', toolCallId: 'g1', task: 'Check the first part\'s tests' }).reply.child, gl);
  run(grandchild, gl, { type: 'assistantResponse', text: 'Its tests pass.' });
  run(child, cl, { type: 'endSubagent', toolCallId: 'g1', report: 'Its tests pass.' });
  run(child, cl, { type: 'assistantResponse', text: 'The first part is fine.' });
  run(parent, pl, { type: 'endSubagent', toolCallId: 's1', report: 'The first part is fine.' });
  for (const s of [parent, child, grandchild]) s.free();
  const text = (lines) => lines.map((l) => l + '\n').join('');
  return { parent: text(pl), child: text(cl), grandchild: text(gl) };
}
