// The inspector's inputs for sessions and workspaces: files picked together, a session folder
// (a Claude Code project or session folder with its `subagents/`, an OpenCode storage folder), the example, a workspace
// folder, and drops on the page — files dropped together are one session; a dropped folder
// holding sessions loads the latest of them, any other opens as the workspace.
import { sessionsInFolder, storageFilesIn } from './load.mjs';

const read = (files) => Promise.all(files.map(async (f) => ({ name: f.name, text: await f.text() })));

/**
 * Wires the inputs to the inspector's `loadFiles(files, format, t0)`, the workspace panel's
 * `openWorkspace`, `entryFiles` and `showPathRules`; `noSession(folder)` says a session folder
 * held none.
 */
export function wireInputs({ $, host, cv, exampleUrl, fail, loadFiles, openWorkspace, entryFiles, showPathRules, noSession }) {
  /** A folder's sessions (`[{path, file}]`): the latest at its top with its subagents; false with none. */
  async function loadFolder(pairs, t0) {
    const storage = await storageFilesIn(pairs);
    if (storage) {
      await loadFiles(await Promise.all(storage.map(async (p) => ({ name: p.path, text: await p.file.text() }))), null, t0);
      return true;
    }
    const found = sessionsInFolder(pairs);
    if (found.length === 0) return false;
    const { parent, children } = found[0];
    const files = [...(parent ? [parent] : []), ...children];
    await loadFiles(await Promise.all(files.map(async (p) => ({ name: p.path, text: await p.file.text() }))), null, t0);
    return true;
  }

  $('folder-input').addEventListener('change', (ev) => {
    const files = [...ev.target.files];
    if (files.length === 0) return;
    const top = files[0].webkitRelativePath.split('/')[0] || files[0].name;
    const inside = files.map((f) => f.webkitRelativePath.slice(top.length + 1)).filter(Boolean);
    openWorkspace(cv.fileListFs(files), `/${top}`, top, inside);
  });
  if (typeof window.showDirectoryPicker === 'function') {
    $('folder-open').hidden = false;
    $('folder-open').addEventListener('click', async () => {
      try {
        const handle = await window.showDirectoryPicker();
        openWorkspace(cv.browserFs(handle, { mount: `/${handle.name}` }), `/${handle.name}`, handle.name);
      } catch (e) {
        if (e?.name !== 'AbortError') fail('open folder', e);
      }
    });
  } else {
    $('folder-open').hidden = true;
  }
  $('session-input').addEventListener('change', async (ev) => {
    const t0 = performance.now();
    const files = [...ev.target.files];
    if (files.length) loadFiles(await read(files), null, t0);
  });
  $('session-folder-input').addEventListener('change', async (ev) => {
    const t0 = performance.now();
    const files = [...ev.target.files];
    if (files.length === 0) return;
    // Paths inside the folder picked (its own name first in webkitRelativePath).
    const pairs = files.map((file) => ({ path: (file.webkitRelativePath || file.name).split('/').slice(1).join('/') || file.name, file }));
    if (!(await loadFolder(pairs, t0))) noSession(files[0].webkitRelativePath.split('/')[0] || files[0].name);
  });
  $('example').hidden = !exampleUrl;
  $('example').addEventListener('click', async () => {
    try {
      const res = await fetch(exampleUrl);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      loadFiles([{ name: String(exampleUrl).split('/').slice(-2).join('/'), text: await res.text() }]);
    } catch (e) {
      fail('example session', e);
    }
  });
  $('path-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const q = $('path-query').value.trim();
    if (q) showPathRules(q);
  });

  host.addEventListener('dragover', (ev) => { ev.preventDefault(); host.classList.add('dragging'); });
  host.addEventListener('dragleave', () => host.classList.remove('dragging'));
  host.addEventListener('drop', async (ev) => {
    ev.preventDefault();
    host.classList.remove('dragging');
    const t0 = performance.now();
    // The list empties once this handler returns: take everything from it before awaiting.
    const dropped = [...ev.dataTransfer.items].filter((item) => item.kind === 'file').map((item) => {
      const entry = item.webkitGetAsEntry?.();
      return entry?.isDirectory ? { entry } : { file: item.getAsFile() };
    });
    const files = dropped.filter((d) => d.file).map((d) => d.file);
    if (files.length) await loadFiles(await read(files), null, t0);
    for (const { entry } of dropped.filter((d) => d.entry)) {
      try {
        const pairs = await entryFiles(entry);
        const inside = pairs.map((p) => ({ ...p, path: p.path.slice(entry.name.length + 1) }));
        if (files.length === 0 && (await loadFolder(inside, t0))) continue;
        await openWorkspace(cv.fileListFs(pairs), `/${entry.name}`, entry.name, inside.map((p) => p.path));
      } catch (e) {
        fail('dropped folder', e);
      }
    }
  });
}
