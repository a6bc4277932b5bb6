// What the inspector is given, read into one session: files picked or dropped together (in any
// order) become one session with its subagents, the parent found by the links; a folder becomes
// the Claude Code session it holds with the agent files under its `subagents/`, or the latest
// session of an OpenCode storage folder with its messages, parts and subagents; another agent's
// files are imported (`importTree`, `importOpenCodeStorage`), ours read as they are. Nothing here
// draws.

export const LOG_FORMAT = 'contextview.session-log';

/** Our log: its header, or (a log that lost it) a first line that is one of our records. */
export function isOurLog(text) {
  const first = text.split('\n', 8).find((l) => l.trim() !== '');
  try {
    const value = JSON.parse(first);
    return value?.format === LOG_FORMAT || (Number.isInteger(value?.seq) && (value.update !== undefined || value.event !== undefined));
  } catch {
    return false;
  }
}

/** Our log's header (its first line), or null. */
export function headerOf(text) {
  const end = text.indexOf('\n');
  try {
    const value = JSON.parse(end === -1 ? text : text.slice(0, end));
    return value?.format === LOG_FORMAT ? value : null;
  } catch {
    return null;
  }
}

/**
 * A subagent's own file by its content: Claude Code marks every entry of one `isSidechain`
 * (the parent's entries are not). Only a hint to try the others first as the parent.
 */
