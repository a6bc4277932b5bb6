// Workers (workerd / wrangler) entry: the runtime compiles the .wasm import to a
// WebAssembly.Module, which is instantiated synchronously at module load.
import wasmModule from './web/contextview_bg.wasm';
import * as wasm from './web/contextview.js';
import { bindDiscover } from './discover.mjs';
import { bindTimeline } from './timeline.mjs';
import { bindLazy } from './lazy.mjs';

wasm.initSync({ module: wasmModule });

export * from './web/contextview.js';
export { Workspace, memoryFs, browserFs, fileListFs } from './discover.mjs';
// Session-log storage (see storage.mjs): Durable Object SQL, the shared error class, fault injection.
export { durableObjectStorage } from './storage-durable-object.mjs';
export { StorageError, faultyStorage } from './storage.mjs';
export { DurableSession } from './durable.mjs';
// A provider's answer into a session as it streams (see receive.mjs), and a whole turn that
// survives the provider: retries, recoveries, continuations (see send.mjs).
export { receive, AnswerStream } from './receive.mjs';
export { send, Turn } from './send.mjs';
// Every error the package throws (see errors.mjs).
export { ContextviewError, ContextviewTypeError, ProviderError } from './errors.mjs';
import { DurableSession } from './durable.mjs';

/** Opens the session `storage` holds (or a new one, `options.sessionId`), driving its effects. */
export const openSession = (storage, options) => DurableSession.open(wasm.Session, storage, options);
export const openSubagent = (start, storage, options) => DurableSession.forSubagent(wasm.Session, start, storage, options);
export const { Timeline } = bindTimeline(wasm);

// The lazy module (see lazy.mjs): imported, and instantiated, on first use only. Workers
// compile no wasm from bytes, so a source given here must be a WebAssembly.Module (a `.wasm`
// import) or a function returning one.
const lazy = bindLazy(async (source) => {
  const glue = await import('./web/contextview_lazy.js');
  glue.initSync({ module: source ?? (await import('./web/contextview_lazy_bg.wasm')).default });
  return glue;
});
export const { loadLazyModule, lazyModuleLoaded, importSession, importTree, importOpenCodeStorage } = lazy;
export const { discover } = bindDiscover(async () => (await lazy.loadLazyModule()).WorkspaceEngine);

/**
 * The first-load wasm is already instantiated; kept for symmetry with the browser entry, whose
 * `{lazy}` option it takes: where the lazy module is read from when first needed.
 */
export const init = lazy.initReady;
