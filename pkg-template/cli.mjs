#!/usr/bin/env node
// contextview CLI. Exit codes: 0 ok, 1 the library rejected the input (error has .code),
// 2 usage error (bad arguments, unknown subcommand/provider, unreadable file).
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as cv from './node.mjs';
import { FORMATS, UsageError, firstLine, jsonlFiles, readText } from './cli-common.mjs';
import { runImport } from './cli-import.mjs';

const PROVIDERS = ['anthropic', 'openai-chat', 'openai-responses', 'gemini'];

/** What `build` and `timeline` both take: the session and the build options (buildOptions()). */
const BUILD_OPTIONS = {
  session: { type: 'string' },
  provider: { type: 'string' },
  system: { type: 'string' },
  tools: { type: 'string' },
  model: { type: 'string' },
  'max-tokens': { type: 'string' },
  'context-window': { type: 'string' },
  'provider-options': { type: 'string' },
};

/** The policies `simulate` knows by name: the library's (`policies()`), the inspector's too. */
const POLICY_NAMES = cv.policies().map((p) => p.name);

const COMMANDS = {
  build: {
    summary: 'print the provider request body for a session log',
    usage: 'contextview build --session <log.jsonl> --provider <' + PROVIDERS.join('|') + '>\n' +
      '                   [--system FILE] [--tools FILE] [--model NAME] [--max-tokens N]\n' +
      '                   [--context-window N] [--provider-options FILE]   (each API\'s settings, JSON)\n' +
      '                   [--report FILE]   (the report as JSON; a summary goes to stderr)',
    options: { ...BUILD_OPTIONS, report: { type: 'string' } },
    run: runBuild,
  },
  timeline: {
    summary: 'list every request a session log sent (JSON Lines), or print request N',
    usage: 'contextview timeline --session <log.jsonl> --provider <' + PROVIDERS.join('|') + '>\n' +
      '                   [build options as above] [--at N [--report FILE]]   (N counts from 0)\n' +
      '                   [--as-recorded]   (each request at the provider and model its log recorded, without\n' +
      '                   pruning: as the agent sent it; --provider then only for requests the log names none for)',
    options: { ...BUILD_OPTIONS, at: { type: 'string' }, report: { type: 'string' }, 'as-recorded': { type: 'boolean' } },
    run: runTimeline,
  },
  import: {
    summary: "convert another agent's session file to contextview's log (JSON Lines on stdout), with its subagents' files",
    usage: 'contextview import [--from <' + FORMATS.join('|') + '>] [--strict] [--children DIR] [--out DIR] [--follow [--log LOG] [--interval MS]] FILE   (--strict: exit 1 when a view lacks anything the source agent\'s model saw; --children: the subagents\' files, by default <FILE\'s name>/subagents/ (Claude Code) or <session id>/ beside FILE (Gemini CLI); an OpenCode session\'s file in its storage folder (<storage>/session/<project>/<id>.json, OpenCode up to 1.1) brings its messages\' and parts\' files and the sessions whose parentID is its id; --out: each session as <session id>.jsonl in DIR; --follow: follow FILE while its agent writes it, until interrupted, printing a line per new request — its index, provider and model, tokens and input cost as recorded — with our log appended to LOG as it grows, FILE looked at every MS, default 500)',
    options: {
      from: { type: 'string' },
      strict: { type: 'boolean' },
      children: { type: 'string' },
      out: { type: 'string' },
      follow: { type: 'boolean' },
      log: { type: 'string' },
      interval: { type: 'string' },
    },
    positionals: 1,
    run: runImport,
  },
  tree: {
    summary: 'a session and the subagents that answered its calls, at any depth, each with what its requests used (a tree; --json for machines)',
    usage: 'contextview tree --session <log.jsonl> [--children DIR] [--json]   (DIR: the subagents\' logs; default: the session\'s directory)',
    options: {
      session: { type: 'string' },
      children: { type: 'string' },
      json: { type: 'boolean' },
    },
    run: runTree,
  },
  respond: {
    summary: "record a provider's answer (JSON or a stream, detected): prints the records to append (JSON Lines)",
    usage: 'contextview respond --session <log.jsonl> --provider <' + PROVIDERS.join('|') + '> --response <FILE|->\n' +
      '                   [--status HTTP_STATUS] [--model NAME] [--now RFC3339]\n' +
      '                   (exit 1 when the answer is not whole: the provider\'s error, or a body cut short)',
    options: {
      session: { type: 'string' },
      provider: { type: 'string' },
      model: { type: 'string' },
      response: { type: 'string' },
      status: { type: 'string' },
      now: { type: 'string' },
    },
    run: runRespond,
  },
  simulate: {
    summary: 'price a session\'s requests under build policies: cache reads and writes, window share, dollars (JSON on stdout)',
    usage: 'contextview simulate --session <log.jsonl> --provider <' + PROVIDERS.join('|') + '>\n' +
      '                   [build options as above] [--policy NAME|FILE]... [--cost-models FILE]\n' +
      '                   (policies: ' + POLICY_NAMES.join(', ') + ', or a JSON file {name, options}; default: default)',
    options: { ...BUILD_OPTIONS, policy: { type: 'string', multiple: true }, 'cost-models': { type: 'string' } },
    run: runSimulate,
  },
  heads: {
    summary: 'the prompt heads an agent in a directory starts with, their prefix cut to the head budget (JSON on stdout)',
    usage: 'contextview heads --cwd DIR [--home DIR] [--context FILE] [--model NAME] [--budget TOKENS]   (--context: a PromptContext, JSON, under what discovery finds; --budget: the head budget in tokens, else a quarter of the window)',
    options: {
      cwd: { type: 'string' },
      home: { type: 'string' },
      context: { type: 'string' },
      model: { type: 'string' },
      budget: { type: 'string' },
    },
    run: runHeads,
  },
  discover: {
    summary: 'print the rules and skills an agent finds in a directory (Environment JSON on stdout)',
    usage: 'contextview discover --cwd DIR [--home DIR]',
    options: {
      cwd: { type: 'string' },
      home: { type: 'string' },
    },
    run: runDiscover,
  },
};

