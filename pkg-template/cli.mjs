#!/usr/bin/env node
// contextview CLI. Exit codes: 0 ok, 1 the library rejected the input (error has .code),
// 2 usage error (bad arguments, unknown subcommand/provider, unreadable file).
import { appendFileSync, closeSync, existsSync, mkdirSync, openAsBlob, openSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as cv from './node.mjs';
import { followFile } from './inspector/follow.mjs';

const PROVIDERS = ['anthropic', 'openai-chat', 'openai-responses', 'gemini'];
const FORMATS = ['claude-code', 'codex', 'pi', 'gemini-cli', 'copilot-cli', 'aider', 'cline', 'roo-code', 'kilo-code', 'opencode'];

class UsageError extends Error {}

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

function readText(path, what) {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${what} file ${path}: ${e.code ?? firstLine(e.message)}`);
  }
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

/** The files of a directory with one of `extensions`, as text (none when it does not exist and was not asked for). */
function jsonlFiles(dir, asked, extensions = ['.jsonl']) {
  if (!asked && !existsSync(dir)) return [];
  let names;
  try {
    names = readdirSync(dir).filter((n) => extensions.some((e) => n.endsWith(e))).sort();
  } catch (e) {
    throw new UsageError(`cannot read directory ${dir}: ${e.code ?? firstLine(e.message)}`);
  }
  return names.map((n) => ({ path: join(dir, n), text: readText(join(dir, n), 'log') }));
}

/**
 * Where a session's subagents' files are by default: Claude Code's `<FILE's name>/subagents/`, or
 * Gemini CLI's `<session id>/` beside the recording (`chats/<session id>/<agent id>.jsonl`).
 */
function defaultChildren(file, text) {
  const claude = join(file.replace(/\.jsonl$/, ''), 'subagents');
  if (existsSync(claude)) return claude;
  let sessionId;
  try {
    const first = text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n'));
    sessionId = (first.trim() === '{' ? JSON.parse(text) : JSON.parse(first)).sessionId;
  } catch {
    return claude;
  }
  const gemini = typeof sessionId === 'string' && sessionId !== '' ? join(dirname(file), sessionId.replace(/[^a-zA-Z0-9_-]/g, '_')) : null;
  return gemini !== null && existsSync(gemini) ? gemini : claude;
}

/** A session id as a file name. */
const fileName = (sessionId) => `${sessionId.replace(/[^A-Za-z0-9._-]/g, '_')}.jsonl`;

async function runImport(values, [file]) {
  const from = values.from;
  if (from !== undefined && !FORMATS.includes(from)) {
    throw new UsageError(`unknown format '${from}' (expected ${FORMATS.join(', ')})`);
  }
  const storage = (from === undefined || from === 'opencode') && values.children === undefined && file !== undefined ? openCodeStorage(file) : null;
  if (values.follow && storage) {
    throw new UsageError(`${file} is an OpenCode session's file in its storage folder, whose messages and parts are files of their own: import it again to see it grow (--follow takes one file its agent appends to or rewrites)`);
  }
  if (values.follow) return runFollow(values, file);
  for (const option of ['log', 'interval']) if (values[option] !== undefined) throw new UsageError(`--${option} needs --follow`);
  let tree, children;
  if (storage) {
    ({ tree, children } = await importOpenCodeStorage(storage));
  } else {
    const text = readText(file, 'session');
    const childDir = values.children ?? defaultChildren(file, text);
    // (A Gemini CLI subagent's recording may be whole JSON, v0.37 and v0.38.)
    children = jsonlFiles(childDir, values.children !== undefined, ['.jsonl', '.json']);
    // A Cline, Roo Code or Kilo Code task's chat beside its history: its requests' usage, Cline's
    // truncations (the import takes it as the task's, not as a child).
    const chat = join(dirname(file), 'ui_messages.json');
    const given = /(^|[\\/])api_conversation_history\.json$/.test(file) && existsSync(chat) ? [readText(chat, 'chat')] : [];
    tree = await cv.importTree(text, [...given, ...children.map((c) => c.text)], from);
  }
  const all = [tree.parent, ...tree.children];
  process.stderr.write(formatImportReport(tree.parent.report) + '\n');
  for (const [i, child] of tree.children.entries()) {
    // The files given come first; then the subagents the session's file holds itself.
    const from = children[i]?.path ?? `${JSON.parse(child.log.slice(0, child.log.indexOf('\n'))).sessionId} (held in ${file})`;
    process.stderr.write(formatImportReport(child.report).replace('contextview: import', `contextview: subagent ${from}:`) + '\n');
  }
  const links = tree.parent.report.subagents ?? [];
  if (links.length) {
    process.stderr.write(`  ${links.length} subagent(s) answered its calls; ${links.length - tree.missing.length} of their sessions imported` +
      (tree.missing.length ? `; not given: ${tree.missing.join(', ')}` : '') + '\n');
  }
  if (tree.unlinked.length) process.stderr.write(`  not a subagent of this session: ${tree.unlinked.join(', ')}\n`);
  if (values.out !== undefined) {
    mkdirSync(values.out, { recursive: true });
    for (const imported of all) {
      const header = JSON.parse(imported.log.slice(0, imported.log.indexOf('\n')));
      const path = join(values.out, fileName(header.sessionId));
      writeFileSync(path, imported.log);
      process.stdout.write(path + '\n');
    }
  } else {
    process.stdout.write(tree.parent.log);
  }
  if (values.strict && all.some((i) => i.report.fidelity?.missing?.length)) process.exitCode = 1;
}

/**
 * OpenCode's storage folder (up to 1.1), when FILE is a session's file in it
 * (`<storage>/session/<project>/<id>.json`): the session's files, and those of the project's
 * sessions whose `parentID` is its id (its subagents'), each as paths.
 */
function openCodeStorage(given) {
  const file = resolve(given);
  const root = dirname(dirname(dirname(file)));
  if (!file.endsWith('.json') || basename(dirname(dirname(file))) !== 'session' || !existsSync(join(root, 'message'))) return null;
  const list = (dir) => (existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.json')).sort().map((n) => join(dir, n)) : []);
  const filesOf = (session) => {
    const messages = list(join(root, 'message', basename(session, '.json')));
    return { session, messages, parts: messages.flatMap((m) => list(join(root, 'part', basename(m, '.json')))) };
  };
  const id = basename(file, '.json');
  const parentOf = (path) => {
    try {
      return JSON.parse(readFileSync(path, 'utf8')).parentID;
    } catch {
      return undefined;
    }
  };
  const children = list(dirname(file)).filter((path) => path !== file && parentOf(path) === id).map(filesOf);
  return { parent: filesOf(file), children };
}

/**
 * Imports a storage folder's session (`openCodeStorage`): each file left out is named by its
 * path in the reports (the import names it by its place among the files given).
 */
async function importOpenCodeStorage({ parent, children }) {
  const texts = (files) => ({
    session: readText(files.session, 'session'),
    messages: files.messages.map((m) => readText(m, 'message')),
    parts: files.parts.map((p) => readText(p, 'part')),
  });
  const tree = await cv.importOpenCodeStorage(texts(parent), children.map(texts));
  const named = (report, files) => {
    for (const d of report.diagnostics) {
      const at = /^(messages|parts)\[(\d+)\]$/.exec(d.path ?? '');
      if (at) d.path = files[at[1]][Number(at[2])];
      else if (d.path === 'session') d.path = files.session;
    }
  };
  named(tree.parent.report, parent);
  tree.children.forEach((child, i) => named(child.report, children[i]));
  return { tree, children: children.map((c) => ({ path: c.session })) };
}

/**
 * `import --follow`: imports FILE as it grows (the inspector's `followFile`, over a handle on
 * Node's file system) and prints a line per request the log gains, as recorded: index, provider
 * and model, tokens, input cost. Runs until interrupted.
 */
async function runFollow(values, file) {
  for (const option of ['strict', 'children', 'out']) if (values[option] !== undefined) throw new UsageError(`--${option} cannot be used with --follow`);
  const interval = values.interval === undefined ? 500 : Number(values.interval);
  if (!Number.isInteger(interval) || interval < 10) throw new UsageError(`--interval must be a whole number of milliseconds (10 or more), got '${values.interval}'`);
  try {
    closeSync(openSync(file, 'r')); // (a usage error when it cannot be read; followFile reads it)
  } catch (e) {
    throw new UsageError(`cannot read session file ${file}: ${e.code ?? firstLine(e.message)}`);
  }
  if (values.log !== undefined) writeFileSync(values.log, '');
  // FILE as a File System Access handle would give it: its size, time and bytes as they are now.
  const handle = {
    name: file,
    async getFile() {
      const { mtimeMs } = statSync(file);
      return Object.assign(await openAsBlob(file), { lastModified: mtimeMs });
    },
  };
  let printed = 0;
  const onLog = ({ log, added, rewound }) => {
    if (values.log !== undefined) appendFileSync(values.log, added);
    const timeline = new cv.Timeline(log);
    try {
      if (rewound) {
        process.stderr.write(`contextview: ${file} changed what was imported before: the view goes back (${timeline.length} request${timeline.length === 1 ? '' : 's'} now)\n`);
        printed = Math.min(printed, timeline.length);
      }
      for (; printed < timeline.length; printed++) {
        const { report } = timeline.buildAt(printed, { asRecorded: true });
        const { provider, model } = timeline.optionsAt(printed, { asRecorded: true });
        const dollars = report.forecast?.inputDollars;
        process.stdout.write(`${printed}\t${provider ?? '-'} ${model ?? '-'}\t${report.tokens.request} tokens\t${dollars === undefined || dollars === null ? '-' : '$' + dollars.toFixed(4)}\n`);
      }
    } finally {
      timeline.free();
    }
  };
  process.stderr.write(`contextview: following ${file} (interrupt to stop)\n`);
  let failed = null;
  let stop;
  const stopped = new Promise((resolveRun) => (stop = resolveRun));
  process.once('SIGINT', () => stop());
  const following = await followFile(cv, handle, {
    interval,
    format: values.from ?? null,
    onLog,
    onError: (e) => {
      // The library refused the file (its format not told, …): that ends it. A read that failed
      // (the file moved while its agent rewrote it) is said, and the next look tries again.
      if (!(e instanceof cv.ContextviewError)) {
        process.stderr.write(`contextview: cannot read ${file}: ${e?.code ?? firstLine(String(e?.message ?? e))}\n`);
        return;
      }
      failed = e;
      stop();
    },
  });
  await stopped;
  following.stop();
  if (failed) throw failed;
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

/** The import's counts, what it could not map (per kind), and its first problems. */
function formatImportReport(r) {
  const lines = [`contextview: import ${r.format}: ${r.lines} lines -> ${r.records} records`];
  const f = r.fidelity;
  if (f) {
    const counts = (c) => `${c.prompts} prompts, ${c.assistantTexts} texts, ${c.reasoning} reasoning, ${c.toolCalls} tool calls, ${c.images} images`;
    lines.push(`  the source's model saw ${counts(f.source)}; the view holds ${counts(f.view)}`);
    if (f.missing.length) {
      lines.push(`  WARNING: ${f.missing.length} element(s) the source agent's model saw are missing from the view:`);
      for (const m of f.missing.slice(0, 5)) {
        lines.push(`    ${m.kind} from line ${m.line}${m.id ? ` (${m.id})` : ''}${m.excerpt ? `: ${JSON.stringify(m.excerpt)}` : ''}`);
      }
      if (f.missing.length > 5) lines.push(`    … and ${f.missing.length - 5} more (all in report.fidelity.missing)`);
    }
  }
  const unmapped = Object.entries(r.unmapped ?? {});
  if (unmapped.length) lines.push('  not mapped: ' + unmapped.map(([k, n]) => `${k} ${n}`).join(', '));
  const diags = r.diagnostics ?? [];
  for (const d of diags.slice(0, 5)) lines.push(`  ${d.severity}${d.line ? ` line ${d.line}` : ''}${d.path ? ` ${d.path}` : ''}: ${d.code}: ${firstLine(d.message)}`);
  if (diags.length > 5) lines.push(`  … and ${diags.length - 5} more`);
  return lines.join('\n');
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

function firstLine(s) {
  return String(s).split('\n')[0];
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
