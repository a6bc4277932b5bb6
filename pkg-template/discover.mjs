// Discovery of project rules and skills, JavaScript side: the driver that runs the wasm
// `WorkspaceEngine` (sans-IO; see docs/discovery-protocol.md) against a host filesystem, and the
// filesystem adapters that need no Node built-ins (memory, browser File System Access API).
// The Node adapter lives in node-fs.mjs so that this module loads in browsers and Workers.
//
// Each entry (node.mjs, browser.mjs, workerd.mjs) binds the driver to its own wasm build:
//   export const { discover } = bindDiscover(async () => (await loadLazyModule()).WorkspaceEngine);

import { ContextviewError, ContextviewTypeError } from './errors.mjs';

/** A job asking for more rounds than this is stopped with code `discovery_stalled`. */
export const MAX_ROUNDS = 10_000;

const ERR_NOT_FOUND = new Set(['ENOENT', 'ENOTDIR']);

/** A ContextviewError with its stable `code`. */
export function codedError(code, message) {
  return new ContextviewError(code, message);
}

/** An Error like Node's fs errors: `code`, and a message naming the operation and the path. */
function fsError(code, what, op, path) {
  return Object.assign(new Error(`${code}: ${what}, ${op} '${path}'`), { code, path });
}

/** True for "this path does not exist" from Node (ENOENT, ENOTDIR) or the browser (NotFoundError). */
export function isNotFound(e) {
  return Boolean(e) && typeof e === 'object' && (ERR_NOT_FOUND.has(e.code) || e.name === 'NotFoundError');
}

function messageOf(e) {
  try {
    const m = e instanceof Error || (e && typeof e === 'object' && typeof e.message === 'string') ? e.message : String(e);
    return m || (e && e.name) || 'unknown error';
  } catch {
    return 'unknown error (the thrown value could not be converted to a string)';
  }
}

/** A plain Uint8Array view (not a Buffer subclass) of at most `limit` bytes. */
function bytesView(bytes, limit) {
  const n = limit === undefined ? bytes.byteLength : Math.min(bytes.byteLength, limit);
  if (bytes.constructor === Uint8Array && n === bytes.byteLength) return bytes;
  return new Uint8Array(bytes.buffer, bytes.byteOffset, n);
}

const encoder = new TextEncoder();

/** The host answer for a readFile callback's result (`null`/`undefined` = not found). */
function fileAnswer(id, result, maxBytes) {
  if (result == null) return { id, notFound: true };
  let content, size;
  if (typeof result === 'string' || ArrayBuffer.isView(result) || result instanceof ArrayBuffer) {
    content = result;
  } else if (typeof result === 'object' && result.content != null) {
    ({ content, size } = result);
  } else {
    return { id, error: `readFile returned ${Object.prototype.toString.call(result)}; expected a string, a Uint8Array or {content, size}` };
  }
  const limit = maxBytes == null ? undefined : maxBytes + 1;
  if (typeof content === 'string') {
    // A string longer than the limit in UTF-16 units is longer in UTF-8 bytes too: cut it as bytes.
    if (limit !== undefined && content.length > limit) content = encoder.encode(content);
    else if (size == null) return { id, content };
    else return { id, content, size };
  }
  if (content instanceof ArrayBuffer) content = new Uint8Array(content);
  if (!ArrayBuffer.isView(content)) return { id, error: `readFile returned content of type ${typeof content}` };
  if (!(content instanceof Uint8Array)) content = new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
  size = Math.max(size ?? 0, content.byteLength);
  return { id, content: bytesView(content, limit), size };
}

/**
 * Answers one host request with the host's callbacks. Never throws: a callback that throws or
 * rejects becomes `{id, error}`, or `{id, notFound: true}` for a not-found error.
 */
export async function answerRequest(fs, request) {
  const { id, op, path } = request;
  try {
    if (op === 'readDir') {
      const entries = await fs.readDir(path);
      if (entries == null) return { id, notFound: true };
      if (!Array.isArray(entries)) return { id, error: `readDir returned ${Object.prototype.toString.call(entries)}; expected an array of entries` };
      return { id, entries };
    }
    if (op === 'readFile') {
      const maxBytes = request.maxBytes ?? undefined;
      return fileAnswer(id, await fs.readFile(path, maxBytes), maxBytes);
    }
    return { id, error: `unknown host operation '${op}'` };
  } catch (e) {
    if (isNotFound(e)) return { id, notFound: true };
    return { id, error: messageOf(e) };
  }
}

