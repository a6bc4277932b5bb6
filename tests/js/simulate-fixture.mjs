// A session log of our own for the simulator's figures, worked out by hand in the tests that use
// it (simulate, cli, inspector): on Gemini 3 Pro from its first record, a prompt long enough for
// Gemini's implicit cache (4,096 tokens), a tool round, and a last prompt the log ends waiting
// on — three requests, within a minute. The answers carry the provider's usage, so each answer's
// output is a count the log records: 300 and 500 tokens.

/** The log's text, and the log as it stood when each request went out. */
export function geminiSession(cv) {
  const session = cv.Session.create('simulated');
  const lines = [];
  const sent = [];
  const run = (at, command) => {
    const p = session.dispatch(command, at);
    if (p.error) throw new Error(`${command.type}: ${p.error.message}`);
    for (const e of p.effects) if (e.type === 'persist') lines.push(...e.lines);
  };
  const text = () => lines.map((l) => l + '\n').join('');
  const usage = (outputTokens) => ({ provider: 'gemini', model: 'gemini-3-pro-preview', inputTokens: 100, outputTokens });
  run('2026-12-04T10:00:00Z', { type: 'switchModel', provider: 'gemini', model: 'gemini-3-pro-preview' });
  run('2026-12-04T10:00:01Z', { type: 'userMessage', text: 'The parser drops the last line of every file that does not end with a newline. '.repeat(300) });
  sent.push(text());
  run('2026-12-04T10:00:05Z', { type: 'assistantResponse', text: 'Reading it.', toolCalls: [{ id: 'c1', name: 'read', input: { path: 'src/parse.rs' } }], usage: usage(300) });
  run('2026-12-04T10:00:10Z', { type: 'toolResult', toolCallId: 'c1', output: 'fn parse(s: &str) -> Vec<&str> { s.split(\'\\n\').collect() }' });
  sent.push(text());
  run('2026-12-04T10:00:15Z', { type: 'assistantResponse', text: 'Found it: split keeps an empty last piece.', usage: usage(500) });
  run('2026-12-04T10:00:20Z', { type: 'userMessage', text: 'Fix it.' });
  sent.push(text());
  session.free();
  return { text: text(), sent };
}

/**
 * The figures for that session's requests of `t` input tokens (counted by builds of the log as it
 * stood, not by the simulator), priced by hand at `prices` (US dollars per million tokens), for an
 * implicit cache that serves a request the whole request before it (Gemini's, within its five
 * minutes, each request extending the last, each over the minimum):
 *   request 0: nothing read, t0 written;       output 300
 *   request 1: t0 read, t1 - t0 written;       output 500
 *   request 2: t1 read, t2 - t1 written;       no answer yet
 * Gemini charges no write: a written token is billed as input.
 */
export function byHand([t0, t1, t2], { input, output, cacheRead }) {
  const requests = [
    { read: 0, written: t0, uncached: 0, output: 300, dollars: (t0 * input + 300 * output) / 1e6 },
    { read: t0, written: t1 - t0, uncached: 0, output: 500, dollars: (t0 * cacheRead + (t1 - t0) * input + 500 * output) / 1e6 },
    { read: t1, written: t2 - t1, uncached: 0, output: 0, dollars: (t1 * cacheRead + (t2 - t1) * input) / 1e6 },
  ];
  return {
    requests,
    totals: {
      tokens: t0 + t1 + t2,
      read: t0 + t1,
      written: t2, // t0 + (t1 - t0) + (t2 - t1)
      uncached: 0,
      output: 800, // 300 + 500
      dollars: requests[0].dollars + requests[1].dollars + requests[2].dollars,
      cachedShare: (t0 + t1) / (t0 + t1 + t2),
    },
  };
}

/** gemini-3-pro's row in src/cost/prices.rs, as numbers. */
export const GEMINI_3_PRO = { input: 2, output: 12, cacheRead: 0.2 };
