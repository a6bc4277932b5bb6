// Subagents and the head budget through a runtime's entry: the same cases run in Node
// (subagents.test.mjs), Chromium (unhappy-page.html) and workerd (the test Worker's /tree).
// `fixtures` holds our Claude Code fixture's texts (tests/fixtures/claude-subagents), read by
// each host its own way.

function assert(ok, message) {
  if (!ok) throw new Error(message);
}

function equal(actual, expected, what) {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
  assert(a === e, `${what}: expected ${e}, got ${a}`);
}

const NOW = '2026-12-05T10:00:00Z';

function ok(processed, what) {
  assert(processed.error === undefined, `${what}: ${JSON.stringify(processed.error)}`);
  return processed;
}

/** The Responses request's function call outputs, in order. */
const outputs = (body) => JSON.parse(body).input.filter((i) => i.type === 'function_call_output').map((i) => [i.call_id, i.output]);

const cases = [
  {
    name: 'head budget: the lowest priority gives way first, cut visibly; a session reports the cuts',
    run(cv) {
      const status = Array.from({ length: 200 }, (_, i) => `M src/file${i}.rs`).join('\n');
      const context = { cwd: '/w', gitStatus: status, memory: 'Prefers short answers.', model: 'gpt-5' };
      const whole = cv.renderHeads(context).allocation;
      const need = Object.fromEntries(whole.sections.map((s) => [s.section, s.need]));
      // Room for all but 50 tokens: git status (60) gives way, memory (70) and user info (100) stay whole.
      const cut = cv.renderHeads({ ...context, headBudget: { tokens: whole.need - 50 } });
      const grants = Object.fromEntries(cut.allocation.sections.map((s) => [s.section, s.granted]));
      equal(grants, { userInfo: need.userInfo, gitStatus: need.gitStatus - 50, memory: need.memory }, 'grants');
      assert(cut.firstUserPrefix.includes('<memory>\nPrefers short answers.\n</memory>'), 'memory whole');
      assert(/more bytes not shown: over the head budget \(headBudget\)/.test(cut.firstUserPrefix), 'the marker the model reads');
      const session = cv.Session.create('budget');
      ok(session.dispatch({ type: 'switchModel', provider: 'openai-responses', model: 'gpt-5' }, NOW), 'switchModel');
      ok(session.dispatch({ type: 'setPromptContext', context: { ...context, headBudget: { tokens: whole.need - 50 } } }, NOW), 'context');
      ok(session.dispatch({ type: 'userMessage', text: 'go' }, NOW), 'prompt');
      const built = ok(session.dispatch({ type: 'buildRequest' }, NOW), 'build').reply;
      equal(built.report.headCuts.map((c) => [c.section, c.action]), [['gitStatus', 'shortened']], 'the report lists the cut');
      session.free();
    },
  },
  {
    name: 'head budget: rules leave by their source\'s priority; a request\'s reminders take what the prefix leaves',
    run(cv) {
      const text = Array.from({ length: 20 }, (_, i) => `rule line ${i}: keep the build green.`).join('\n');
      const rule = (path, source, home) => ({ path, canonical: path, source, dir: '/w', home, activation: { kind: 'always' }, text, bytes: text.length, truncated: false });
      const rules = [rule('/home/me/AGENTS.md', 'agents_md', true), rule('/w/CLAUDE.md', 'claude_md', false), rule('/w/.cursor/rules/a.mdc', 'cursor_rules', false)];
      const need = cv.renderHeads({ cwd: '/w', rules, model: 'gpt-5' }).allocation.need;
      const left = (ruleSources) => cv.renderHeads({ cwd: '/w', rules, model: 'gpt-5', headBudget: { tokens: need - 160, ruleSources } })
        .allocation.sections.flatMap((s) => (s.cuts ?? []).map((c) => c.what));
      equal(left(undefined), ['/home/me/AGENTS.md'], 'broadest first');
      equal(left({ cursor_rules: -1 }), ['/w/.cursor/rules/a.mdc'], 'cursor\'s first');
      equal(left({ home: 9 }), ['/w/CLAUDE.md'], 'the home rule kept');
      const session = cv.Session.create('reminders');
      ok(session.dispatch({ type: 'switchModel', provider: 'openai-responses', model: 'gpt-5' }, NOW), 'switchModel');
      ok(session.dispatch({ type: 'setPromptContext', context: { cwd: '/w', headBudget: { tokens: 300 } } }, NOW), 'context');
      ok(session.dispatch({ type: 'userMessage', text: 'go' }, NOW), 'prompt');
      const diagnostics = Array.from({ length: 300 }, (_, i) => `src/a.rs:${i}: unused variable`).join('\n');
      ok(session.dispatch({ type: 'enqueueReminder', reminder: { kind: 'date', text: 'Today is 2026-12-05.' } }, NOW), 'date');
      ok(session.dispatch({ type: 'enqueueReminder', reminder: { kind: 'diagnostics', text: diagnostics } }, NOW), 'diagnostics');
      const first = ok(session.dispatch({ type: 'buildRequest' }, NOW), 'build').reply;
      equal(first.report.headCuts.map((c) => [c.what, c.action]), [['diagnostics', 'shortened'], ['date', 'deferred']], 'reminders cut');
      assert(first.body.includes('src/a.rs:0: unused variable') && !first.body.includes('src/a.rs:299:') && !first.body.includes('Today is'), 'cut as listed');
      const second = ok(session.dispatch({ type: 'buildRequest' }, NOW), 'build again').reply;
      assert(second.body.includes('Today is 2026-12-05.') && second.report.headCuts === undefined, 'the date told next');
      session.free();
    },
  },
  {
    name: 'subagents: children answer out of order, the parent keeps call order, usage rolls up, a failed child leaves a result',
    run(cv) {
      const parent = cv.Session.create('p');
      ok(parent.dispatch({ type: 'switchModel', provider: 'openai-responses', model: 'gpt-5' }, NOW), 'switchModel');
      ok(parent.dispatch({ type: 'setPromptContext', context: { label: 'Forge', tools: ['read', 'spawn_agent'] } }, NOW), 'context');
      ok(parent.dispatch({ type: 'userMessage', text: 'Check three packages.' }, NOW), 'prompt');
      ok(parent.dispatch({ type: 'assistantResponse', toolCalls: [1, 2, 3].map((i) => ({ id: `s${i}`, name: 'spawn_agent', input: { task: `package ${i}` } })) }, NOW), 'turn');
      const children = [1, 2, 3].map((i) => {
        const started = ok(parent.dispatch({ type: 'startSubagent', toolCallId: `s${i}`, task: `Check package ${i}` }, NOW), 'start');
        equal([started.reply.child.header.parentSessionId, started.reply.child.header.parentCallId], ['p', `s${i}`], 'the child\'s header');
        const child = cv.Session.forSubagent(started.reply.child, NOW);
        ok(child.dispatch({ type: 'assistantResponse', text: `Package ${i}: clean.`, usage: { inputTokens: 10 * i, outputTokens: 1 } }, NOW), 'child answer');
        return child;
      });
      const request = JSON.parse(children[0].buildString({ provider: 'openai-responses' }).body);
      assert(!(request.tools ?? []).some((t) => t.name === 'spawn_agent'), 'a subagent cannot start agents');
      ok(parent.dispatch({ type: 'endSubagent', toolCallId: 's3', report: children[2].finalAnswer(), usage: children[2].state().spent }, NOW), 'end 3');
      ok(parent.dispatch({ type: 'endSubagent', toolCallId: 's2', error: 'its storage failed' }, NOW), 'end 2');
      ok(parent.dispatch({ type: 'endSubagent', toolCallId: 's1', report: children[0].finalAnswer(), usage: children[0].state().spent }, NOW), 'end 1');
      const built = parent.buildString({ provider: 'openai-responses' });
      equal(outputs(built.body), [['s1', 'Package 1: clean.'], ['s2', 'Error: The subagent stopped before it reported: its storage failed'], ['s3', 'Package 3: clean.']], 'results in call order');
      equal([built.report.subagents.started, built.report.subagents.failed, built.report.subagents.spent.inputTokens], [3, 1, 40], 'rolled up');
      const reopened = cv.Session.fromLog(parent.snapshot().log);
      equal(reopened.state().subagents.map((l) => l.status), ['completed', 'failed', 'completed'], 'a reopened parent finds its children');
      for (const s of [parent, reopened, ...children]) s.free();
    },
  },
  {
    name: 'importTree: a Claude Code session and its agents\' files import as a linked tree',
    async run(cv, fixtures) {
      assert(fixtures?.parent && fixtures?.agentA && fixtures?.agentB, 'the host gives the fixture\'s texts');
      const tree = await cv.importTree(fixtures.parent, [fixtures.agentB, fixtures.agentA], 'claude-code');
      equal([tree.missing, tree.unlinked], [[], []], 'nothing missing or unlinked');
      const parent = cv.Session.fromLog(tree.parent.log);
      const results = outputs(parent.buildString({ provider: 'openai-responses' }).body);
      for (const child of tree.children) {
        const session = cv.Session.fromLog(child.log);
        const { parentCallId } = session.state();
        equal(child.report.fidelity.missing, [], 'the child\'s view holds what its model saw');
        equal(results.find(([id]) => id === parentCallId)?.[1], session.finalAnswer(), `${parentCallId}: the parent's result is the child's report`);
        session.free();
      }
      parent.free();
    },
  },
];

export const treeCases = cases;

/** Runs `cases` with the runtime's entry `cv` and the fixture's texts: `[{name, ok, error?}]`. */
export async function runTree(cases, cv, fixtures) {
  const results = [];
  for (const c of cases) {
    try {
      await c.run(cv, fixtures);
      results.push({ name: c.name, ok: true });
    } catch (e) {
      results.push({ name: c.name, ok: false, error: String(e?.stack ?? e) });
    }
  }
  return results;
}

/** The fixture's paths, relative to tests/fixtures/claude-subagents/. */
export const FIXTURE_FILES = { parent: 's-main.jsonl', agentA: 's-main/subagents/agent-aaa1.jsonl', agentB: 's-main/subagents/agent-bbb2.jsonl' };
