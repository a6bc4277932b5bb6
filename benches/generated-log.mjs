// A session log in our own format, generated: the inspector's bench and its screenshot use it.

/** Our own log of about `bytes`: prompts, each followed by tool rounds with sizeable results. */
export function generatedLog(bytes) {
  const lines = [JSON.stringify({ format: 'contextview.session-log', version: 1, sessionId: 'bench-1mb' })];
  let seq = 0;
  let size = 0;
  const push = (update) => {
    const line = JSON.stringify({ seq: ++seq, ts: '2026-12-01T00:00:00Z', update });
    lines.push(line);
    size += line.length + 1;
  };
  for (let prompt = 0; size < bytes; prompt++) {
    push({ sessionUpdate: 'user_message_chunk', messageId: `u${prompt}`, content: { type: 'text', text: `Task ${prompt}: fix the failing test in module ${prompt}.` } });
    for (let step = 0; step < 12 && size < bytes; step++) {
      const id = `call-${prompt}-${step}`;
      push({ sessionUpdate: 'agent_message_chunk', messageId: `a${prompt}-${step}`, content: { type: 'text', text: `Reading file ${step} of module ${prompt}.` } });
      push({ sessionUpdate: 'tool_call', toolCallId: id, title: 'read', kind: 'read', status: 'pending', rawInput: { path: `src/m${prompt}/f${step}.rs` } });
      const output = `// src/m${prompt}/f${step}.rs\n` + `fn item_${step}() -> u32 { ${step} }\n`.repeat(40);
      push({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: output } }] });
    }
    push({ sessionUpdate: 'agent_message_chunk', messageId: `done${prompt}`, content: { type: 'text', text: `Module ${prompt} fixed.` } });
  }
  return lines.join('\n') + '\n';
}

