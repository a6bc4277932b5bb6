// The lazy module's API (importers, discovery loaded on first use): the calls that load it are
// promises, its loaded exports are synchronous, and where it comes from is typed.
import {
  init,
  importSession,
  importTree,
  importOpenCodeStorage,
  loadLazyModule,
  lazyModuleLoaded,
  ContextviewError,
  type ImportResult,
  type ImportTreeResult,
  type OpenCodeStorage,
  type LazyModule,
  type LazySource,
} from 'contextview';

export async function lazyApi(text: string, children: string[]): Promise<string[]> {
  const sources: LazySource[] = [
    new URL('https://ide.example/contextview_lazy_bg.wasm'),
    '/assets/contextview_lazy_bg.wasm',
    () => fetch('/assets/contextview_lazy_bg.wasm'),
    async () => new WebAssembly.Module(new Uint8Array(8)),
  ];
  await init({ lazy: sources[0] });
  await init({ module: '/assets/contextview_bg.wasm', lazy: sources[2] });
  const before: boolean = lazyModuleLoaded();
  const imported: ImportResult = await importSession(text, 'codex');
  const tree: ImportTreeResult = await importTree(text, children);
  const storage: OpenCodeStorage = { session: text, messages: children, parts: [] };
  const fromStorage: ImportTreeResult = await importOpenCodeStorage(storage, [storage]);
  await importOpenCodeStorage(storage);
  // @ts-expect-error a storage session is its files, not one text
  await importOpenCodeStorage(text);
  // @ts-expect-error each subagent's files too
  await importOpenCodeStorage(storage, [text]);
  // @ts-expect-error the import is a promise: its log is there once awaited
  importSession(text).log;
  // @ts-expect-error an unknown format
  await importSession(text, 'cursor');
  const lazy: LazyModule = await loadLazyModule(sources[1]);
  const now: ImportResult = lazy.importSession(text);
  const engine = new lazy.WorkspaceEngine({ cwd: '/w' });
  engine.startDiscover();
  engine.free();
  try {
    await loadLazyModule();
  } catch (e) {
    if (e instanceof ContextviewError && e.code === 'lazy_module_unavailable') return [];
  }
  return [String(before), imported.log, tree.parent.log, fromStorage.parent.log, now.log];
}