function usage() {
  const lines = ['usage: contextview <command> [options]', '', 'commands:'];
  for (const [name, cmd] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(10)}${cmd.summary}`);
  lines.push('', ...Object.values(COMMANDS).map((c) => '  ' + c.usage), '',
    'Run `contextview <command> --help` for one command. Exit codes: 0 ok, 1 input rejected, 2 usage.');
  return lines.join('\n');
}

/** Splits argv into a command and its parsed options; throws UsageError. */
function parseCommandLine(argv) {
  const [name, ...rest] = argv;
  if (name === undefined) throw new UsageError('missing command (try --help)');
  if (name === '--help' || name === '-h' || name === 'help') return { help: usage() };
  if (name === '--version' || name === '-V') return { version: true };
  const cmd = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!cmd) throw new UsageError(`unknown command '${name}' (try --help)`);
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: { ...cmd.options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: Boolean(cmd.positionals),
    }));
  } catch (e) {
    throw new UsageError(firstLine(e.message));
  }
  if (values.help) return { help: 'usage: ' + cmd.usage };
  if (cmd.positionals && positionals.length !== cmd.positionals) {
    throw new UsageError(`expected ${cmd.positionals} file argument${cmd.positionals === 1 ? '' : 's'}, got ${positionals.length} (usage: ${cmd.usage})`);
  }
  return { cmd, values, positionals };
}

function required(values, name) {
  const v = values[name];
  if (v === undefined || v === '') throw new UsageError(`missing --${name}`);
  return v;
}

function readJson(path, what) {
  const text = readText(path, what);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${what} file ${path} is not valid JSON: ${firstLine(e.message)}`);
  }
}

function parseProvider(values) {
  const p = required(values, 'provider');
  if (!PROVIDERS.includes(p)) throw new UsageError(`unknown provider '${p}' (expected ${PROVIDERS.join(', ')})`);
  return p;
}

function parsePositiveInt(values, name) {
  const v = values[name];
  if (v === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(v)) throw new UsageError(`--${name} must be a positive integer, got '${v}'`);
  return Number(v);
}

/** Build options from the command line (the log itself is the caller's). */
function buildOptions(values) {
  const input = values['as-recorded'] && values.provider === undefined ? {} : { provider: parseProvider(values) };
  if (values.system !== undefined) input.system = readText(values.system, 'system');
  if (values.tools !== undefined) {
    input.tools = readJson(values.tools, 'tools');
    if (!Array.isArray(input.tools)) throw new UsageError(`tools file ${values.tools} must hold a JSON array`);
  }
  if (values.model !== undefined) input.model = values.model;
  const maxTokens = parsePositiveInt(values, 'max-tokens');
  if (maxTokens !== undefined) input.maxTokens = maxTokens;
  const window = parsePositiveInt(values, 'context-window');
  if (window !== undefined) input.contextWindow = window;
  if (values['provider-options'] !== undefined) input.providerOptions = readJson(values['provider-options'], 'provider-options');
  return input;
}

