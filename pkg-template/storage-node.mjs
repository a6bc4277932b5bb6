// Session-log storage in a local JSON Lines file (Node). The file is the log verbatim: the
// header line, then one record per line, each ending in '\n'. An append writes its batch with one
// write() and then fsync()s, so a batch is durable when the promise resolves; a crash can only
// leave a torn tail (a last line without '\n', or not valid JSON), which load() drops and the
// next append truncates away before it writes. Lines ending in "\r\n" are read too (load()
// returns them with "\n"); appends always write "\n".
//
// An append reads only the file's ends: its header line, and back from its end the last record
// (its seq), a torn tail to cut, and the lines of a batch sent again (to skip what is stored);
// then each append stat()s the file and reads again only when its size or mtime is not what
// this instance last saw (another instance or process wrote it). load() reads it whole.
// Calls on an instance run one at a time, in call order; there is no lock between processes, so
// give a file one writer at a time. A session opens from the log's last checkpoint: loadTail()
// reads the file backwards from its end to it, loadHistory() the bytes before on demand. Only
// node.mjs imports this module.
import { mkdirSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

import { ContextviewTypeError } from './errors.mjs';

import {
  StorageError, isTorn, parseBatch, parseLine, planAppend, planRows, scanEntries, tailScan, tornLength, tornTailDiagnostic, historyEnd, recordSeqs,
} from './storage.mjs';

const NL = 0x0a;
/** How much loadTail() reads at a time, going back from the file's end. */
const TAIL_CHUNK = 1 << 20;
/** The first read of a line's search (the header from the start, the last lines from the end), doubling up to TAIL_CHUNK. */
const FIRST_CHUNK = 16 << 10;
const CR = 0x0d;
const isBlank = (s) => s.trim() === '';

/** A record line's seq, read from its start when it opens with it; -1 when it does not read. */
function lineSeq(line) {
  const m = /^\{"seq":(\d+)[,}]/.exec(line);
  if (m) return Number(m[1]);
  try {
    const seq = JSON.parse(line)?.seq;
    return Number.isSafeInteger(seq) ? seq : -1;
  } catch {
    return -1;
  }
}

/** A line's kind (`header` or `record`), or null when it is not one. */
function lineKind(line) {
  try {
    return parseLine(line).kind;
  } catch {
    return null;
  }
}

/**
 * The file's first line (its header) and where it ends, read with `read(from, length)` in reads
 * that double from `FIRST_CHUNK`; null when it has no line break.
 */
async function firstLine(read, size) {
  let first = Buffer.alloc(0);
  for (let at = 0, n = FIRST_CHUNK; at < size && first.indexOf(NL) < 0; at += n, n = Math.min(2 * n, TAIL_CHUNK)) first = Buffer.concat([first, await read(at, Math.min(n, size - at))]);
  const end = first.indexOf(NL);
  return end < 0 ? null : { line: first.toString('utf8', 0, end).replace(/\r$/, ''), end };
}

/**
 * The lines of `[floor, size)` from the last to the first, read with `read(from, length)` in
 * reads that double from `FIRST_CHUNK` to `TAIL_CHUNK`: `{line, at, terminated}` (`at`: where the line starts; a last line
 * without its line break is not terminated). "\r\n" ends a line too.
 */
async function* linesBackward(read, floor, size) {
  let pos = size;
  let carry = Buffer.alloc(0);
  let last = true;
  for (let n = FIRST_CHUNK; pos > floor; n = Math.min(2 * n, TAIL_CHUNK)) {
    const length = Math.min(n, pos - floor);
    pos -= length;
    const data = Buffer.concat([await read(pos, length), carry]);
    let stop = data.length;
    for (let i = data.length - 1; i >= 0; i--) {
      if (data[i] !== NL) continue;
      if (i + 1 < stop || !last) yield { line: data.toString('utf8', i + 1, stop).replace(/\r$/, ''), at: pos + i + 1, terminated: !last };
      last = false;
      stop = i;
    }
    carry = data.subarray(0, stop);
  }
  if (carry.length > 0) yield { line: carry.toString('utf8').replace(/\r$/, ''), at: floor, terminated: !last };
}

/**
 * Parses the file's bytes. Returns the log, the diagnostics, `goodBytes` (the length up to the
 * end of the last line that stays) and `fileBytes`.
 * @param {Buffer} buf
 */
function scanFile(buf) {
  const diagnostics = [];
  let end = buf.lastIndexOf(NL) + 1; // everything after the last '\n' is a torn tail
  if (end < buf.length) diagnostics.push(tornTailDiagnostic(`the last ${buf.length - end} bytes (no final newline)`));
  const lines = [];
  for (let start = 0; start < end;) {
    const nl = buf.indexOf(NL, start);
    const line = buf.toString('utf8', start, nl > start && buf[nl - 1] === CR ? nl - 1 : nl); // CRLF files too
    if (!isBlank(line)) lines.push({ line, start });
    start = nl + 1;
  }
  const last = lines.at(-1);
  if (end === buf.length && last && isTorn(last.line)) {
    diagnostics.push(tornTailDiagnostic(`the last line (${end - last.start} bytes, not valid JSON)`));
    lines.pop();
    end = last.start;
  }
  const state = scanEntries(lines, diagnostics);
  return { state, diagnostics, goodBytes: end, fileBytes: buf.length };
}

/** fsync()s the directory holding a file just created, so that its name is durable too. */
async function syncDir(path) {
  let dir;
  try {
    dir = await open(dirname(path), 'r');
    await dir.sync();
  } catch {
    // Not every platform can fsync a directory (Windows); the file's own fsync still happened.
  } finally {
    await dir?.close().catch(() => {});
  }
}

/**
 * Session-log storage in the JSON Lines file at `path` (created by the first append; its
 * directory is made now, with any directories above it, and a directory that cannot be made is
 * refused now: a StorageError `write_failed`, before anything is written to it).
 * `load()` rejects with StorageError `read_failed` when the file cannot be read; `append()` with
 * the refusals of the shared check (see storage.mjs), `read_failed`, or `write_failed` when
 * the write, truncate or fsync fails (the cached state is then dropped and re-read).
 * @param {string} path
 * @returns {import('./index.d.ts').SessionStorage & {path: string}}
 */
export function nodeFileStorage(path) {
  if (typeof path !== 'string' || path === '' || path.includes('\0')) {
    throw new ContextviewTypeError('path', `\`path\` must be a file's path (a non-empty string), not ${typeof path === 'string' ? JSON.stringify(path) : typeof path}`);
  }
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (e) {
    throw new StorageError('write_failed', `cannot make the directory of ${path}: ${e?.message}`, { cause: e });
  }
  /** @type {(ReturnType<typeof scanFile> & {mtimeMs: number|null}) | null} */
  let cache = null;
  let queue = Promise.resolve();
  /** Bytes this instance has read from the file. */
  let bytesRead = 0;

  /** Runs `fn` after every earlier call on this instance has settled. */
  function serial(fn) {
    const run = queue.then(fn);
    queue = run.then(() => {}, () => {});
    return run;
  }

  const failed = (e) => new StorageError('read_failed', `cannot read ${path}: ${e?.message}`, { cause: e });

  /** The file opened for reading; null when there is none. */
  async function openToRead() {
    try {
      return await open(path, 'r');
    } catch (e) {
      if (e?.code === 'ENOENT') return null;
      throw failed(e);
    }
  }

  /** Reads `length` bytes of `handle` from `from` (fewer at its end), counted in bytesRead. */
  const reader = (handle) => async (from, length) => {
    const buf = Buffer.alloc(length);
    const got = (await handle.read(buf, 0, length, from)).bytesRead;
    bytesRead += got;
    return buf.subarray(0, got);
  };

  /** Reads and parses the file; the cache remembers its mtime (null: no file). */
  async function read() {
    const handle = await openToRead();
    if (!handle) {
      cache = { ...scanFile(Buffer.alloc(0)), mtimeMs: null };
      return cache;
    }
    try {
      const { mtimeMs } = await handle.stat();
      const buf = await handle.readFile();
      bytesRead += buf.length;
      cache = { ...scanFile(buf), mtimeMs };
      return cache;
    } catch (e) {
      throw failed(e);
    } finally {
      await handle.close().catch(() => {});
    }
  }

  /** True when the file is still what `c` describes (same size and mtime, or still absent). */
  async function unchanged(c) {
    try {
      const st = await stat(path);
      return st.size === c.fileBytes && st.mtimeMs === c.mtimeMs;
    } catch (e) {
      return e?.code === 'ENOENT' && c.mtimeMs === null;
    }
  }

  /**
   * What an append needs of the file, read from its two ends (its header line, and its last
   * lines back to the last record): the header, the last seq, where its good bytes end (a torn
   * tail is cut before the next write). `state.lineAt` answers only for `seqs` (the batch's
   * records at or below the last seq, read back from the end: a batch sent again). Null when
   * the file is not in the shape the package writes (read() then).
   */
  async function readEnds(seqs) {
    const handle = await openToRead();
    if (!handle) return { ...scanFile(Buffer.alloc(0)), mtimeMs: null };
    try {
      const { size, mtimeMs } = await handle.stat();
      const read = reader(handle);
      const found = await firstLine(read, size);
      if (!found) return null;
      const { line: header, end: headerEnd } = found;
      if (lineKind(header) !== 'header') return null;
      // Back from the end, line by line: the torn tail, the last seq, the lines asked for.
      let goodBytes = size;
      let lastSeq = null;
      let unterminated = false;
      let lastLine = true;
      const lines = new Map();
      const lowest = Math.min(...seqs);
      for await (const { line, at, terminated } of linesBackward(read, headerEnd + 1, size)) {
        // What follows the last line break is torn; so is a last line that is not JSON.
        if (!terminated) {
          unterminated = true;
          goodBytes = at;
          continue;
        }
        if (isBlank(line)) continue;
        if (lastLine && !unterminated && isTorn(line)) {
          lastLine = false;
          goodBytes = at;
          continue;
        }
        lastLine = false;
        let entry;
        try {
          entry = parseLine(line);
        } catch {
          return null;
        }
        if (entry.kind === 'header') return null;
        lastSeq ??= entry.seq;
        if (seqs.includes(entry.seq)) lines.set(entry.seq, entry.line);
        if (seqs.length === 0 || entry.seq <= lowest) break;
      }
      const state = { header, lastSeq: lastSeq ?? 0, lineAt: (seq) => lines.get(seq) };
      return { state, diagnostics: [], goodBytes, fileBytes: size, mtimeMs, ends: true };
    } catch (e) {
      throw failed(e);
    } finally {
      await handle.close().catch(() => {});
    }
  }

  async function write(lines, keepFraction) {
    const parsed = parseBatch(lines);
    // What the batch sends again (at or below the last seq) is compared with what the file holds.
    const known = cache && (await unchanged(cache)) ? cache : null;
    const again = parsed.filter((e) => e.kind !== 'header' && (!known || e.seq <= known.state.lastSeq)).map((e) => e.seq);
    const current = (known && (!known.ends || again.length === 0) ? known : null) ?? (await readEnds(again)) ?? (await read());
    const plan = planAppend(current.state, parsed);
    const rows = planRows(plan);
    const result = { written: rows.length, duplicates: plan.duplicates };
    if (rows.length === 0) return result;

    const text = rows.map((r) => r.line).join('\n') + '\n';
    let bytes = Buffer.from(text, 'utf8');
    if (keepFraction !== undefined) {
      // Test hook: everything but the last line, then the first part of the last line's bytes.
      const lastLine = Buffer.from(rows.at(-1).line, 'utf8');
      bytes = bytes.subarray(0, bytes.length - lastLine.length - 1 + tornLength(lastLine.length, keepFraction));
    }
    cache = null; // until the write is known to have completed
    let handle;
    try {
      handle = await open(path, 'a');
      if (current.fileBytes !== current.goodBytes) await handle.truncate(current.goodBytes);
      for (let off = 0; off < bytes.length;) {
        const { bytesWritten } = await handle.write(bytes, off, bytes.length - off);
        off += bytesWritten;
      }
      await handle.sync();
      current.mtimeMs = (await handle.stat()).mtimeMs;
    } catch (e) {
      throw new StorageError('write_failed', `cannot append to ${path}: ${e?.message}`, { cause: e });
    } finally {
      await handle?.close().catch(() => {});
    }
    if (current.fileBytes === 0) await syncDir(path);
    if (keepFraction === undefined) {
      if (current.ends) {
        if (plan.header !== null) current.state.header = plan.header;
        if (plan.records.length) current.state.lastSeq = plan.records.at(-1).seq;
      } else {
        current.state.apply(plan);
      }
      current.goodBytes = current.fileBytes = current.goodBytes + bytes.length;
      cache = current;
    }
    return result;
  }

  /** Where the tail the last loadTail() returned starts, and where the header ends. */
  let tailAt = null;

  /** The header line and the lines from the last checkpoint on, read from the file's end. */
  async function readTail() {
    const handle = await openToRead();
    if (!handle) return null;
    try {
      const { size } = await handle.stat();
      const read = reader(handle);
      // The header: the first line.
      const first = await firstLine(read, size);
      if (!first) return null;
      const { line: head, end: headerEnd } = first;
      if (size > 0) {
        const last = await read(size - 1, 1);
        if (last[0] !== NL) return null; // a torn tail: load() reports it
      }
      // Back from the end, line by line, until the checkpoint and the records it covers.
      const scan = tailScan();
      const floor = headerEnd + 1; // where the records start
      let start = size; // where the lines taken so far start
      /** Takes the line at file offset `at`: true to go on, false when it is history, null when it does not read. */
      const take = (line, at) => {
        if (isBlank(line)) return true;
        let seq;
        try {
          seq = JSON.parse(line)?.seq;
        } catch {
          return null;
        }
        if (!scan.push(seq, line)) return false;
        start = at;
        return true;
      };
      // (The file ends in a line break: every line is whole.)
      for await (const { line, at } of linesBackward(read, floor, size)) {
        const took = take(line, at);
        if (took === null) return null;
        if (!took) break;
      }
      const found = scan.result();
      if (!found) return null;
      tailAt = { headerEnd: headerEnd + 1, start, through: found.through };
      return { head, ...found };
    } catch (e) {
      throw failed(e);
    } finally {
      await handle.close().catch(() => {});
    }
  }

  /**
   * The lines of records 1..`through` (a session's `historyThrough()`), read forward from the
   * header up to the first record after it; without it (or when it is where the last loadTail()
   * stopped), the bytes between the header and that tail.
   */
  async function readHistory(through) {
    const last = historyEnd(through, tailAt?.through ?? null, path);
    const handle = await openToRead();
    if (!handle) throw failed(new Error('the file is gone'));
    try {
      if (tailAt && last === tailAt.through) {
        return (await reader(handle)(tailAt.headerEnd, tailAt.start - tailAt.headerEnd)).toString('utf8').replace(/\r\n/g, '\n');
      }
      const lines = [];
      let header = true;
      let carry = Buffer.alloc(0);
      const read = reader(handle);
      for (let pos = 0; ; pos += TAIL_CHUNK) {
        const chunk = await read(pos, TAIL_CHUNK);
        const got = chunk.length;
        const data = Buffer.concat([carry, chunk]);
        let start = 0;
        for (let i = data.indexOf(NL); i >= 0; i = data.indexOf(NL, start)) {
          const line = data.toString('utf8', start, i).replace(/\r$/, '');
          start = i + 1;
          if (header) {
            header = false;
            continue;
          }
          if (isBlank(line)) continue;
          if (lineSeq(line) > last) return lines.join('');
          lines.push(line + '\n');
        }
        carry = data.subarray(start);
        if (got < TAIL_CHUNK) {
          // A last line without its line break is torn: not history.
          return lines.join('');
        }
      }
    } catch (e) {
      throw failed(e);
    } finally {
      await handle.close().catch(() => {});
    }
  }

  /** The lines of the records `seqs` (a session's `neededRecords()`), read back from the end. */
  async function readRecords(seqs) {
    const wanted = recordSeqs(seqs);
    const handle = await openToRead();
    if (!handle) throw failed(new Error('the file is gone'));
    try {
      const { size } = await handle.stat();
      const read = reader(handle);
      const found = new Map();
      if (wanted.length > 0) {
        for await (const { line, terminated } of linesBackward(read, 0, size)) {
          if (!terminated) continue;
          const seq = lineSeq(line);
          if (seq < 0) continue;
          if (wanted.includes(seq)) found.set(seq, line);
          if (seq <= wanted[0] || found.size === wanted.length) break;
        }
      }
      return wanted.filter((seq) => found.has(seq)).map((seq) => found.get(seq) + '\n').join('');
    } catch (e) {
      throw failed(e);
    } finally {
      await handle.close().catch(() => {});
    }
  }

  return {
    path,
    /** Bytes this instance has read from the file so far (what opening and appending cost). */
    get bytesRead() {
      return bytesRead;
    },
    loadTail: () => serial(readTail),
    loadHistory: (through) => serial(() => readHistory(through)),
    loadRecords: (seqs) => serial(() => readRecords(seqs)),
    /** Reads the whole file (always, refreshing the cached state). */
    load: () => serial(async () => {
      const { state, diagnostics } = await read();
      return { text: state.text(), diagnostics };
    }),
    append: (lines) => serial(() => write(lines, undefined)),
    /**
     * Test hook for faultyStorage's `torn_write`: appends like append() but stores only the
     * first `keepFraction` of the last written line's bytes, without its newline.
     */
    _writeTorn: (lines, keepFraction = 0.5) => serial(() => write(lines, keepFraction)),
  };
}
