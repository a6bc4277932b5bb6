// `contextview import`: another agent's session file to our log, with the files that go with it
// on disk (its subagents', a Cline task's chat, an OpenCode storage folder's), its report in
// words, and `--follow` (the file imported as its agent writes it).
import { appendFileSync, closeSync, existsSync, mkdirSync, openAsBlob, openSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import * as cv from './node.mjs';
import { followFile } from './inspector/follow.mjs';
import { FORMATS, UsageError, firstLine, jsonlFiles, readText } from './cli-common.mjs';

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

export async function runImport(values, [file]) {
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
  let failed = null;
  let stop;
  const onLog = ({ log, added, rewound }) => {
    if (failed) return;
    if (values.log !== undefined) {
      try {
        appendFileSync(values.log, added);
      } catch (e) {
        // What LOG did not take would be missing from it for good: following ends, with the error.
        failed = Object.assign(new Error(`cannot append to ${values.log}, so following stopped; it holds what was appended before (${firstLine(e.message)})`), { code: e.code ?? 'write_failed' });
        stop();
        return;
      }
    }
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