function runBuild(values) {
  const input = buildOptions(values);
  input.log = readText(required(values, 'session'), 'session');
  const { body, report, diagnostics } = cv.buildRequestString(input);
  if (values.report !== undefined) writeFileSync(values.report, JSON.stringify(report, null, 2) + '\n');
  process.stdout.write(body + '\n');
  process.stderr.write(formatReport(report, diagnostics) + '\n');
}

/**
 * Every request the log sent, built in order by one session: a JSON line each (where it was,
 * its size, tokens by source, what it shares with the one before). With --at N: request N's
 * body, as `build` prints one.
 */
function runTimeline(values) {
  const options = buildOptions(values);
  if (values['as-recorded']) options.asRecorded = true;
  const timeline = new cv.Timeline(readText(required(values, 'session'), 'session'));
  if (values.at !== undefined) {
    if (!/^(0|[1-9][0-9]*)$/.test(values.at)) throw new UsageError(`--at must be a request index (0, 1, …), got '${values.at}'`);
    const at = Number(values.at);
    if (at >= timeline.length) throw new UsageError(`--at ${at}: the session sent ${timeline.length} request${timeline.length === 1 ? '' : 's'}`);
    const { body, report, diagnostics } = timeline.buildAt(at, options);
    if (values.report !== undefined) writeFileSync(values.report, JSON.stringify(report, null, 2) + '\n');
    process.stdout.write(body + '\n');
    process.stderr.write(formatReport(report, [...timeline.diagnostics, ...diagnostics]) + '\n');
    return;
  }
  if (values.report !== undefined) throw new UsageError('--report needs --at N');
  for (const { index, point, report } of timeline.walk(options)) {
    process.stdout.write(JSON.stringify({
      index,
      ...point,
      bytes: report.bytes,
      tokens: report.tokens.request,
      bySource: report.tokens.bySource,
      sharedBytes: report.prefix?.sharedBytes ?? 0,
      extendsPrevious: report.prefix?.extendsPrevious ?? false,
    }) + '\n');
  }
  const diags = timeline.diagnostics.length;
  process.stderr.write(`contextview: timeline: ${timeline.length} request${timeline.length === 1 ? '' : 's'}` +
    (diags ? `; ${diags} line${diags === 1 ? '' : 's'} not read (first: line ${timeline.diagnostics[0].line}: ${timeline.diagnostics[0].message})` : '') + '\n');
}

function runTree(values) {
  const sessionPath = required(values, 'session');
  const text = readText(sessionPath, 'session');
  const dir = values.children ?? resolve(sessionPath, '..');
  // Every log beside it, by its session id (the one asked for included).
  const logs = new Map();
  for (const { path, text: log } of jsonlFiles(dir, values.children !== undefined)) {
    try {
      const header = JSON.parse(log.slice(0, log.indexOf('\n') === -1 ? undefined : log.indexOf('\n')));
      if (typeof header.sessionId === 'string') logs.set(header.sessionId, { path, text: log });
    } catch {
      // not a log of ours
    }
  }
  const seen = new Set();
  const node = (path, log) => {
    const session = cv.Session.fromLog(log);
    const state = session.state();
    session.free();
    seen.add(state.sessionId);
    return {
      sessionId: state.sessionId, file: path, model: state.model, records: state.records, spent: state.spent,
      subagents: state.subagents.map((l) => {
        const found = logs.get(l.sessionId);
        const child = found && !seen.has(l.sessionId) ? node(found.path, found.text) : undefined;
        return { callId: l.callId, task: l.task, status: l.status, sessionId: l.sessionId, reported: l.usage, ...(child ? { session: child } : { missing: true }) };
      }),
    };
  };
  const tree = node(sessionPath, text);
  if (values.json) {
    process.stdout.write(JSON.stringify(tree, null, 2) + '\n');
    return;
  }
  process.stdout.write(drawTree(tree).join('\n') + '\n');
}