function checkFs(fs) {
  if (!fs || typeof fs.readDir !== 'function' || typeof fs.readFile !== 'function') {
    throw new ContextviewTypeError('fs', 'discover(options, fs): fs must have readDir(path) and readFile(path, maxBytes) functions (see nodeFs, memoryFs, browserFs)');
  }
}

function pathList(paths) {
  if (typeof paths === 'string') return [paths];
  if (paths == null || typeof paths[Symbol.iterator] !== 'function') {
    throw new ContextviewTypeError('changedPaths', 'refresh(changedPaths): expected an array of absolute paths');
  }
  const list = Array.from(paths);
  for (const p of list) {
    if (typeof p !== 'string') throw new ContextviewTypeError('changedPaths', `refresh(changedPaths): every path must be a string, got ${typeof p}`);
  }
  return list;
}

const CONSTRUCT = Symbol('Workspace.construct');

/**
 * A discovered workspace: the environment found by `discover`, kept current by `refresh`.
 * Jobs run one at a time (calls made while one runs wait their turn). Call `free()` when done
 * to release the engine's wasm memory.
 */
export class Workspace {
  #engine;
  #fs;
  #environment;
  #tail = Promise.resolve();
  #freed = false;

  /** Use `discover(options, fs)`; the constructor is not public. */
  constructor(token, engine, fs) {
    if (token !== CONSTRUCT) throw new ContextviewTypeError('token', 'use discover(options, fs) to create a Workspace');
    this.#engine = engine;
    this.#fs = fs;
  }

  /** The last discover (or refresh) outcome: `{rules, skills, skillListing, diagnostics, stats, repoRoot}`. */
  get environment() {
    return this.#environment;
  }

  /** Re-reads what changed at `changedPaths` (absolute paths); updates `environment`. */
  async refresh(changedPaths) {
    const paths = pathList(changedPaths);
    const changes = await this.#enqueue(() => this.#engine.startRefresh(paths));
    if (changes && changes.environment) this.#environment = changes.environment;
    return changes;
  }

  /** The rules that apply to `path` and were not attached before in this workspace. */
  async rulesForPath(path) {
    if (typeof path !== 'string') throw new ContextviewTypeError('path', 'rulesForPath(path): path must be a string');
    return this.#enqueue(() => this.#engine.startRulesForPath(path));
  }

  /**
   * Every rule that applies to `path`, attached before or not, attaching none (what an
   * inspector shows; `rulesForPath` stays the agent's call).
   */
  async rulesMatching(path) {
    if (typeof path !== 'string') throw new ContextviewTypeError('path', 'rulesMatching(path): path must be a string');
    return this.#enqueue(() => this.#engine.startRulesMatching(path));
  }

  /** A skill's full text: `{name, path, body, frontmatter}`; rejects with code `unknown_skill`. */
  async loadSkill(name) {
    if (typeof name !== 'string') throw new ContextviewTypeError('name', 'loadSkill(name): name must be a string');
    return this.#enqueue(() => this.#engine.startLoadSkill(name));
  }

  /** Host calls made so far: `{calls: {readDir, readFile}, bytesRead, rounds}`. */
  stats() {
    this.#checkOpen();
    return this.#engine.stats();
  }

  /** Releases the engine. Later calls reject with code `workspace_closed`. */
  free() {
    if (this.#freed) return;
    this.#freed = true;
    this.#engine.free?.();
  }

  #checkOpen() {
    if (this.#freed) throw codedError('workspace_closed', 'this workspace was freed');
  }

  #enqueue(start) {
    const run = this.#tail.then(() => this.#drive(start));
    this.#tail = run.then(() => undefined, () => undefined);
    return run;
  }

