// Small sessions of every kind the page reads — Claude Code, Codex, pi and our own log — made
// up here, for the page to run once while it loads. The browser compiles a wasm function the
// first time it runs (with a fast baseline compiler) and optimises it once it is hot; running
// these first moves that cost out of the first session a person picks.

const ROUNDS = 12;
const ts = (i) => new Date(Date.UTC(2026, 10, 30, 10, 0, i)).toISOString();
const lines = (list) => list.map((v) => JSON.stringify(v)).join('\n') + '\n';
const output = (i) => `src/part${i}.rs\n` + `fn part_${i}() -> usize { ${i} }\n`.repeat(8);

function claudeCode() {
  const out = [];
  let parent = null;
  const push = (v) => { out.push({ ...v, parentUuid: parent, sessionId: 'warm-cc', cwd: '/w', timestamp: ts(out.length) }); parent = v.uuid; };
  push({ type: 'user', uuid: 'u0', message: { role: 'user', content: 'Tidy every part.' } });
  for (let i = 0; i < ROUNDS; i++) {
    push({ type: 'assistant', uuid: `t${i}`, message: { id: `m${i}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'thinking', thinking: `Part ${i} next.`, signature: `sig${i}` }], usage: { input_tokens: 100 + i, output_tokens: 5 } } });
    push({ type: 'assistant', uuid: `a${i}`, message: { id: `m${i}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id: `toolu_w${i}`, name: 'Read', input: { file_path: `src/part${i}.rs` } }], stop_reason: 'tool_use', usage: { input_tokens: 100 + i, output_tokens: 9 } } });
    push({ type: 'user', uuid: `r${i}`, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_w${i}`, content: output(i) }] } });
  }
  push({ type: 'assistant', uuid: 'end', message: { id: 'mend', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Done.' }], stop_reason: 'end_turn', usage: { input_tokens: 400, output_tokens: 2 } } });
  return lines(out);
}

function codex() {
  const out = [
    { timestamp: ts(0), type: 'session_meta', payload: { id: 'warm-codex', cwd: '/w', model_provider: 'openai' } },
    { timestamp: ts(0), type: 'turn_context', payload: { model: 'gpt-5', cwd: '/w' } },
    { timestamp: ts(1), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Tidy every part.' }] } },
  ];
  for (let i = 0; i < ROUNDS; i++) {
    out.push(
      { timestamp: ts(2 + i), type: 'response_item', payload: { type: 'reasoning', summary: [{ type: 'summary_text', text: `Part ${i}.` }], encrypted_content: `enc${i}` } },
      { timestamp: ts(2 + i), type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['cat', `src/part${i}.rs`] }), call_id: `call_w${i}` } },
      { timestamp: ts(2 + i), type: 'response_item', payload: { type: 'function_call_output', call_id: `call_w${i}`, output: output(i) } },
      { timestamp: ts(2 + i), type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { input_tokens: 200 + i, cached_input_tokens: 100, output_tokens: 9 } } } },
    );
  }
  out.push({ timestamp: ts(40), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] } });
  return lines(out);
}

function pi() {
  const out = [{ type: 'session', version: 3, id: 'warm-pi', timestamp: ts(0), cwd: '/w', provider: 'anthropic', modelId: 'claude-sonnet-4-5' }];
  let parent = null;
  const push = (id, message) => { out.push({ type: 'message', id, parentId: parent, timestamp: ts(out.length), message }); parent = id; };
  push('p0', { role: 'user', content: 'Tidy every part.' });
  for (let i = 0; i < ROUNDS; i++) {
    push(`c${i}`, { role: 'assistant', provider: 'anthropic', model: 'claude-sonnet-4-5', api: 'anthropic-messages', stopReason: 'toolUse', usage: { input: 100 + i, output: 9, cacheRead: 0, cacheWrite: 0 }, content: [{ type: 'toolCall', id: `toolu_p${i}`, name: 'read', arguments: { path: `src/part${i}.rs` } }] });
    push(`r${i}`, { role: 'toolResult', toolCallId: `toolu_p${i}`, toolName: 'read', content: [{ type: 'text', text: output(i) }], isError: false });
  }
  push('end', { role: 'assistant', provider: 'anthropic', model: 'claude-sonnet-4-5', api: 'anthropic-messages', stopReason: 'stop', content: [{ type: 'text', text: 'Done.' }] });
  return lines(out);
}

/** The samples by format. */
export const SAMPLES = { 'claude-code': claudeCode, codex, pi };

/** Imports and walks each sample once for every provider; returns how many requests were built. */
export async function warmUp(cv) {
  let built = 0;
  for (const make of Object.values(SAMPLES)) {
    const text = make();
    const { log } = await cv.importSession(text);
    const timeline = new cv.Timeline(log);
    for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini']) {
      for (const _ of timeline.walk({ provider, contextWindow: 4000 })) built++;
      timeline.buildAt(timeline.length - 1, { provider });
      built++;
    }
  }
  return built;
}