function looksLikeSubagent(text) {
  for (const line of text.split('\n', 20)) {
    if (!line.includes('"isSidechain"')) continue;
    try {
      return JSON.parse(line).isSidechain === true;
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * One session from `files` (`[{name, text}]`, in any order): the parent and its subagents.
 * Another agent's files are imported together; the parent is the file that links the others
 * (every other file answers one of its calls), tried likeliest first. Returns `{name, log,
 * report, children: Map(sessionId → log), unlinked: [names], files, text}` (`text`: the
 * parent's file as given). Throws the importer's
 * error (`unknown_format`, …) when the files are not a session it can read as `format`.
 * With `parentFirst`, the first file is tried as the parent first (a host that knows it).
 */
export async function assemble(cv, files, format = null, { parentFirst = false } = {}) {
  if (files.length === 0) throw Object.assign(new Error('no file given'), { code: 'invalid_argument' });
  const storage = (format === null || format === 'opencode') && storageSessions(files);
  if (storage) return assembleStorage(cv, storage, files.length);
  const ours = files.filter((f) => isOurLog(f.text));
  const foreign = files.filter((f) => !isOurLog(f.text));
  if (foreign.length === 0) return assembleOurs(ours);
  // Likeliest parents first: not a subagent's file by its content, then the longest.
  // (`parentFirst`: the host named the first file the parent; it is tried first.)
  // A Cline, Roo Code or Kilo Code task's chat (`ui_messages.json`) is never the parent: given
  // first, the import takes it as its task's (its requests' usage, Cline's truncations).
  const chats = foreign.filter(looksLikeChat);
  const sessions = chats.length < foreign.length ? foreign.filter((f) => !chats.includes(f)) : foreign;
  const likeliest = [...sessions].sort((a, b) => Number(looksLikeSubagent(a.text)) - Number(looksLikeSubagent(b.text)) || b.text.length - a.text.length);
  const candidates = parentFirst && sessions.includes(files[0]) ? [files[0], ...likeliest.filter((f) => f !== files[0])] : likeliest;
  let best = null;
  for (const parent of candidates) {
    const others = sessions.filter((f) => f !== parent);
    const texts = others.map((f) => f.text);
    let tree;
    try {
      tree = await cv.importTree(parent.text, [...chats.filter((f) => f !== parent).map((f) => f.text), ...texts], format);
    } catch (e) {
      // Not a task's history: its chats are no session of it.
      if (e?.code !== 'unknown_format' || chats.length === 0 || sessions === foreign) throw e;
      tree = await cv.importTree(parent.text, texts, format);
    }
    const unlinked = others.filter((_, i) => tree.children[i] && tree.unlinked.includes(headerOf(tree.children[i].log)?.sessionId)).map((f) => f.name);
    if (best === null || unlinked.length < best.unlinked.length) best = { parent, tree, unlinked };
    if (unlinked.length === 0) break;
  }
  const { parent, tree, unlinked } = best;
  const children = new Map();
  for (const child of tree.children) children.set(headerOf(child.log)?.sessionId, child.log);
  for (const f of ours) children.set(headerOf(f.text)?.sessionId, f.text);
  return { name: parent.name, text: parent.text, log: tree.parent.log, report: tree.parent.report, children, unlinked, files: files.length };
}

// OpenCode's storage folder (up to 1.1): `session/<project>/<id>.json`, `message/<id>/*.json`,
// `part/<message id>/*.json`, one JSON file each.
const STORAGE_SESSION = /(^|\/)session\/[^/]+\/([^/]+)\.json$/;

/** A file's JSON value, or null. */
function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Files named by their paths in an OpenCode storage folder (`[{name, text}]`): each session's
 * files (`{id, files: {session, messages, parts}}`, texts), the parent first — the session none
 * of the others names as its parent — or null when the files are not laid out so.
 */
function storageSessions(files) {
  const sessions = files.filter((f) => STORAGE_SESSION.test(f.name));
  if (sessions.length === 0) return null;
  const found = sessions.map((f) => {
    const { id, messages, parts } = storageFamily(files, (x) => x.name, f);
    return { id, parentId: parsed(f.text)?.parentID, name: f.name, files: { session: f.text, messages: messages.map((x) => x.text), parts: parts.map((x) => x.text) } };
  });
  if (!found.some((s) => s.files.messages.length > 0)) return null;
  const ids = new Set(found.map((s) => s.id));
  const parent = found.find((s) => !ids.has(s.parentId)) ?? found[0];
  return [parent, ...found.filter((s) => s !== parent)];
}

/**
 * A storage session's own files among `items` (each named by `pathOf`, its path in the folder):
 * its id, its messages' files and their parts', as OpenCode lays them out beside `session/`.
 */
function storageFamily(items, pathOf, session) {
  const m = STORAGE_SESSION.exec(pathOf(session));
  const root = pathOf(session).slice(0, m.index + m[1].length);
  const stem = (path) => path.slice(path.lastIndexOf('/') + 1, -'.json'.length);
  const messages = items.filter((x) => pathOf(x).startsWith(`${root}message/${m[2]}/`) && pathOf(x).endsWith('.json'));
  const ids = new Set(messages.map((x) => stem(pathOf(x))));
  const parts = items.filter((x) => pathOf(x).startsWith(`${root}part/`) && pathOf(x).endsWith('.json') && ids.has(pathOf(x).split('/').at(-2)));
  return { id: m[2], messages, parts };
}

/** An OpenCode storage folder's session with its subagents' (`storageSessions`), as `assemble` gives one. */
async function assembleStorage(cv, [parent, ...children], count) {
  const tree = await cv.importOpenCodeStorage(parent.files, children.map((c) => c.files));
  const logs = new Map(tree.children.map((c) => [headerOf(c.log)?.sessionId, c.log]));
  const unlinked = children.filter((c) => tree.unlinked.includes(c.id)).map((c) => c.name);
  return { name: parent.name, text: parent.files.session, log: tree.parent.log, report: tree.parent.report, children: logs, unlinked, files: count };
}

/**
 * The files to read of an OpenCode storage folder (`[{path, file}]`, paths relative to the folder
 * picked: the storage folder or one above it): the latest session that is no subagent's, its
 * messages' and parts' files, and its subagents' sessions with theirs; null when the folder holds
 * no such session. Reads only the sessions' own files to choose.
 */
export async function storageFilesIn(pairs) {
  const sessions = pairs.filter((p) => STORAGE_SESSION.test(p.path));
  if (sessions.length === 0 || !pairs.some((p) => /(^|\/)message\//.test(p.path))) return null;
  const infos = await Promise.all(sessions.map(async (p) => ({ p, info: parsed(await p.file.text()) ?? {} })));
  const tops = infos.filter((s) => s.info.parentID === undefined);
  if (tops.length === 0) return null;
  const when = (s) => s.info.time?.updated ?? s.p.file.lastModified ?? 0;
  const top = tops.reduce((a, b) => (when(b) > when(a) ? b : a));
  const family = [top, ...infos.filter((s) => s.info.parentID === top.info.id)];
  const wanted = [];
  for (const { p } of family) {
    const { messages, parts } = storageFamily(pairs, (q) => q.path, p);
    wanted.push(p, ...messages, ...parts);
  }
  return wanted;
}

/** Whether a file is a Cline, Roo Code or Kilo Code task's chat (`ui_messages.json`): `[{ts, type: "say"|"ask"}, …]`. */
function looksLikeChat(f) {
  const head = f.text.trimStart().slice(0, 2048);
  return head.startsWith('[') && head.includes('"ts"') && (head.includes('"say"') || head.includes('"ask"')) && !head.includes('"role"');
}

/** Our logs: the parent is the one no other names as its parent, children by session id. */
function assembleOurs(files) {
  const ids = new Set(files.map((f) => headerOf(f.text)?.sessionId).filter(Boolean));
  const parentOf = (f) => headerOf(f.text)?.parentSessionId;
  const parent = files.find((f) => !ids.has(parentOf(f))) ?? files[0];
  const children = new Map();
  for (const f of files) if (f !== parent) children.set(headerOf(f.text)?.sessionId, f.text);
  const unlinked = files.filter((f) => f !== parent && parentOf(f) === undefined).map((f) => f.name);
  return { name: parent.name, text: parent.text, log: parent.text, report: null, children, unlinked, files: files.length };
}

/**
 * The session files of a folder (`[{path, file}]`, paths relative to the folder, `file` with
 * `text()` and `lastModified`): the sessions at its shallowest level, the latest first, and the
 * files under each one's `<id>/subagents/` (Claude Code's layout; any `subagents/` folder when
 * the folder is a session's own). Empty when the folder holds no session file.
 */
export function sessionsInFolder(pairs) {
  const logs = pairs.filter((p) => /\.jsonl?$/i.test(p.path));
  const isChild = (p) => /(^|\/)subagents\//.test(p.path);
  const tops = logs.filter((p) => !isChild(p));
  const depth = (p) => p.path.split('/').length;
  const shallowest = Math.min(...tops.map(depth));
  const parents = tops.filter((p) => depth(p) === shallowest).sort((a, b) => (b.file.lastModified ?? 0) - (a.file.lastModified ?? 0));
  const children = logs.filter(isChild);
  return parents.map((p) => {
    const stem = p.path.replace(/\.jsonl?$/i, '');
    const own = children.filter((c) => c.path.startsWith(`${stem}/subagents/`));
    return { parent: p, children: own.length ? own : parents.length === 1 ? children : [] };
  }).concat(parents.length === 0 && children.length ? [{ parent: null, children }] : []);
}

/**
 * What a session's diagnostics say about how much of its file was read: `{cut, skipped, line}`
 * — `cut` when its last line is torn or unreadable (a file still being written, or cut short),
 * `skipped` the lines that could not be read anywhere.
 */
export function readingOf(text, diagnostics) {
  const unreadable = diagnostics.filter((d) => d.code === 'log.torn_tail' || d.code === 'import.malformed_line' || d.code === 'import.not_an_object' || (d.severity === 'error' && d.code.startsWith('log.')));
  const lines = text.split('\n');
  let last = lines.length;
  while (last > 0 && lines[last - 1].trim() === '') last--;
  const cut = unreadable.some((d) => d.code === 'log.torn_tail' || d.line === last);
  return { cut, skipped: unreadable.length, line: unreadable.at(-1)?.line ?? null };
}

/** What the page says at the top of a session read in part (`readingOf`), or null. */
export function readingSaid(name, reading, unlinked) {
  const said = [];
  if (reading.cut) said.push(`${name} is cut short: its last line${reading.line ? ` (line ${reading.line})` : ''} is incomplete, so the last request may be missing what came after it`);
  else if (reading.skipped) said.push(`${name} was partly read: ${reading.skipped} line${reading.skipped === 1 ? '' : 's'} could not be read (see Diagnostics)`);
  if (unlinked.length) said.push(`not linked to any call of this session: ${unlinked.join(', ')}`);
  return said.length ? `${said.join('. ')}.` : null;
}
