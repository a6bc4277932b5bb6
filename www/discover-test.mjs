// Test page: discovery of rules and skills through browserFs over the origin-private file system.
// Exposes window.discoverInOpfs(fixture) for tests/js/discover-browser.test.mjs; sets
// document.body.dataset.status to "ready" once the module has loaded.
import * as cv from '../pkg/browser.mjs';

/** Writes `files` (path relative to `dir` → text) into the directory handle `dir`. */
async function writeFiles(dir, files) {
  for (const [rel, text] of Object.entries(files)) {
    const parts = rel.split('/');
    let handle = dir;
    for (const name of parts.slice(0, -1)) handle = await handle.getDirectoryHandle(name, { create: true });
    const file = await handle.getFileHandle(parts.at(-1), { create: true });
    const writable = await file.createWritable();
    await writable.write(text);
    await writable.close();
  }
}

/**
 * Writes the fixture into a fresh OPFS directory mounted at `mount`, discovers, and runs the
 * other jobs; returns everything as plain data. `edit` = [relative path, new text] to refresh.
 */
window.discoverInOpfs = async ({ files, mount, cwd, home, rulesFor, skill, edit }) => {
  const opfs = await navigator.storage.getDirectory();
  const name = `discover-${crypto.randomUUID()}`;
  const top = await opfs.getDirectoryHandle(name, { create: true });
  try {
    await writeFiles(top, files);
    const ws = await cv.discover({ cwd, home }, cv.browserFs(top, { mount }));
    try {
      const environment = ws.environment;
      const statsAfterDiscover = ws.stats();
      const attached = await ws.rulesForPath(rulesFor);
      const attachedAgain = await ws.rulesForPath(rulesFor);
      const loaded = await ws.loadSkill(skill);
      await writeFiles(top, { [edit[0]]: edit[1] });
      const before = ws.stats();
      const changes = await ws.refresh([`${mount}/${edit[0]}`]);
      const after = ws.stats();
      let unknown;
      try {
        await ws.loadSkill('no-such-skill');
      } catch (e) {
        unknown = { code: e.code, isError: e instanceof Error };
      }
      return { environment, statsAfterDiscover, attached, attachedAgain, loaded, changes, refreshCalls: [before, after], unknown };
    } finally {
      ws.free();
    }
  } finally {
    await opfs.removeEntry(name, { recursive: true });
  }
};

/**
 * The adapter alone: writes `files` under `mount`, then answers readDir for each of `dirs` and
 * readFile(path, maxBytes) for each of `reads` ([path, maxBytes]) through browserFs.
 */
window.probeBrowserFs = async ({ files, mount, dirs, reads }) => {
  const opfs = await navigator.storage.getDirectory();
  const name = `probe-${crypto.randomUUID()}`;
  const top = await opfs.getDirectoryHandle(name, { create: true });
  try {
    await writeFiles(top, files);
    const fs = cv.browserFs(top, { mount });
    const outcome = async (fn) => {
      try {
        const v = await fn();
        return v && v.content instanceof Uint8Array ? { ...v, content: [...v.content] } : v;
      } catch (e) {
        return { thrown: { code: e.code, name: e.name } };
      }
    };
    const listed = {};
    for (const d of dirs) listed[d] = await outcome(() => fs.readDir(d));
    const read = [];
    for (const [path, maxBytes] of reads) read.push(await outcome(() => fs.readFile(path, maxBytes)));
    return { listed, read };
  } finally {
    await opfs.removeEntry(name, { recursive: true });
  }
};

document.body.dataset.status = 'ready';