/** A session tree for a terminal: each session with what its requests used, each call a subagent answered below it. */
function drawTree(tree) {
  const n = (x) => Number(x ?? 0).toLocaleString('en-US');
  const used = (s) => `${n(s.spent.requests)} request${s.spent.requests === 1 ? '' : 's'}, ${n(s.spent.inputTokens + s.spent.cacheReadTokens + s.spent.cacheWriteTokens)} tokens in, ${n(s.spent.outputTokens)} out`;
  const lines = [`${tree.sessionId}  ${tree.model ?? '(no model)'}  ${used(tree)}`];
  const walk = (node, pad) => {
    node.subagents.forEach((s, i) => {
      const last = i === node.subagents.length - 1;
      const task = firstLine(s.task);
      lines.push(`${pad}${last ? '└─' : '├─'} ${s.callId}  ${task.length > 70 ? `${task.slice(0, 69)}…` : task}  [${s.status}]`);
      const below = pad + (last ? '   ' : '│  ');
      if (s.session) {
        lines.push(`${below}${s.session.sessionId}  ${s.session.model ?? '(no model)'}  ${used(s.session)}`);
        walk(s.session, below);
      } else {
        lines.push(`${below}${s.sessionId}  (its log was not found)`);
      }
    });
  };
  walk(tree, '');
  return lines;
}

/** The answer's bytes: a file, or stdin for `-`. */
function readAnswer(path) {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read response ${path === '-' ? 'from stdin' : `file ${path}`}: ${e.code ?? firstLine(e.message)}`);
  }
}

/**
 * The records a provider's answer adds to a log, as JSON Lines on stdout (`>> log.jsonl`
 * appends them); what the decoder noticed and what the answer said on stderr.
 */
function runRespond(values) {
  const provider = parseProvider(values);
  const session = cv.Session.fromLog(readText(required(values, 'session'), 'session'));
  const body = readAnswer(required(values, 'response'));
  const command = { type: 'providerAnswer', provider, body };
  if (values.model !== undefined) command.model = values.model;
  if (values.status !== undefined) {
    if (!/^[1-5][0-9][0-9]$/.test(values.status)) throw new UsageError(`--status must be an HTTP status (100 to 599), got '${values.status}'`);
    command.status = Number(values.status);
  }
  const processed = session.dispatch(command, values.now ?? new Date().toISOString());
  if (processed.error) throw new cv.ContextviewError(processed.error.code, processed.error.message);
  for (const effect of processed.effects) {
    if (effect.type !== 'persist') continue;
    // The log holds its header already: only the records go out.
    for (const line of effect.lines) if (JSON.parse(line).seq !== undefined) process.stdout.write(line + '\n');
  }
  const { answer, diagnostics } = processed.reply;
  const calls = answer.toolCalls.map((c) => c.name).join(', ');
  process.stderr.write(`contextview: respond ${provider}: ${processed.reply.seqs.length} records; ${answer.status}` +
    `${answer.stopReason ? `, stop ${answer.stopReason}` : ''}${calls ? `; tool calls: ${calls}` : ''}\n`);
  for (const d of diagnostics) process.stderr.write(`  ${d.severity}: ${d.code}: ${firstLine(d.message)}\n`);
  if (answer.error) {
    process.stderr.write(`contextview: provider_error: ${answer.error.kind}${answer.error.status ? ` (${answer.error.status})` : ''}: ${firstLine(answer.error.message)}\n`);
  }
  if (answer.retry) {
    const { retryable, afterMs, reason } = answer.retry;
    process.stderr.write(`contextview: ${retryable ? `retry after ${afterMs} ms` : 'do not retry'} (${reason})` +
      `${answer.recovery ? `; the next build: ${answer.recovery.replace('_', ' ')}` : ''}\n`);
    process.exitCode = 1;
  }
}

function directory(values, name) {
  const v = required(values, name);
  const path = resolve(v);
  let stat;
  try {
    stat = statSync(path);
  } catch (e) {
    throw new UsageError(`cannot read --${name} directory ${v}: ${e.code ?? firstLine(e.message)}`);
  }
  if (!stat.isDirectory()) throw new UsageError(`--${name} ${v} is not a directory`);
  return path;
}

async function runDiscover(values) {
  const options = { cwd: directory(values, 'cwd') };
  if (values.home !== undefined) options.home = directory(values, 'home');
  else if (homedir()) options.home = homedir();
  const workspace = await cv.discover(options, cv.nodeFs());
  try {
    process.stdout.write(JSON.stringify(workspace.environment, null, 2) + '\n');
    process.stderr.write(formatDiscoverSummary(workspace.environment, workspace.stats()) + '\n');
  } finally {
    workspace.free();
  }
}

async function runHeads(values) {
  const options = { cwd: directory(values, 'cwd') };
  if (values.home !== undefined) options.home = directory(values, 'home');
  else if (homedir()) options.home = homedir();
  const given = values.context !== undefined ? readJson(values.context, 'context') : {};
  if (given === null || typeof given !== 'object' || Array.isArray(given)) throw new UsageError('--context must hold a JSON object (a PromptContext)');
  let budget;
  if (values.budget !== undefined) {
    if (!/^[0-9]+$/.test(values.budget)) throw new UsageError(`--budget must be a whole number of tokens, got '${values.budget}'`);
    budget = Number(values.budget);
  }
  const workspace = await cv.discover(options, cv.nodeFs());
  let heads;
  try {
    const env = workspace.environment;
    const context = { ...given, cwd: env.cwd, rules: env.rules, skills: env.skillListing };
    if (values.model !== undefined) context.model = values.model;
    if (budget !== undefined) context.headBudget = { ...(given.headBudget ?? {}), tokens: budget };
    heads = cv.renderHeads(context);
  } finally {
    workspace.free();
  }
  process.stdout.write(JSON.stringify(heads, null, 2) + '\n');
  const a = heads.allocation;
  const lines = [`contextview: heads: the prefix takes ${a.used} of ${a.budget} tokens (its sections whole: ${a.need})`];
  for (const s of a.sections) {
    if (s.section === 'reminders') {
      lines.push(`  ${s.section.padEnd(10)} priority ${String(s.priority).padStart(4)}: ${s.granted} of the ${s.reserve} reserved held for each request's reminders`);
      continue;
    }
    lines.push(`  ${s.section.padEnd(10)} priority ${String(s.priority).padStart(4)}: ${s.used} of ${s.need} tokens` + (s.cuts?.length ? `, cut: ${s.cuts.map((c) => `${c.what} ${c.action.replace('_', ' ')}`).join(', ')}` : ''));
  }
  process.stderr.write(lines.join('\n') + '\n');
}