  async #drive(start) {
    this.#checkOpen();
    const engine = this.#engine;
    start();
    for (let round = 0; ; round++) {
      const step = engine.step();
      if (step.done) return step.outcome;
      if (round >= MAX_ROUNDS) {
        throw codedError('discovery_stalled', `discovery did not finish after ${MAX_ROUNDS} rounds of host requests (last: ${describe(step.requests)})`);
      }
      const requests = step.requests ?? [];
      const answers = await Promise.all(requests.map((r) => answerRequest(this.#fs, r)));
      this.#checkOpen();
      engine.answer(answers);
    }
  }

  /** @internal Runs discover on a new workspace. */
  static async [CONSTRUCT](engine, fs) {
    const ws = new Workspace(CONSTRUCT, engine, fs);
    try {
      ws.#environment = await ws.#enqueue(() => engine.startDiscover());
    } catch (e) {
      ws.free();
      throw e;
    }
    return ws;
  }
}

if (typeof Symbol.dispose === 'symbol') {
  Workspace.prototype[Symbol.dispose] = function dispose() { this.free(); };
}

function describe(requests) {
  const list = requests ?? [];
  const shown = list.slice(0, 3).map((r) => `${r.op} ${r.path}`).join(', ');
  return list.length > 3 ? `${shown}, … ${list.length} requests` : shown || 'no requests';
}

/**
 * Binds the driver to an entry's `engine()`, which resolves to the lazy module's
 * `WorkspaceEngine` class (loading that module on first use). Returns `discover`.
 */
export function bindDiscover(engine) {
  /**
   * Discovers the rules and skills for `options.cwd`, reading through `fs` (`readDir(path)`,
   * `readFile(path, maxBytes)`, each returning a value or a Promise). Resolves to a Workspace.
   */
  async function discover(options, fs) {
    checkFs(fs);
    const Engine = await engine();
    const instance = new Engine(options);
    return Workspace[CONSTRUCT](instance, fs);
  }
  return { discover };
}

// ---------------------------------------------------------------------------------------------
// Paths: absolute, '/'-separated.

function normalize(path) {
  if (typeof path !== 'string') throw new ContextviewTypeError('path', `path must be a string, got ${typeof path}`);
  const parts = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return '/' + parts.join('/');
}

function parentOf(path) {
  if (path === '/') return null;
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

function baseName(path) {
  return path.slice(path.lastIndexOf('/') + 1);
}

function joinPath(dir, rel) {
  return normalize(rel.startsWith('/') ? rel : `${dir}/${rel}`);
}

const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** UTF-8 length of a string without encoding it. */
function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 4; i++; }
    else n += 3;
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// Memory adapter.

const MAX_SYMLINK_HOPS = 40;

/**
 * A filesystem in memory. `files` maps absolute paths to `string | Uint8Array | {symlink: target}`
 * (or `{dir: true}` for an empty directory), as a plain object or a Map; directories are implied
 * by the paths. Answers synchronously. `write(path, value)` and `remove(path)` change it (for
 * tests and editors holding unsaved buffers).
 */
export function memoryFs(files = {}) {
  if (files === null || typeof files !== 'object') throw new ContextviewTypeError('files', '`files` must be an object or a Map of paths');
  // path -> {kind: 'dir', children: Set<name>, listing?} | {kind: 'file', data, bytes?} | {kind: 'symlink', target}
  // A directory's sorted listing is kept until one of its children changes.
  const nodes = new Map([['/', { kind: 'dir', children: new Set(), listing: null }]]);

  function toNode(path, value) {
    if (typeof value === 'string' || value instanceof Uint8Array) return { kind: 'file', data: value };
    if (value instanceof ArrayBuffer) return { kind: 'file', data: new Uint8Array(value) };
    if (value && typeof value === 'object' && typeof value.symlink === 'string') return { kind: 'symlink', target: value.symlink };
    if (value && typeof value === 'object' && value.dir === true) return { kind: 'dir', children: new Set(), listing: null };
    throw new ContextviewTypeError('files', `memoryFs: \`files\` must map paths to a string, a Uint8Array, {symlink: target} or {dir: true}; ${path} is not one`);
  }

  function ensureDir(path) {
    const node = nodes.get(path);
    if (node) {
      if (node.kind !== 'dir') throw fsError('ENOTDIR', 'not a directory', 'mkdir', path);
      return node;
    }
    const parent = ensureDir(parentOf(path));
    const dir = { kind: 'dir', children: new Set(), listing: null };
    nodes.set(path, dir);
    parent.children.add(baseName(path));
    parent.listing = null;
    return dir;
  }

  function dropSubtree(path) {
    const node = nodes.get(path);
    if (!node) return;
    if (node.kind === 'dir') for (const name of node.children) dropSubtree(path === '/' ? `/${name}` : `${path}/${name}`);
    nodes.delete(path);
  }

  function write(path, value) {
    const p = normalize(path);
    if (p === '/') throw new ContextviewTypeError('path', 'memoryFs: cannot replace /');
    const node = toNode(p, value);
    const parent = ensureDir(parentOf(p));
    const old = nodes.get(p);
    if (old && old.kind === 'dir' && node.kind === 'dir') return;
    if (old) dropSubtree(p);
    nodes.set(p, node);
    parent.children.add(baseName(p));
    parent.listing = null;
  }

  function remove(path) {
    const p = normalize(path);
    if (p === '/' || !nodes.has(p)) return false;
    dropSubtree(p);
    const parent = nodes.get(parentOf(p));
    parent.children.delete(baseName(p));
    parent.listing = null;
    return true;
  }

  /** Resolves symlinks (all of them, or all but the last component); `null` when missing. */
  function lookup(path, op, followLast = true) {
    let parts = normalize(path).split('/').filter(Boolean);
    let cur = '/';
    let hops = 0;
    for (let i = 0; i < parts.length; i++) {
      const next = cur === '/' ? `/${parts[i]}` : `${cur}/${parts[i]}`;
      const node = nodes.get(next);
      if (!node) return null;
      const last = i === parts.length - 1;
      if (node.kind === 'symlink' && (!last || followLast)) {
        if (++hops > MAX_SYMLINK_HOPS) throw fsError('ELOOP', 'too many symbolic links encountered', op, path);
        parts = joinPath(cur, node.target).split('/').filter(Boolean).concat(parts.slice(i + 1));
        cur = '/';
        i = -1;
        continue;
      }
      if (!last && node.kind !== 'dir') return null; // a file in the middle: ENOTDIR, i.e. not found
      cur = next;
    }
    return { path: cur, node: nodes.get(cur) };
  }

  function bytesOf(node) {
    if (node.bytes === undefined) node.bytes = typeof node.data === 'string' ? encoder.encode(node.data) : node.data;
    return node.bytes;
  }

  function sizeOf(node) {
    if (node.bytes !== undefined) return node.bytes.byteLength;
    return typeof node.data === 'string' ? utf8Length(node.data) : node.data.byteLength;
  }

  function readDir(path) {
    const found = lookup(path, 'scandir');
    if (!found || found.node.kind !== 'dir') return null; // no directory there (as nodeFs: ENOTDIR)
    const dir = found.node;
    if (!dir.listing) {
      const entries = [];
      const prefix = found.path === '/' ? '/' : `${found.path}/`;
      for (const name of dir.children) {
        const child = nodes.get(prefix + name);
        if (child.kind === 'file') entries.push({ name, kind: 'file', size: sizeOf(child) });
        else if (child.kind === 'dir') entries.push({ name, kind: 'dir' });
        else entries.push({ name, kind: 'symlink', target: child.target });
      }
      dir.listing = entries.sort(byName);
    }
    return dir.listing.slice();
  }

  function readFile(path, maxBytes) {
    const found = lookup(path, 'open');
    if (!found) return null;
    if (found.node.kind === 'dir') throw fsError('EISDIR', 'illegal operation on a directory', 'read', path);
    const bytes = bytesOf(found.node);
    const limit = maxBytes == null ? bytes.byteLength : Math.min(bytes.byteLength, maxBytes + 1);
    return { content: limit === bytes.byteLength ? bytes : bytes.subarray(0, limit), size: bytes.byteLength };
  }

  for (const [path, value] of files instanceof Map ? files : Object.entries(files)) write(path, value);
  return { readDir, readFile, write, remove };
}

// ---------------------------------------------------------------------------------------------
// Browser adapter (File System Access API / OPFS).

/**
 * A `FileSystemDirectoryHandle` mounted at the absolute path `mount` (default `/`). Paths outside
 * the mount do not exist, except the mount's ancestors, which list just the next directory down.
 * Directories are listed with `values()` (or `entries()`); files are read with
 * `getFile().slice(0, maxBytes + 1)`, so a large file is never read whole.
 */
export function browserFs(rootHandle, { mount = '/' } = {}) {
  if (!rootHandle || typeof rootHandle.getDirectoryHandle !== 'function') {
    throw codedError('invalid_argument', 'browserFs(rootHandle): rootHandle must be a FileSystemDirectoryHandle');
  }
  const base = normalize(mount);

  /** Components below the mount, `[]` for the mount itself, or a string: the next name down from an ancestor. */
  function locate(path) {
    const p = normalize(path);
    if (p === base) return [];
    if (base === '/') return p.slice(1).split('/');
    if (p.startsWith(base + '/')) return p.slice(base.length + 1).split('/');
    if (p === '/' || base.startsWith(p + '/')) return { ancestorOf: base.slice(p === '/' ? 1 : p.length + 1).split('/')[0] };
    return null;
  }

  async function dirAt(parts) {
    let handle = rootHandle;
    for (const name of parts) {
      try {
        handle = await handle.getDirectoryHandle(name);
      } catch (e) {
        if (e && (e.name === 'NotFoundError' || e.name === 'TypeMismatchError')) return null;
        throw e;
      }
    }
    return handle;
  }

  async function readDir(path) {
    const where = locate(path);
    if (where === null) return null;
    if (!Array.isArray(where)) return [{ name: where.ancestorOf, kind: 'dir' }];
    const dir = await dirAt(where);
    if (!dir) return null;
    const entries = [];
    const kindOf = (h) => (h.kind === 'directory' ? 'dir' : h.kind === 'file' ? 'file' : 'other');
    if (typeof dir.values === 'function') {
      for await (const child of dir.values()) entries.push({ name: child.name, kind: kindOf(child) });
    } else {
      for await (const [name, child] of dir.entries()) entries.push({ name, kind: kindOf(child) });
    }
    return entries.sort(byName);
  }

  async function readFile(path, maxBytes) {
    const where = locate(path);
    if (where === null) return null;
    if (!Array.isArray(where) || where.length === 0) throw fsError('EISDIR', 'illegal operation on a directory', 'read', path);
    const dir = await dirAt(where.slice(0, -1));
    if (!dir) return null;
    let fileHandle;
    try {
      fileHandle = await dir.getFileHandle(where[where.length - 1]);
    } catch (e) {
      if (e && e.name === 'NotFoundError') return null;
      if (e && e.name === 'TypeMismatchError') throw fsError('EISDIR', 'illegal operation on a directory', 'read', path);
      throw e;
    }
    const file = await fileHandle.getFile();
    const blob = maxBytes != null && file.size > maxBytes + 1 ? file.slice(0, maxBytes + 1) : file;
    return { content: new Uint8Array(await blob.arrayBuffer()), size: file.size };
  }

  return { readDir, readFile };
}

/**
 * A read-only DiscoverFs over files a page was handed: the `FileList` of an
 * `<input type="file" webkitdirectory>` (each File's `webkitRelativePath`, which starts with the
 * chosen folder's name) or `{path, file}` pairs (paths relative to the mount, `/`-separated),
 * e.g. from a folder dropped and walked with `webkitGetAsEntry`. Files sit under `mount`
 * (`/` by default), so a chosen folder `proj` is at `/proj`. Content is read only when discovery
 * asks for it, and only the bytes it asks for.
 */
export function fileListFs(files, { mount = '/' } = {}) {
  if (!files || typeof files[Symbol.iterator] !== 'function') {
    throw codedError('invalid_argument', 'fileListFs(files): files must be a FileList or an iterable of File or {path, file}');
  }
  const base = normalize(mount);
  const byPath = new Map();
  const dirs = new Map([['/', new Map()]]);
  const addDir = (path) => {
    if (dirs.has(path)) return;
    dirs.set(path, new Map());
    const parent = parentOf(path);
    addDir(parent);
    dirs.get(parent).set(baseName(path), 'dir');
  };
  for (const entry of files) {
    const isFile = entry && typeof entry.slice === 'function' && typeof entry.size === 'number';
    const file = isFile ? entry : entry?.file;
    const rel = isFile ? entry.webkitRelativePath || entry.name : entry?.path;
    if (!file || typeof file.slice !== 'function' || typeof rel !== 'string' || rel === '') {
      throw codedError('invalid_argument', 'fileListFs(files): every entry must be a File (with webkitRelativePath) or {path, file}');
    }
    const path = joinPath(base, rel.replace(/^\/+/, ''));
    const parent = parentOf(path);
    addDir(parent);
    dirs.get(parent).set(baseName(path), 'file');
    byPath.set(path, file);
  }

  function readDir(path) {
    const dir = dirs.get(normalize(path));
    if (!dir) return null;
    return [...dir].map(([name, kind]) => (kind === 'file' ? { name, kind, size: byPath.get(joinPath(normalize(path), name)).size } : { name, kind })).sort(byName);
  }

  async function readFile(path, maxBytes) {
    const p = normalize(path);
    if (dirs.has(p)) throw fsError('EISDIR', 'illegal operation on a directory', 'read', path);
    const file = byPath.get(p);
    if (!file) return null;
    const blob = maxBytes != null && file.size > maxBytes + 1 ? file.slice(0, maxBytes + 1) : file;
    return { content: new Uint8Array(await blob.arrayBuffer()), size: file.size };
  }

  return { readDir, readFile };
}
