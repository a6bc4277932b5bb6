// Provider-shape checks written independently of the Rust validators: each one walks a payload
// and asserts the API's pairing rules, returning a summary (tool calls, results, images) that the
// tests compare across providers and against the report.
import assert from 'node:assert/strict';

export const PROVIDERS = ['anthropic', 'openai-chat', 'openai-responses', 'gemini'];

const isDataImage = (url) => typeof url === 'string' && /^data:image\/[a-z+.-]+;base64,[A-Za-z0-9+/=]+$/.test(url);

function anthropic(p) {
  assert.equal(typeof p.model, 'string');
  assert.ok(Number.isInteger(p.max_tokens) && p.max_tokens > 0, 'max_tokens');
  assert.ok(Array.isArray(p.messages) && p.messages.length > 0, 'messages');
  assert.equal(p.messages[0].role, 'user', 'first message is user');
  const calls = [], results = [];
  let images = 0;
  const countImage = (b) => {
    if (b.type !== 'image') return;
    assert.equal(b.source.type, 'base64');
    assert.match(b.source.media_type, /^image\//);
    assert.ok(b.source.data.length > 0);
    images++;
  };
  p.messages.forEach((m, i) => {
    assert.ok(['user', 'assistant'].includes(m.role), `messages.${i}.role`);
    if (i > 0) assert.notEqual(m.role, p.messages[i - 1].role, `messages.${i}: roles alternate`);
    assert.ok(Array.isArray(m.content) && m.content.length > 0, `messages.${i}.content non-empty`);
    let leading = true;
    for (const b of m.content) {
      if (b.type === 'tool_result') {
        assert.equal(m.role, 'user');
        assert.ok(leading, `messages.${i}: tool_result blocks come first`);
        const prevUses = (p.messages[i - 1]?.content ?? []).filter((x) => x.type === 'tool_use').map((x) => x.id);
        assert.ok(prevUses.includes(b.tool_use_id), `messages.${i}: tool_result ${b.tool_use_id} answers a tool_use of the previous message`);
        results.push(b.tool_use_id);
        (Array.isArray(b.content) ? b.content : []).forEach(countImage);
      } else {
        leading = false;
        if (b.type === 'text') assert.ok(b.text.length > 0, 'non-empty text');
        if (b.type === 'image') assert.equal(m.role, 'user');
        countImage(b);
      }
      if (b.type === 'tool_use') {
        assert.equal(m.role, 'assistant');
        assert.match(b.id, /^[a-zA-Z0-9_-]{1,64}$/);
        assert.equal(typeof b.input, 'object');
        calls.push(b.id);
        const next = p.messages[i + 1];
        assert.ok(next?.content.some((x) => x.type === 'tool_result' && x.tool_use_id === b.id),
          `tool_use ${b.id} has its tool_result in the next message`);
      }
    }
  });
  return { calls, results, images, last: p.messages.at(-1).role };
}

function openaiChat(p) {
  assert.equal(typeof p.model, 'string');
  assert.ok(Array.isArray(p.messages) && p.messages.length > 0);
  const calls = [], results = [];
  let images = 0;
  let open = []; // call ids of the last assistant message not yet answered
  p.messages.forEach((m, i) => {
    assert.ok(['system', 'developer', 'user', 'assistant', 'tool'].includes(m.role), `messages.${i}.role`);
    if (m.role === 'tool') {
      assert.ok(open.includes(m.tool_call_id), `messages.${i}: tool message answers a pending call`);
      open = open.filter((id) => id !== m.tool_call_id);
      results.push(m.tool_call_id);
      return;
    }
    assert.deepEqual(open, [], `messages.${i}: every tool call is answered before the next ${m.role} message`);
    if (m.role === 'assistant' && m.tool_calls) {
      assert.ok(m.tool_calls.length > 0);
      for (const c of m.tool_calls) {
        assert.equal(c.type, 'function');
        assert.ok(c.id.length > 0 && c.id.length <= 40, 'call id at most 40 chars');
        assert.doesNotThrow(() => JSON.parse(c.function.arguments), 'arguments is a JSON string');
        calls.push(c.id);
        open.push(c.id);
      }
    }
    if (m.role === 'user' && Array.isArray(m.content)) {
      for (const part of m.content) if (part.type === 'image_url') { assert.ok(isDataImage(part.image_url.url)); images++; }
    }
  });
  assert.deepEqual(open, [], 'no call left unanswered at the end');
  return { calls, results, images, last: p.messages.at(-1).role };
}

function openaiResponses(p) {
  assert.equal(typeof p.model, 'string');
  assert.ok(Array.isArray(p.input) && p.input.length > 0);
  const calls = [], results = [];
  let images = 0;
  const countParts = (parts) => {
    for (const part of Array.isArray(parts) ? parts : []) {
      if (part.type === 'input_image') { assert.ok(isDataImage(part.image_url)); images++; }
    }
  };
  p.input.forEach((it, i) => {
    if (it.type === 'function_call') {
      assert.ok(!calls.includes(it.call_id), `input.${i}: call_id unique`);
      assert.doesNotThrow(() => JSON.parse(it.arguments));
      calls.push(it.call_id);
    } else if (it.type === 'function_call_output') {
      assert.ok(calls.includes(it.call_id), `input.${i}: output follows its function_call`);
      assert.ok(!results.includes(it.call_id), `input.${i}: one output per call`);
      results.push(it.call_id);
      countParts(it.output);
    } else if (it.type === 'message' || it.role) {
      countParts(it.content);
    }
  });
  assert.deepEqual([...calls].sort(), [...results].sort(), 'every function_call has a function_call_output');
  return { calls, results, images, last: p.input.at(-1).role ?? p.input.at(-1).type };
}

function gemini(p) {
  assert.ok(Array.isArray(p.contents) && p.contents.length > 0);
  assert.equal(p.contents[0].role, 'user');
  const calls = [], results = [];
  let images = 0;
  p.contents.forEach((c, i) => {
    assert.ok(['user', 'model'].includes(c.role), `contents.${i}.role`);
    assert.ok(Array.isArray(c.parts) && c.parts.length > 0, `contents.${i}.parts non-empty`);
    const fcs = c.parts.filter((x) => x.functionCall).map((x) => x.functionCall);
    const frs = c.parts.filter((x) => x.functionResponse).map((x) => x.functionResponse);
    if (fcs.length) {
      assert.equal(c.role, 'model');
      const next = p.contents[i + 1];
      assert.equal(next?.role, 'user', `contents.${i}: function calls are answered by the next (user) turn`);
      const answers = next.parts.filter((x) => x.functionResponse).map((x) => x.functionResponse);
      assert.deepEqual(answers.map((r) => r.name), fcs.map((f) => f.name), `contents.${i + 1}: one functionResponse per functionCall, same order and names`);
      fcs.forEach((f, k) => { if (f.id !== undefined) assert.equal(answers[k].id, f.id); });
      calls.push(...fcs.map((f) => f.id ?? f.name));
    }
    if (frs.length) {
      assert.equal(c.role, 'user');
      results.push(...frs.map((r) => r.id ?? r.name));
      for (const r of frs) assert.equal(typeof r.response, 'object');
    }
    for (const part of c.parts) {
      if (part.inlineData) {
        assert.match(part.inlineData.mimeType, /^image\//);
        assert.ok(part.inlineData.data.length > 0);
        images++;
      }
    }
  });
  return { calls, results, images, last: p.contents.at(-1).role };
}

const CHECKS = { anthropic, 'openai-chat': openaiChat, 'openai-responses': openaiResponses, gemini };

/** Asserts the provider's pairing rules on `payload`; returns {calls, results, images, last}. */
export function checkPayload(provider, payload) {
  assert.ok(CHECKS[provider], `unknown provider ${provider}`);
  assert.equal(typeof payload, 'object');
  return CHECKS[provider](payload);
}

/** The provider-facing id of an original call id, through report.idMap (provider id → original). */
export function providerCallId(report, callId) {
  const entry = Object.entries(report.idMap ?? {}).find(([, original]) => original === callId);
  return entry ? entry[0] : callId;
}

/**
 * Checks a {payload, report} pair for the example session: the payload shape, the report's
 * basics, and that every repaired (dangling) call is answered in the payload.
 */
export function checkBuild(provider, payload, report) {
  const summary = checkPayload(provider, payload);
  assert.equal(report.provider, provider);
  assert.ok(Number.isInteger(report.items) && report.items > 0, 'report.items');
  assert.ok(Number.isInteger(report.bytes) && report.bytes > 0, 'report.bytes');
  assert.ok(Array.isArray(report.repairs));
  for (const k of ['kept', 'downgraded', 'dropped']) assert.ok(Number.isInteger(report.reasoning?.[k]), `reasoning.${k}`);
  for (const r of report.repairs) {
    assert.equal(typeof r.kind, 'string');
    if (r.callId !== undefined) {
      assert.ok(summary.results.includes(providerCallId(report, r.callId)),
        `repaired call ${r.callId} has a result in the ${provider} payload`);
    }
  }
  return summary;
}

/** Leading bytes two bodies share, counted on their UTF-8 bytes (apart from the library). */
export function commonPrefix(a, b) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return i;
}