/** One line: what was found, and what it cost in host calls. */
function formatDiscoverSummary(env, stats) {
  const count = (n, word) => `${n} ${n === 1 ? word : word + 's'}`;
  const rules = env?.rules?.length ?? 0;
  const skills = env?.skills?.length ?? 0;
  const diags = env?.diagnostics?.length ?? 0;
  const { readDir = 0, readFile = 0 } = stats?.calls ?? {};
  return `contextview: discover: ${count(rules, 'rule')}, ${count(skills, 'skill')}, ${count(diags, 'diagnostic')}; ` +
    `${count(readDir + readFile, 'host call')} (${readDir} readDir, ${readFile} readFile)`;
}

/** One or a few lines for stderr: counts first, then the repairs, if any. */
function formatReport(r = {}, diagnostics = []) {
  const parts = [];
  if (r.items !== undefined) parts.push(`${r.items} items`);
  if (r.bytes !== undefined) parts.push(`${r.bytes} bytes`);
  const repairs = Array.isArray(r.repairs) ? r.repairs : [];
  parts.push(`${repairs.length} ${repairs.length === 1 ? 'repair' : 'repairs'}`);
  const rs = r.reasoning;
  if (rs && (rs.downgraded || rs.dropped)) parts.push(`reasoning kept ${rs.kept ?? 0}/downgraded ${rs.downgraded ?? 0}/dropped ${rs.dropped ?? 0}`);
  // The log's diagnostics, then what the build said of the request (reasoning downgraded, …).
  const diags = [...(Array.isArray(diagnostics) ? diagnostics : []), ...(r.diagnostics ?? [])];
  if (diags.length) parts.push(`${diags.length} ${diags.length === 1 ? 'diagnostic' : 'diagnostics'}`);
  const lines = [`contextview: ${r.provider ?? 'build'}: ${parts.join(', ')}`];
  const t = r.tokens;
  if (t) {
    const by = Object.entries(t.bySource ?? {}).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
    const c = t.context ?? {};
    const share = c.size ? ` (${((100 * c.used) / c.size).toFixed(1)}%)` : '';
    const of = c.size ? ` of ${c.size}` : ' (window unknown)';
    lines.push(`  tokens: ~${t.request} in this request (${by.map(([k, n]) => `${k} ${n}`).join(', ')}); ` +
      `context ${c.used}${of}${share}, ${c.anchored ? 'anchored on reported usage' : 'estimated'}, threshold ${c.threshold}`);
  }
  const pr = r.pruning;
  if (pr && pr.active) lines.push(`  pruning: boundary turn ${pr.boundaryTurn} of ${pr.turns}, step ${pr.boundaryStep} of ${pr.steps}, trimmed ${pr.trimmed} (${pr.newlyTrimmed.length} newly), cleared ${pr.cleared} (${pr.newlyCleared.length} newly)`);
  const im = r.images;
  if (im && (im.evicted?.length || im.stripped)) lines.push(`  images: ${im.evicted?.length ?? 0} evicted${im.stripped ? ', all stripped' : ''}`);
  for (const rep of repairs) lines.push(`  repair ${rep.kind ?? '?'}${rep.callId ? ` ${rep.callId}` : ''}`);
  const serious = diags.filter((d) => d.severity === 'error' || d.severity === 'warning');
  for (const d of serious.slice(0, 5)) lines.push(`  ${d.severity}${d.line ? ` line ${d.line}` : ''}: ${d.code}: ${firstLine(d.message)}`);
  if (serious.length > 5) lines.push(`  … and ${serious.length - 5} more`);
  return lines.join('\n');
}

