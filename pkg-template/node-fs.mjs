// The Node filesystem adapter for discover(): node:fs/promises behind the host protocol
// (docs/discovery-protocol.md). Only node.mjs imports this module.
import { open, readdir, readlink } from 'node:fs/promises';

const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const missing = (e) => e && (e.code === 'ENOENT' || e.code === 'ENOTDIR');

function kindOf(dirent) {
  if (dirent.isFile()) return 'file';
  if (dirent.isDirectory()) return 'dir';
  if (dirent.isSymbolicLink()) return 'symlink';
  return 'other';
}

/**
 * The local filesystem through node:fs/promises. Paths are absolute POSIX paths. Symlinks are
 * listed as `kind: "symlink"` with their target as written; reads follow them. `readFile` reads
 * at most `maxBytes + 1` bytes and reports the full size from stat.
 */
export function nodeFs() {
  async function readDir(path) {
    let dirents;
    try {
      dirents = await readdir(path, { withFileTypes: true });
    } catch (e) {
      if (missing(e)) return null;
      throw e;
    }
    const entries = await Promise.all(dirents.map(async (d) => {
      const kind = kindOf(d);
      if (kind !== 'symlink') return { name: d.name, kind };
      const target = await readlink(`${path === '/' ? '' : path}/${d.name}`).catch(() => undefined);
      return target === undefined ? { name: d.name, kind } : { name: d.name, kind, target };
    }));
    return entries.sort(byName);
  }

  async function readFile(path, maxBytes) {
    let handle;
    try {
      handle = await open(path, 'r');
    } catch (e) {
      if (missing(e)) return null;
      throw e;
    }
    try {
      const stat = await handle.stat();
      if (stat.isDirectory()) {
        throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${path}'`), { code: 'EISDIR', path });
      }
      if (maxBytes == null) {
        const all = await handle.readFile();
        return { content: new Uint8Array(all.buffer, all.byteOffset, all.byteLength), size: Math.max(stat.size, all.byteLength) };
      }
      // Read at most maxBytes + 1 bytes (the + 1 tells the engine the file is longer).
      const cap = maxBytes + 1;
      const buf = new Uint8Array(Math.min(stat.size || cap, cap)); // size 0: maybe a special file
      let filled = 0;
      for (;;) {
        if (filled === buf.length) break;
        const { bytesRead } = await handle.read(buf, filled, buf.length - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return { content: buf.subarray(0, filled), size: Math.max(stat.size, filled) };
    } finally {
      await handle.close();
    }
  }

  return { readDir, readFile };
}