/** A `--policy`: a name the library knows (passed as it is), else a JSON file {name, options}. */
function readPolicy(p) {
  if (POLICY_NAMES.includes(p)) return p;
  let text;
  try {
    text = readFileSync(p, 'utf8');
  } catch (e) {
    if (e.code === 'ENOENT') {
      throw new UsageError(`unknown policy '${p}': not one of ${POLICY_NAMES.join(', ')}, and no file by that name (a policy is a name or a JSON file {name, options})`);
    }
    throw new UsageError(`cannot read policy file ${p}: ${e.code ?? firstLine(e.message)}`);
  }
  let read;
  try {
    read = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`policy file ${p} is not valid JSON: ${firstLine(e.message)}`);
  }
  if (read === null || typeof read !== 'object' || Array.isArray(read) || typeof read.name !== 'string') {
    throw new UsageError(`policy file ${p} must hold {name, options}`);
  }
  return read;
}

function runSimulate(values) {
  const options = buildOptions(values);
  const log = readText(required(values, 'session'), 'session');
  const policies = (values.policy ?? []).map(readPolicy);
  const costModels = values['cost-models'] === undefined ? [] : readJson(values['cost-models'], 'cost-models');
  const sim = cv.simulate({ log, options, policies, costModels });
  process.stdout.write(JSON.stringify(sim) + '\n');
  const money = (d) => `$${d.toFixed(d < 1 ? 4 : 2)}`;
  const lines = [`contextview: simulate ${sim.provider} ${sim.model} (window ${sim.window}; prices of ${sim.costModel.modelPrefix}, ${sim.costModel.asOf})`];
  // A log that switched models: each request went to (and is priced at) the model of its time.
  const models = new Map();
  for (const r of sim.policies[0]?.requests ?? []) models.set(r.model, (models.get(r.model) ?? 0) + 1);
  if (models.size > 1) lines.push(`  requests by model: ${[...models].map(([m, n]) => `${m} ${n}`).join(', ')}`);
  for (const p of sim.policies) {
    const t = p.totals;
    lines.push(`  ${p.name}: ${t.requests} requests, ${t.tokens} input tokens (${(100 * t.cachedShare).toFixed(1)}% from cache, ${t.written} written), ` +
      `${t.output} output, ${money(t.dollars)}; largest ${(100 * t.maxWindowShare).toFixed(1)}% of the window${t.overWindow ? `, ${t.overWindow} over it` : ''}` +
      (p.errors?.length ? `; ${p.errors.length} not built (first: ${p.errors[0]})` : ''));
  }
  process.stderr.write(lines.join('\n') + '\n');
}

async function main(argv) {
  try {
    const parsed = parseCommandLine(argv);
    if (parsed.help) return void process.stdout.write(parsed.help + '\n');
    if (parsed.version) return void process.stdout.write(cv.version() + '\n');
    await parsed.cmd.run(parsed.values, parsed.positionals ?? []);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`contextview: ${e.message}\n`);
      process.exitCode = 2;
    } else if (e && typeof e.code === 'string' && e.code) {
      process.stderr.write(`contextview: ${e.code}: ${firstLine(e.message)}\n`);
      process.exitCode = 1;
    } else {
      throw e;
    }
  }
}

// A reader that stops early (`| head`) is not an error: stop writing, exit quietly.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

await main(process.argv.slice(2));
